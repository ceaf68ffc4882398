package supervisor

import (
	"context"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
	"github.com/mcp-gateway/mcp-gateway/supervisor/proc"
)

// A warm supervisor handed a config keeps the servers that equal a warm
// one (same process), stops the warm ones the config leaves out or
// changes, starts the dead one afresh and the new ones (SPEC §2.9).
func TestConfigureAdoptsWhatEquals(t *testing.T) {
	warmBase := []string{"PATH=/usr/bin:/bin", "HOME=/root", "PWD=/template", "SHLVL=1", "MCP_GATEWAY_RUN_DIR=/run/template"}
	lang := map[string]string{"LANG": "C"} // kept sets it: a LANG in the launcher's environment changes nothing for it
	s := New([]adapters.Server{
		{Name: "kept", Spec: fakeSpec("kept", lang)},
		{Name: "left", Spec: fakeSpec("left", nil)},
		{Name: "dead", Spec: fakeSpec("dead", nil)},
		{Name: "changed", Spec: fakeSpec("changed", map[string]string{"MODE": "a"})},
		{Name: "envd", Spec: fakeSpec("envd", nil)},
	}, Options{Log: logfile.New(&syncBuffer{}), BaseEnv: warmBase, StartTimeout: 20 * time.Second,
		Stop: proc.StopTimeouts{CloseWait: time.Second, TermWait: time.Second}})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	if err := s.StartAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	pids := map[string]int{}
	for _, u := range s.Upstreams() {
		pids[u.Name()] = u.Status().PID
	}
	dead, _ := s.Upstream("dead")
	_ = syscall.Kill(pids["dead"], syscall.SIGKILL)
	testwait.For(t, 10*time.Second, "the killed server dead to be seen exited", func() bool { return dead.Status().State == StateExited })

	// The launcher's shell differs (PWD, SHLVL), and its environment has
	// LANG, the token and the gateway's own settings, which are no
	// server's business (SPEC §2.9).
	base := []string{"PATH=/usr/bin:/bin", "HOME=/root", "LANG=C.UTF-8", "PWD=/home/user", "SHLVL=2", TokenEnv + "=tok",
		"MCP_GATEWAY_PORT=50123", "MCP_GATEWAY_RUN_DIR=/run/other", "MCP_GATEWAY_LOG_SHARE=64KiB"}
	res := s.Configure([]adapters.Server{
		{Name: "changed", Spec: fakeSpec("changed", map[string]string{"MODE": "b"})},
		{Name: "dead", Spec: fakeSpec("dead", nil)},
		{Name: "envd", Spec: fakeSpec("envd", nil)},
		{Name: "kept", Spec: fakeSpec("kept", lang)},
		{Name: "new", Spec: fakeSpec("new", nil)},
	}, base)
	if !slices.Equal(res.Adopted, []string{"kept"}) || !slices.Equal(res.Started, []string{"changed", "dead", "envd", "new"}) ||
		!slices.Equal(res.Stopped, []string{"changed", "dead", "envd", "left"}) {
		t.Errorf("Configure = %+v", res)
	}
	for name, want := range map[string]string{"left": "not in the config", "dead": "it is not running",
		"changed": "its launch spec differs", "envd": "its environment differs: LANG"} {
		if res.Why[name] != want {
			t.Errorf("why %s = %q, want %q", name, res.Why[name], want)
		}
	}
	if err := s.StartAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, u := range s.Upstreams() {
		names = append(names, u.Name())
		st := u.Status()
		if st.State != StateRunning {
			t.Errorf("%s is %s after StartAll", u.Name(), st.State)
		}
		if adopted := u.Name() == "kept"; (st.PID == pids[u.Name()]) != adopted {
			t.Errorf("%s: pid %d, warm pid %d (adopted: %v)", u.Name(), st.PID, pids[u.Name()], adopted)
		}
	}
	if !slices.Equal(names, []string{"changed", "dead", "envd", "kept", "new"}) {
		t.Errorf("servers %q", names)
	}
	for _, name := range []string{"left", "changed", "envd"} {
		testwait.For(t, 10*time.Second, "the process of "+name+" to end", func() bool { return syscall.Kill(pids[name], 0) != nil })
	}
	kept, _ := s.Upstream("kept")
	if got := mustText(t, kept, "echo", `{"text":"still here"}`); got != "still here from kept" {
		t.Errorf("call to the adopted server = %q", got)
	}
	// An adopted server's next run starts from the config's environment.
	_ = syscall.Kill(pids["kept"], syscall.SIGKILL)
	testwait.For(t, 10*time.Second, "the killed server kept to be seen exited", func() bool { return kept.Status().State == StateExited })
	mustText(t, kept, "echo", `{"text":"x"}`)
	env := mustText(t, kept, "env", `{}`)
	if !strings.Contains(env, "PWD=/home/user") {
		t.Errorf("restarted adopted server's environment lacks the config's: %s", env)
	}
}

// Only the environment differs: the reason names the variables, never
// their values.
func TestAdoptableNamesTheVariablesThatDiffer(t *testing.T) {
	if d := envDiff([]string{"A=1", "B=2", "_=/x", "PWD=/a"}, []string{"A=1", "B=3", "C=secret", "_=/y"}); !slices.Equal(d, []string{"B", "C"}) {
		t.Errorf("envDiff = %q", d)
	}
}
