package supervisor

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/adapters/choice"
	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
)

// An entry's choice of tools and prompts (SPEC §4.9) changes nothing in
// the process: a spec that differs only there is taken without a restart
// (SetSpec), and a warm server is adopted with the config's choice.
func TestChoiceIsTakenWithoutARestart(t *testing.T) {
	base := []string{"PATH=/usr/bin:/bin", "HOME=/root"}
	tools := func(raw string) choice.Choice {
		c, err := choice.Tools(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	s := New([]adapters.Server{{Name: "kept", Spec: fakeSpec("kept", nil)}}, Options{Log: logfile.New(&syncBuffer{}), BaseEnv: base, StartTimeout: 20 * time.Second})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	if err := s.StartAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	u, _ := s.Upstream("kept")
	spec := fakeSpec("kept", nil)
	spec.Tools = tools(`["echo"]`)
	if u.SetSpec(spec) {
		t.Error("SetSpec of a spec that differs only in its tools reports a change (a restart)")
	}
	if got, _ := u.Choice(); !got.Equal(spec.Tools) {
		t.Error("SetSpec did not take the new choice")
	}
	spec.Tools = tools(`{"deny":["echo"]}`)
	res := s.Configure([]adapters.Server{{Name: "kept", Spec: spec}}, base)
	if !slices.Equal(res.Adopted, []string{"kept"}) {
		t.Fatalf("Configure = %+v, want kept adopted", res)
	}
	if got, _ := u.Choice(); !got.Equal(spec.Tools) {
		t.Error("the adopted server kept its warm choice, not the config's")
	}
}
