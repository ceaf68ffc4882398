package wire

import (
	"testing"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// The methods given as constants read as jsonrpc.Text reads them, and
// every other spelling (an escape, another method) still goes through it.
func TestMethodNameReadsAsText(t *testing.T) {
	for _, raw := range []string{`"tools/call"`, `"tools/list"`, `"ping"`, `"notifications/cancelled"`,
		`"tools\/call"`, `"t\u006fols/call"`, `"resources/read"`, `""`, `"ping`, `7`, `" ping"`} {
		name, ok := methodName([]byte(raw))
		wantName, wantOK := jsonrpc.Text([]byte(raw))
		if name != wantName || ok != wantOK {
			t.Errorf("methodName(%s) = %q, %v; jsonrpc.Text: %q, %v", raw, name, ok, wantName, wantOK)
		}
	}
}
