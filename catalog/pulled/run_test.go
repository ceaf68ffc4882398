package pulled

import (
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want Run
		ok   bool
	}{
		// npm: the built-in form, versions, --package, npm exec.
		{[]string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/data", "/tmp"},
			Run{Manager: NPM, Spec: "@modelcontextprotocol/server-filesystem", Args: []string{"/data", "/tmp"}}, true},
		{[]string{"/usr/bin/npx", "--yes", "pkg@1.2.3"}, Run{Manager: NPM, Spec: "pkg@1.2.3", Args: []string{}}, true},
		{[]string{"npx", "-y", "@scope/pkg@^2", "--flag"}, Run{Manager: NPM, Spec: "@scope/pkg@^2", Args: []string{"--flag"}}, true},
		{[]string{"npx", "--package=@scope/tools", "-y", "tool-b", "x"}, Run{Manager: NPM, Spec: "@scope/tools", Bin: "tool-b", Args: []string{"x"}}, true},
		{[]string{"npm", "exec", "--yes", "--package", "pkg@1", "--", "serve", "--stdio"}, Run{Manager: NPM, Spec: "pkg@1", Bin: "serve", Args: []string{"--stdio"}}, true},
		{[]string{"npm", "x", "-y", "--", "pkg", "-a"}, Run{Manager: NPM, Spec: "pkg", Args: []string{"-a"}}, true},
		// uv: uvx, versions, --from, uv tool run.
		{[]string{"uvx", "mcp-server-time"}, Run{Manager: UV, Spec: "mcp-server-time", Args: []string{}}, true},
		{[]string{"uvx", "arxiv-mcp-server", "--storage-path", "/p"}, Run{Manager: UV, Spec: "arxiv-mcp-server", Args: []string{"--storage-path", "/p"}}, true},
		{[]string{"uvx", "-q", "ruff@0.6.0", "check"}, Run{Manager: UV, Spec: "ruff@0.6.0", Args: []string{"check"}}, true},
		{[]string{"uvx", "--from", "mcp-server-fetch==2025.4.7", "mcp-server-fetch"}, Run{Manager: UV, Spec: "mcp-server-fetch==2025.4.7", Bin: "mcp-server-fetch", Args: []string{}}, true},
		{[]string{"uv", "tool", "run", "--from=pkg[cli]>=1.0", "pkg-cli", "a"}, Run{Manager: UV, Spec: "pkg[cli]>=1.0", Bin: "pkg-cli", Args: []string{"a"}}, true},
		// Not package runs, or forms whose meaning is not certain: start as written.
		{[]string{"node", "server.js"}, Run{}, false},
		{[]string{"npm", "start"}, Run{}, false},
		{[]string{"npx"}, Run{}, false},
		{[]string{"npx", "-y"}, Run{}, false},
		{[]string{"npx", "--registry", "https://mirror", "pkg"}, Run{}, false},
		{[]string{"npx", "./local/pkg"}, Run{}, false},
		{[]string{"npx", "github:user/repo"}, Run{}, false},
		{[]string{"npx", "pkg.tgz"}, Run{}, false},
		{[]string{"npx", "-p", "a", "-p", "b", "cmd"}, Run{}, false},
		{[]string{"npx", "--package=pkg", "bin/../x"}, Run{}, false},
		{[]string{"uvx", "--python", "3.12", "pkg"}, Run{}, false},
		{[]string{"uvx", "git+https://github.com/a/b"}, Run{}, false},
		{[]string{"uv", "run", "pkg"}, Run{}, false},
	} {
		got, ok := Parse(tc.argv)
		if ok != tc.ok || got.Manager != tc.want.Manager || got.Spec != tc.want.Spec || got.Bin != tc.want.Bin || (ok && !slices.Equal(got.Args, tc.want.Args)) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v, %v", tc.argv, got, ok, tc.want, tc.ok)
		}
	}
}

func TestPackage(t *testing.T) {
	for _, tc := range []struct {
		run  Run
		want string
	}{
		{Run{Manager: NPM, Spec: "@scope/pkg@1.2"}, "@scope/pkg"},
		{Run{Manager: NPM, Spec: "@scope/pkg"}, "@scope/pkg"},
		{Run{Manager: NPM, Spec: "pkg@latest"}, "pkg"},
		{Run{Manager: UV, Spec: "ruff@0.6.0"}, "ruff"},
		{Run{Manager: UV, Spec: "pkg[cli]>=1.0"}, "pkg"},
	} {
		if got := tc.run.Package(); got != tc.want {
			t.Errorf("%+v.Package() = %q, want %q", tc.run, got, tc.want)
		}
	}
}

func TestInstalledBy(t *testing.T) {
	npm := Run{Manager: NPM, Spec: "@modelcontextprotocol/server-memory"}
	uv := Run{Manager: UV, Spec: "arxiv-mcp-server"}
	for _, tc := range []struct {
		run  Run
		step []string
		want bool
	}{
		{npm, []string{"npm", "exec", "--yes", "--package=@modelcontextprotocol/server-memory", "--", "true"}, true},
		{npm, []string{"npx", "-y", "@modelcontextprotocol/server-memory@2026.8.31"}, true},
		{npm, []string{"npm", "install", "-g", "@modelcontextprotocol/server-memory"}, true},
		{npm, []string{"npm", "i", "@modelcontextprotocol/server-memory", "left-pad"}, false},
		{npm, []string{"npm", "install", "--registry", "x", "@modelcontextprotocol/server-memory"}, false},
		{npm, []string{"npm", "exec", "--yes", "--package=other", "--", "true"}, false},
		{npm, []string{"apt-get", "install", "-y", "libfoo"}, false},
		{npm, []string{"uv", "tool", "install", "@modelcontextprotocol/server-memory"}, false},
		{uv, []string{"uv", "tool", "install", "arxiv-mcp-server"}, true},
		{uv, []string{"uv", "tool", "install", "arxiv-mcp-server==0.3.1"}, true},
		{uv, []string{"uvx", "arxiv-mcp-server", "--help"}, true},
		{uv, []string{"uv", "tool", "install", "--python", "3.12", "arxiv-mcp-server"}, false},
		{uv, []string{"pip", "install", "arxiv-mcp-server"}, false},
	} {
		if got := tc.run.InstalledBy(tc.step); got != tc.want {
			t.Errorf("%s.InstalledBy(%q) = %v, want %v", tc.run.Spec, tc.step, got, tc.want)
		}
	}
}
