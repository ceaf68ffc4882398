package daemon

import (
	"testing"

	"github.com/mcp-gateway/mcp-gateway/adapters"
)

// The advice to pull is for servers that were not pulled (SPEC §2.8).
func TestTimeoutHintAdvisesPullOnlyWhereItHelps(t *testing.T) {
	servers := []adapters.Server{
		{Name: "fresh", Spec: adapters.LaunchSpec{Kind: "catalog"}},
		{Name: "pulled", Spec: adapters.LaunchSpec{Kind: "catalog", Pulled: "pkg@1.0.0"}},
		{Name: "local", Spec: adapters.LaunchSpec{Kind: "command"}},
		{Name: "github/a/b", Spec: adapters.LaunchSpec{Kind: "github"}},
	}
	got := timeoutHint(servers, []string{"fresh", "pulled", "local", "github/a/b"})
	want := "pre-install them in the template with `mcp-gateway pull fresh github/a/b`; make pulled, local start faster or raise --startup-timeout"
	if got != want {
		t.Errorf("hint = %q\nwant   %q", got, want)
	}
}
