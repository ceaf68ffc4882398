package rpc

import (
	"encoding/json"
	"testing"
)

func TestStampMeta(t *testing.T) {
	self := json.RawMessage(`{"name":"mcp-gateway","version":"t"}`)
	for _, tc := range []struct {
		name   string
		params string
		client ClientInfo
		want   string
		logs   bool
	}{
		{"no params: the gateway's own request", ``, ClientInfo{},
			`{"_meta":{"io.modelcontextprotocol/protocolVersion":"V","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcp-gateway","version":"t"}}}`, false},
		{"null params", `null`, ClientInfo{},
			`{"_meta":{"io.modelcontextprotocol/protocolVersion":"V","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcp-gateway","version":"t"}}}`, false},
		{"client's fields win, other bytes kept", `{"b":1e400,"_meta":{"k":[1,2],"io.modelcontextprotocol/clientCapabilities":{"x":1}},"a":"\u00e9"}`,
			ClientInfo{Capabilities: json.RawMessage(`{"roots":{}}`), Info: json.RawMessage(`{"name":"c"}`), LogLevel: "error"},
			`{"b":1e400,"_meta":{"k":[1,2],"io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/protocolVersion":"V",` +
				`"io.modelcontextprotocol/clientInfo":{"name":"c"},"io.modelcontextprotocol/logLevel":"error"},"a":"\u00e9"}`, true},
		{"unset fields keep the request's own", `{"_meta":{"io.modelcontextprotocol/logLevel":"info","io.modelcontextprotocol/clientInfo":{"name":"m"},"io.modelcontextprotocol/clientCapabilities":{"s":{}}}}`,
			ClientInfo{Modern: true},
			`{"_meta":{"io.modelcontextprotocol/logLevel":"info","io.modelcontextprotocol/clientInfo":{"name":"m"},"io.modelcontextprotocol/clientCapabilities":{"s":{}},"io.modelcontextprotocol/protocolVersion":"V"}}`, true},
	} {
		got, logs, err := stampMeta(json.RawMessage(tc.params), "V", tc.client, self)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if string(got) != tc.want || logs != tc.logs {
			t.Errorf("%s:\n got %s (logs %v)\nwant %s (logs %v)", tc.name, got, logs, tc.want, tc.logs)
		}
	}
	if _, _, err := stampMeta(json.RawMessage(`[1]`), "V", ClientInfo{}, self); err == nil {
		t.Error("params that are not an object were stamped")
	}
}
