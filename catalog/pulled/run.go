package pulled

import (
	"path/filepath"
	"regexp"
	"strings"
)

// Manager is the package manager a runner fetches from.
type Manager string

const (
	NPM Manager = "npm" // npx, npm exec: the npm registry
	UV  Manager = "uv"  // uvx, uv tool run: the Python package index
)

// Run is a command that runs a package through a package runner.
type Run struct {
	Manager Manager
	// Spec is the package as the command names it, version included:
	// "@modelcontextprotocol/server-memory", "pkg@1.2.3", "pkg==0.6.2".
	Spec string
	// Bin is the executable the command names; "" means the package's
	// own: for npm its only one, or the one named after the package; for
	// uv the one named after the package (as npx and uvx choose).
	Bin string
	// Args are the arguments after the package or executable.
	Args []string
}

// Package is the package's name, without its version.
func (r Run) Package() string {
	if r.Manager == UV {
		return uvName.FindString(r.Spec)
	}
	if i := strings.LastIndexByte(r.Spec, '@'); i > 0 {
		return r.Spec[:i]
	}
	return r.Spec
}

// Parse reports whether argv runs a package through npx, `npm exec`
// (`npm x`), uvx or `uv tool run`, and which. Only the forms whose
// meaning is certain are recognised: the runner's options that do not
// change what runs (-y, --yes, -q, --offline, …), one --package (npm) or
// --from (uv), and a registry package (not a path, URL or git spec).
// Anything else is not a package run, and starts as written.
func Parse(argv []string) (Run, bool) {
	if len(argv) == 0 {
		return Run{}, false
	}
	switch prog := filepath.Base(argv[0]); {
	case prog == "npx":
		return npmRunner.parse(argv[1:])
	case prog == "npm" && len(argv) > 1 && (argv[1] == "exec" || argv[1] == "x"):
		return npmRunner.parse(argv[2:])
	case prog == "uvx":
		return uvRunner.parse(argv[1:])
	case prog == "uv" && len(argv) > 2 && argv[1] == "tool" && argv[2] == "run":
		return uvRunner.parse(argv[3:])
	}
	return Run{}, false
}

// npmQuiet are npx's and npm exec's options that do not change what runs.
var npmQuiet = map[string]bool{
	"-y": true, "--yes": true, "-q": true, "--quiet": true, "--silent": true,
	"--prefer-offline": true, "--prefer-online": true, "--offline": true, "--no-update-notifier": true,
}

// uvQuiet are uvx's options that do not change what runs.
var uvQuiet = map[string]bool{
	"-q": true, "--quiet": true, "-qq": true, "--offline": true, "--isolated": true, "--no-progress": true,
}

// options splits args into the value of its one value option (named by
// long and short, "" for none), and the positional arguments. ok is false
// for an option not in quiet, or the value option given twice.
func options(args []string, quiet map[string]bool, long, short string) (value string, rest []string, ok bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return value, args[i+1:], true
		case quiet[a]:
		case a == long || (short != "" && a == short), strings.HasPrefix(a, long+"="):
			if value != "" {
				return "", nil, false
			}
			if v, eq := strings.CutPrefix(a, long+"="); eq {
				value = v
			} else if i+1 < len(args) {
				i++
				value = args[i]
			}
			if value == "" {
				return "", nil, false
			}
		case strings.HasPrefix(a, "-"):
			return "", nil, false
		default:
			return value, args[i:], true
		}
	}
	return value, nil, true
}

// npmSpec is a registry package, optionally scoped and versioned; a path,
// URL, tarball or git spec does not match (no "/" past the scope, no ":").
var npmSpec = regexp.MustCompile(`^(@[A-Za-z0-9._~-]+/)?[A-Za-z0-9._~-]+(@[^\s/:]+)?$`)

// binName is an executable's name: no path.
var binName = regexp.MustCompile(`^[A-Za-z0-9._~+-]+$`)

// uvName is a Python package's name at the start of a requirement;
// uvSpec a requirement uv tool install takes from an index: a name,
// optional extras, and an optional version (@1.2, ==1.2, >=1.2, …).
var (
	uvName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*`)
	uvSpec = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9,._-]+\])?((@|==|>=|<=|~=|!=|<|>)[A-Za-z0-9.*+!_-]+)?$`)
)

// runner is how a package manager's runner names what it runs: its
// options that change nothing (quiet), the option that names the package
// (long, short) with the executable as the first argument, or else the
// package as the first argument, whose spec must be valid.
type runner struct {
	manager     Manager
	quiet       map[string]bool
	long, short string
	valid       func(spec string) bool
}

var (
	npmRunner = runner{manager: NPM, quiet: npmQuiet, long: "--package", short: "-p",
		valid: func(spec string) bool { return npmSpec.MatchString(spec) && !strings.HasSuffix(spec, ".tgz") }}
	// "uvx name@1.2": the package named by the command, at a version.
	uvRunner = runner{manager: UV, quiet: uvQuiet, long: "--from", valid: uvSpec.MatchString}
)

// parse reads the runner's arguments (after the command).
func (p runner) parse(args []string) (Run, bool) {
	pkg, rest, ok := options(args, p.quiet, p.long, p.short)
	if !ok || len(rest) == 0 {
		return Run{}, false
	}
	r := Run{Manager: p.manager, Spec: pkg, Args: rest[1:]}
	if pkg == "" {
		r.Spec = rest[0]
	} else if r.Bin = rest[0]; !binName.MatchString(r.Bin) {
		return Run{}, false
	}
	if !p.valid(r.Spec) {
		return Run{}, false
	}
	return r, true
}
