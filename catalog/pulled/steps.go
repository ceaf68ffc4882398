package pulled

import (
	"path/filepath"
	"strings"
)

// InstalledBy reports whether install step step does no more than
// install r's package, so that pull, which installs it itself, may skip
// it: an npx or npm exec (uvx, uv tool run) of the same package, such as
// the built-in entries' `npm exec --yes --package=<pkg> -- true`, or
// `npm install [-g] <pkg>` (`uv tool install <pkg>`) naming that package
// alone. Any other step, or one with options this cannot judge, is not.
func (r Run) InstalledBy(step []string) bool {
	if other, ok := Parse(step); ok {
		return other.Manager == r.Manager && other.Package() == r.Package()
	}
	if len(step) < 3 {
		return false
	}
	var args []string
	switch prog := filepath.Base(step[0]); {
	case r.Manager == NPM && prog == "npm" && (step[1] == "install" || step[1] == "i" || step[1] == "add"):
		args = step[2:]
	case r.Manager == UV && prog == "uv" && len(step) > 3 && step[1] == "tool" && step[2] == "install":
		args = step[3:]
	default:
		return false
	}
	var pkgs []string
	for _, a := range args {
		switch {
		case a == "-g" || a == "--global" || a == "-q" || a == "--quiet" || a == "--no-audit" || a == "--no-fund":
		case strings.HasPrefix(a, "-"):
			return false
		default:
			pkgs = append(pkgs, a)
		}
	}
	return len(pkgs) == 1 && (Run{Manager: r.Manager, Spec: pkgs[0]}).Package() == r.Package()
}
