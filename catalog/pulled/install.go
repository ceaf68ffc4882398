package pulled

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/boundedfile"
)

// Exec runs argv in dir with env (the process's if nil), its output to
// out, and kills all it started when ctx ends; adapters.Run is one.
type Exec func(ctx context.Context, dir string, env []string, argv []string, out io.Writer) error

// InstallOptions are what Install runs npm or uv with.
type InstallOptions struct {
	Env  []string  // their environment; nil: the process's
	Out  io.Writer // their output, for the template build's log; nil discards it
	Exec Exec
}

// Install installs r's package into its directory (PackageDir), pinned
// to the version the registry resolves now, and writes its record; an
// earlier install of the same spec, whole or interrupted, is replaced.
// npm: `npm install --prefix <dir> <spec>`; uv: `uv tool install <spec>`
// with UV_TOOL_DIR and UV_TOOL_BIN_DIR inside the directory, then
// `uv tool list` for the version and the executables. The executable r
// names must be among the package's, or Install fails. On failure
// nothing of the package is left.
func (s Store) Install(ctx context.Context, r Run, o InstallOptions) (Record, error) {
	if s.Dir == "" {
		return Record{}, errors.New("install package: no servers dir")
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	dir := s.PackageDir(r.Manager, r.Spec)
	if err := os.RemoveAll(dir); err != nil {
		return Record{}, fmt.Errorf("remove earlier install: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Record{}, fmt.Errorf("install package: %w", err)
	}
	rec, err := s.install(ctx, dir, r, o)
	rec.Manager, rec.Spec, rec.PulledAt = r.Manager, r.Spec, time.Now().UTC().Truncate(time.Second)
	if err == nil {
		_, err = rec.choose(r.Bin)
	}
	if err == nil {
		err = write(dir, rec)
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return Record{}, err
	}
	return rec, nil
}

func (s Store) install(ctx context.Context, dir string, r Run, o InstallOptions) (Record, error) {
	if r.Manager == UV {
		return installUV(ctx, dir, r, o)
	}
	return installNPM(ctx, dir, r, o)
}

// installNPM installs with npm into dir and reads the installed
// package's package.json: its version and its "bin" (a path, named after
// the package, or a map of names to paths), each linked by npm into
// node_modules/.bin.
func installNPM(ctx context.Context, dir string, r Run, o InstallOptions) (Record, error) {
	argv := []string{"npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "--no-update-notifier", r.Spec}
	if err := o.Exec(ctx, dir, o.Env, argv, o.Out); err != nil {
		return Record{}, fmt.Errorf("run %s: %w", strings.Join(argv, " "), err)
	}
	name := r.Package()
	manifest := filepath.Join(dir, "node_modules", filepath.FromSlash(name), "package.json")
	b, err := boundedfile.Read(manifest, maxRecordBytes)
	if err != nil {
		return Record{}, fmt.Errorf("read the installed package: %w", err)
	}
	var pkg struct {
		Version string          `json:"version"`
		Bin     json.RawMessage `json:"bin"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return Record{}, fmt.Errorf("decode %s: %w", manifest, err)
	}
	bins := map[string]string{}
	var one string
	var many map[string]string
	switch {
	case json.Unmarshal(pkg.Bin, &one) == nil && one != "":
		bins[name[strings.LastIndexByte(name, '/')+1:]] = ""
	case json.Unmarshal(pkg.Bin, &many) == nil:
		for n := range many {
			bins[n] = ""
		}
	}
	for n := range bins {
		link := filepath.Join("node_modules", ".bin", n)
		if _, err := os.Stat(filepath.Join(dir, link)); err != nil {
			return Record{}, fmt.Errorf("find executable %s of %s: %w", n, name, err)
		}
		bins[n] = link
	}
	return Record{Package: name, Version: pkg.Version, Bins: bins}, nil
}

// installUV installs with uv into dir/tools, its executables into
// dir/bin, and reads `uv tool list` there. uv's virtual environments
// hold absolute paths, so the tool is installed where it stays.
func installUV(ctx context.Context, dir string, r Run, o InstallOptions) (Record, error) {
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(env[:len(env):len(env)], "UV_TOOL_DIR="+filepath.Join(dir, "tools"), "UV_TOOL_BIN_DIR="+filepath.Join(dir, "bin"))
	argv := []string{"uv", "tool", "install", r.Spec}
	if err := o.Exec(ctx, dir, env, argv, o.Out); err != nil {
		return Record{}, fmt.Errorf("run %s: %w", strings.Join(argv, " "), err)
	}
	var list bytes.Buffer
	if err := o.Exec(ctx, dir, env, []string{"uv", "tool", "list"}, &list); err != nil {
		return Record{}, fmt.Errorf("run uv tool list: %w", err)
	}
	name := r.Package()
	version, exes := toolList(list.String(), name)
	if version == "" {
		return Record{}, fmt.Errorf("uv tool list does not show %s after its install:\n%s", name, list.String())
	}
	bins := map[string]string{}
	for _, n := range exes {
		link := filepath.Join("bin", n)
		if _, err := os.Stat(filepath.Join(dir, link)); err != nil {
			return Record{}, fmt.Errorf("find executable %s of %s: %w", n, name, err)
		}
		bins[n] = link
	}
	return Record{Package: name, Version: version, Bins: bins}, nil
}

// toolHeader is a tool's line in `uv tool list` ("black v24.2.0"), each
// followed by one line per executable ("- black").
var toolHeader = regexp.MustCompile(`^(\S+) v(\S+)`)

// toolList returns the version and executables of package name in the
// output of `uv tool list`; names compare as PEP 503 normalises them.
func toolList(out, name string) (version string, exes []string) {
	in := false
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r")
		if m := toolHeader.FindStringSubmatch(line); m != nil {
			in = normalize(m[1]) == normalize(name)
			if in {
				version = m[2]
			}
			continue
		}
		if exe, ok := strings.CutPrefix(line, "- "); ok && in {
			if f := strings.Fields(exe); len(f) > 0 {
				exes = append(exes, f[0])
			}
		}
	}
	return version, exes
}

var separators = regexp.MustCompile(`[-_.]+`)

func normalize(name string) string { return separators.ReplaceAllString(strings.ToLower(name), "-") }
