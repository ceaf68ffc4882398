package modern

import (
	"testing"

	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
)

// canBeAsked, one scan, answers as clientCan does for the three
// server-to-client requests together (the last of a repeated key counts;
// escaped keys are the same key).
func TestCanBeAskedAgreesWithClientCan(t *testing.T) {
	for _, c := range []string{`{}`, `{"sampling":{}}`, `{"roots":null}`, `{"sampling":{},"sampling":null}`,
		`{"x":1,"elicitation":{"form":{}}}`, `{"ro\u006fts":{}}`, `[]`, ``, `{"elicitation":null,"roots":{}}`} {
		want := false
		for _, m := range []string{"sampling/createMessage", "elicitation/create", "roots/list"} {
			want = want || relay.ClientCan([]byte(c), m)
		}
		if got := canBeAsked([]byte(c)); got != want {
			t.Errorf("canBeAsked(%s) = %v, clientCan says %v", c, got, want)
		}
	}
}
