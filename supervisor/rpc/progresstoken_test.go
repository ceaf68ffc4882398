package rpc

import (
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
