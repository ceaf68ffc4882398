package aggregator

import (
	"net/http"

	"github.com/mcp-gateway/mcp-gateway/aggregator/auth"
	"github.com/mcp-gateway/mcp-gateway/aggregator/record"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
)

// This file begins a request's record (package record: its call line,
// call metrics and server span, SPEC §11), in one place per front
// (serveSession for a legacy session, serveModern for a modern request),
// naming its client as the call line does.

// begin starts the record of request m, which came in the HTTP request
// hr, of session s (a legacy client's) or, with s nil, of a modern
// client; nil when there is nothing to tell (not a call, and tracing
// off).
func (h *handler) begin(m *wire.Message, session string, hr *http.Request) *record.Record {
	r := record.Begin(&h.g.tel, m.Method, m.ID, m.Params, session, hr.Header)
	if session == "" && r != nil && r.Logged() {
		r.SetClient(h.tokenClient(hr))
	}
	return r
}

// tokenClient is a modern caller's client: its token's digest. Callers
// share the one token, so the last digest is kept (a SHA-256 per call
// saved).
func (h *handler) tokenClient(r *http.Request) string {
	tok, _ := auth.Bearer(r.Header.Get("Authorization"))
	if last := h.lastClient.Load(); last != nil && last[0] == tok {
		return last[1]
	}
	c := "t:" + auth.TokenDigest(tok)[:8]
	h.lastClient.Store(&[2]string{tok, c})
	return c
}
