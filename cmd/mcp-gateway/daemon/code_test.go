package daemon

import "testing"

func TestCodeURL(t *testing.T) {
	for addr, want := range map[string]string{
		"[::]:50005":     "http://127.0.0.1:50005/mcp",
		"0.0.0.0:1":      "http://127.0.0.1:1/mcp",
		":7":             "http://127.0.0.1:7/mcp",
		"127.0.0.2:9":    "http://127.0.0.2:9/mcp",
		"[::1]:50005":    "http://[::1]:50005/mcp",
		"10.0.0.5:50005": "http://10.0.0.5:50005/mcp",
	} {
		if got := codeURL(addr); got != want {
			t.Errorf("codeURL(%q) = %q, want %q", addr, got, want)
		}
	}
}
