package bench

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// serveTimed alternates the two requests so that each has each one before
// it equally often (legacy, modern, modern, legacy, …), hands the handler
// the request as net/http parsed it, with its body, and refuses a reply
// that is not 200 with the echoed text.
func TestServeTimed(t *testing.T) {
	var order []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		order = append(order, r.Header.Get("X-Era")+":"+string(b))
		if r.Header.Get("X-Era") == "bad" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		_, _ = w.Write([]byte(`{"text":"hello"}`))
	})
	wire := func(era string) []byte {
		return []byte("POST /mcp HTTP/1.1\r\nHost: x\r\nX-Era: " + era + "\r\nContent-Length: 2\r\n\r\n{}")
	}
	cpu, err := serveTimed(h, [2][]byte{wire("a"), wire("b")}, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(order, " "), "a:{} b:{} b:{} a:{} a:{} b:{} b:{} a:{}"; got != want {
		t.Errorf("order %q, want %q", got, want)
	}
	if len(cpu[0]) != 3 || len(cpu[1]) != 3 {
		t.Errorf("timed calls %d and %d, want 3 each (the warm-up untimed)", len(cpu[0]), len(cpu[1]))
	}
	if _, err := serveTimed(h, [2][]byte{wire("a"), wire("bad")}, 0, 1); err == nil || !strings.Contains(err.Error(), "HTTP 400") {
		t.Errorf("a 400 reply: err %v, want one naming HTTP 400", err)
	}
}
