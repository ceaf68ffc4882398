package aggregator

import (
	"net/http"
	"sync/atomic"

	"github.com/mcp-gateway/mcp-gateway/aggregator/auth"
	"github.com/mcp-gateway/mcp-gateway/aggregator/record"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
)

// This file begins a request's record (package record: its call line,
// call metrics and server span, SPEC §11), for both fronts
// (legacy.Options.Begin, called in serveSession for a legacy session;
// modern.Options.Begin, in ServePOST for a modern request), naming its
// client as the call line does.

// recorder begins the records of one Gateway's requests, over its
// telemetry (HTTPOptions.Telemetry).
type recorder struct {
	tel *record.Telemetry
	// lastClient is the last modern caller's token and its call-line
	// client (tokenClient).
	lastClient atomic.Pointer[[2]string]
}

// begin starts the record of request m, which came in the HTTP request
// hr, of session s (a legacy client's) or, with s nil, of a modern
// client; nil when there is nothing to tell (not a call, and tracing
// off).
func (rc *recorder) begin(m *wire.Message, session string, hr *http.Request) *record.Record {
	r := record.Begin(rc.tel, m.Method, m.ID, m.Params, session, hr.Header)
	if session == "" && r != nil && r.Logged() {
		r.SetClient(rc.tokenClient(hr))
	}
	return r
}

// tokenClient is a modern caller's client: its token's digest. Callers
// share the one token, so the last digest is kept (a SHA-256 per call
// saved).
func (rc *recorder) tokenClient(r *http.Request) string {
	tok, _ := auth.Bearer(r.Header.Get("Authorization"))
	if last := rc.lastClient.Load(); last != nil && last[0] == tok {
		return last[1]
	}
	c := "t:" + auth.TokenDigest(tok)[:8]
	rc.lastClient.Store(&[2]string{tok, c})
	return c
}
