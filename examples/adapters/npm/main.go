// Command npm is an example external adapter (SPEC §9.2): a config key
// "npm/<package>" runs the npm package's MCP server with npx.
//
//	{"npm/@modelcontextprotocol/server-everything": {"args": ["stdio"]}}
//
// runs `npx -y @modelcontextprotocol/server-everything stdio`, and
// `mcp-gateway pull` runs `npm exec --yes
// --package=@modelcontextprotocol/server-everything -- true`, which installs
// the package and its dependencies into npx's cache (`npm cache add` would
// store the package alone), so that the first start needs no download. The package may carry a
// version: "npm/left-pad@1.3.0".
//
// Build it and put it in the gateway's adapters dir:
//
//	go build -o /etc/mcp-gateway/adapters/npm ./examples/adapters/npm
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/adapters/plugin"
)

func main() { plugin.Serve(npmAdapter{}) }

const prefix = "npm/"

// packageRE is an npm package name, optionally scoped, optionally with a
// version or tag. It cannot start with "-", so npx never reads it as a flag.
var packageRE = regexp.MustCompile(`^(@[a-z0-9][a-z0-9._~-]*/)?[A-Za-z0-9][A-Za-z0-9._~-]*(@[A-Za-z0-9._~^<=>*+-]+)?$`)

type npmAdapter struct{}

var _ plugin.Adapter = npmAdapter{}

func (npmAdapter) Prefixes() []string { return []string{prefix} }

func (npmAdapter) Help() string {
	return `"npm/<package>" with optional {"args": [...]} to run npx -y <package> <args…>`
}

func (npmAdapter) Resolve(key string, e adapters.Entry) (adapters.LaunchSpec, []string, error) {
	pkg := strings.TrimPrefix(key, prefix)
	if !packageRE.MatchString(pkg) {
		return adapters.LaunchSpec{}, nil, fmt.Errorf(`key must be "npm/<package>" with an npm package name, such as "npm/@modelcontextprotocol/server-everything"; got %q`, pkg)
	}
	var errs []error
	var args []string
	if raw, ok := e.Props["args"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			errs = append(errs, errors.New("args: want an array of strings"))
		}
		if slices.ContainsFunc(args, func(a string) bool { return strings.ContainsRune(a, 0) }) {
			errs = append(errs, errors.New("args: an argument has a NUL byte"))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return adapters.LaunchSpec{}, nil, err
	}
	var warns []string
	if e.RunCmd != nil || e.InstallCmd != nil {
		warns = append(warns, "runCmd/installCmd are ignored for an npm/<package> server")
	}
	for _, k := range slices.Sorted(maps.Keys(e.Props)) {
		if k != "args" {
			warns = append(warns, fmt.Sprintf("unknown property %q ignored", k))
		}
	}
	return adapters.LaunchSpec{
		Argv:    append([]string{"npx", "-y", pkg}, args...),
		Install: [][]string{{"npm", "exec", "--yes", "--package=" + pkg, "--", "true"}},
	}, warns, nil
}
