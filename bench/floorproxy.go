package bench

import (
	"bytes"
	"net/http"
	"strconv"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// FloorProxy is the floor proxy's handler (bench/floor): POSTs forwarded
// to one upstream as they come, with the gateway's own ids, and answered
// as one application/json body; any Mcp-Session-Id is accepted, and
// nothing is validated, logged or counted. It is served by bench/floor,
// and in this process by the handler-CPU figure (handlercpu.go), which
// compares the gateway's CPU per call with it.
type FloorProxy struct{ up *StdioClient }

// NewFloorProxy is the floor proxy in front of up, which Initialize has
// initialized.
func NewFloorProxy(up *StdioClient) *FloorProxy { return &FloorProxy{up: up} }

// ServeHTTP forwards a POSTed request and writes its answer; a
// notification is answered 202, another method 405.
func (p *FloorProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var body bytes.Buffer
	if r.ContentLength > 0 {
		body.Grow(int(r.ContentLength))
	}
	if _, err := body.ReadFrom(r.Body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var id, method, params []byte
	_ = jsonrpc.Members(body.Bytes(), func(k, v []byte) bool {
		switch string(k) {
		case "id":
			id = v
		case "method":
			method = v
		case "params":
			params = v
		}
		return true
	})
	if len(id) == 0 {
		w.WriteHeader(http.StatusAccepted) // a notification
		return
	}
	name, ok := jsonrpc.Text(method)
	if !ok {
		http.Error(w, "bad method", http.StatusBadRequest)
		return
	}
	var result []byte
	var err error
	if name == "initialize" {
		result = []byte(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"floor","version":"1"}}`)
		w.Header().Set("Mcp-Session-Id", "floor")
	} else {
		if len(params) == 0 {
			params = []byte("{}")
		}
		result, err = p.up.Call(r.Context(), name, params)
	}
	out := make([]byte, 0, len(result)+len(id)+64)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	if err != nil {
		out = append(out, `,"error":{"code":-32603,"message":`...)
		out = strconv.AppendQuote(out, err.Error())
		out = append(out, `}}`...)
	} else {
		out = append(out, `,"result":`...)
		out = append(out, result...)
		out = append(out, '}')
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	_, _ = w.Write(out)
}
