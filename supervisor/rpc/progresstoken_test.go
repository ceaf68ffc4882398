package rpc

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// swapProgressToken swaps the token of params._meta only, whatever the
// arguments hold, and sends every params it cannot rule out by their
// top-level keys (an escaped key) through the decoding path.
func TestSwapProgressTokenReadsOnlyMeta(t *testing.T) {
	big := strings.Repeat("abcdefgh", 1<<17)
	for _, tc := range []struct{ name, params, want, orig string }{
		{"no _meta", `{"name":"echo","arguments":{"message":"x"}}`, `{"name":"echo","arguments":{"message":"x"}}`, ""},
		{"the key in the arguments only", `{"name":"echo","arguments":{"progressToken":"a","m":"` + big + `\u0041"}}`,
			`{"name":"echo","arguments":{"progressToken":"a","m":"` + big + `\u0041"}}`, ""},
		{"a token", `{"name":"echo","_meta":{"progressToken":7},"arguments":{"m":"` + big + `"}}`,
			`{"name":"echo","_meta":{"progressToken":"ours"},"arguments":{"m":"` + big + `"}}`, "7"},
		{"an escaped _meta key", `{"name":"echo","_m\u0065ta":{"progressToken":"t"}}`, `{"name":"echo","_m\u0065ta":{"progressToken":"ours"}}`, `"t"`},
		{"an escaped token key", `{"_meta":{"progress\u0054oken":1}}`, `{"_meta":{"progress\u0054oken":"ours"}}`, "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, orig, err := swapProgressToken([]byte(tc.params), []byte(`"ours"`))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want || string(orig) != tc.orig {
				t.Errorf("swapProgressToken(%.80s) = %.80s, %s; want %.80s, %s", tc.params, got, orig, tc.want, tc.orig)
			}
		})
	}
}

// mayHoldToken says yes to any params a progressToken could be in,
// spelled plainly or with escapes, whether small enough to be searched
// whole or read member by member, and no to params without one.
func TestMayHoldToken(t *testing.T) {
	big := `,"arguments":{"x":"` + strings.Repeat("a", quickTokenCheck) + `"}`
	for _, c := range []struct {
		params string
		want   bool
	}{
		{`{"name":"echo","arguments":{"message":"hi"}}`, false},
		{`{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, false},
		{`{"name":"echo","_meta":{"progressToken":"p1"}}`, true},
		{`{"name":"echo","_meta":{"progress\u0054oken":"p1"}}`, true},
		{`{"name":"echo","_m\u0065ta":{"x":1}}`, true},
		{`{"name":"echo"` + big + `}`, false},
		{`{"name":"echo"` + big + `,"_meta":{"progressToken":7}}`, true},
	} {
		if got := mayHoldToken(json.RawMessage(c.params)); got != c.want {
			t.Errorf("mayHoldToken(%.80s…) = %v, want %v", c.params, got, c.want)
		}
	}
}

// stubPeer is a Peer that answers nothing; freePeer is one that is a
// TokenFree too.
type stubPeer struct{}

func (stubPeer) Notify(context.Context, string, json.RawMessage) {}
func (stubPeer) Request(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return nil, nil
}
func (stubPeer) ClientID() string   { return "stub" }
func (stubPeer) Client() ClientInfo { return ClientInfo{} }

type freePeer struct {
	stubPeer
	free bool
}

func (p freePeer) NoProgressToken() bool { return p.free }

// A call's params are searched for a progressToken to swap unless its
// peer says they hold none (TokenFree, which the aggregator's check of
// them tells): the peer's word is taken, so that 8 MiB of arguments are
// not scanned again (issue 33).
func TestStampTakesTheTokenFreePeersWord(t *testing.T) {
	params := `{"name":"echo","_meta":{"progressToken":"p"},"arguments":{}}`
	for _, tc := range []struct {
		name    string
		peer    Peer
		swapped bool
	}{
		{"a peer that cannot tell", stubPeer{}, true},
		{"a peer that says there may be one", freePeer{free: false}, true},
		{"a peer that says there is none", freePeer{free: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pc := &pendingCall{peer: tc.peer}
			got, err := pc.stamp(nil, 7, json.RawMessage(params))
			if err != nil {
				t.Fatal(err)
			}
			if swapped := string(got) != params; swapped != tc.swapped {
				t.Errorf("stamp = %s; swapped %v, want %v", got, swapped, tc.swapped)
			}
		})
	}
}
