package modern

import (
	"strings"
	"testing"

	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
)

// InMeta finds the version in params._meta whatever the size of params,
// and only there: the key's text elsewhere (in a string, as a key of the
// arguments) is not the key.
func TestInMeta(t *testing.T) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	for _, size := range []int{10, 5000, 1 << 20} {
		text := strings.Repeat("io.modelcontextprotocol/protocolVersio", size/38+1)
		for params, want := range map[string]bool{
			`{"name":"echo","arguments":{"text":"` + text + `"},` + meta + `}`:                                                   true,
			`{` + meta + `,"name":"echo","arguments":{"text":"` + text + `"}}`:                                                   true,
			`{"name":"echo","arguments":{"text":"` + text + `"}}`:                                                                false,
			`{"name":"echo","arguments":{` + meta + `,"t":"` + text + `"}}`:                                                      false,
			`{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"},"t":"` + text + `"}`:                false,
			`{"name":"echo","arguments":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","t":"` + text + `\"Version\""}}`: false,
		} {
			if got := InMeta(&wire.Message{Params: []byte(params)}); got != want {
				t.Errorf("%d bytes: InMeta(%.90s…) = %v, want %v", len(params), params, got, want)
			}
		}
	}
}
