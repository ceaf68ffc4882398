package legacy

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcp-gateway/mcp-gateway/aggregator/record"
	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
)

// This file is the one course of a session's routed request
// (sessionCall), and the requests that take it: tools/call, prompts/get,
// resources/read and completion/complete (package relay).

// toolsCall is a legacy session's tools/call (package relay): routed and
// checked, it runs with the session's peer (peer.go) until it ends; a
// modern server's task made of it is followed to its end (follow).
func (f *Front) toolsCall(s *Session, m *wire.Message, out *wire.Stream, rec *record.Record) [][]byte {
	route := func() (relay.Call, error) { return f.router.Tool(m.Params) }
	return f.sessionCall(s, m, out, rec, route, func(ctx context.Context, c relay.Call) (json.RawMessage, error) {
		c.Mem = &s.uris
		return f.runner.Follow(ctx, c, false) // taskrun/follow.go
	})
}

// relay is a session's prompts/get, resources/read or
// completion/complete: routed and checked, it runs with the session's
// peer (peer.go) until it ends, as a tools/call does; rec is its record
// (package record).
func (f *Front) relay(s *Session, m *wire.Message, out *wire.Stream, rec *record.Record) [][]byte {
	route := func() (relay.Call, error) { return f.router.Request(m.Method, m.Params, &s.uris) }
	return f.sessionCall(s, m, out, rec, route, func(ctx context.Context, c relay.Call) (json.RawMessage, error) {
		o := relay.Do(ctx, c)
		return o.Res, o.Err
	})
}

// sessionCall is the one course of a session's routed request (package relay's
// spine): begun (a duplicate id refused), routed, checked, run
// with the session's peer until it ends, and answered; rec is its record
// (package record). A request the client cancelled gets no answer (MCP,
// Cancellation).
func (f *Front) sessionCall(s *Session, m *wire.Message, out *wire.Stream, rec *record.Record,
	route func() (relay.Call, error), run func(context.Context, relay.Call) (json.RawMessage, error)) [][]byte {
	ctx, end, refused := s.beginRequest(m, out)
	if refused != nil {
		rec.Failed(errDuplicateID)
		return refused
	}
	defer end()
	c, err := route()
	if own, ok := relay.OwnOf(err); ok { // search_tools (relay/toolsearch.go)
		rec.Routed(own.Name, "", own.Name)
		return rec.ResultParts(m.ID, own.Result())
	}
	if err == nil {
		rec.Routed(c.Name, c.Route.Upstream.Name(), c.Route.Name)
		err = c.Check()
	} else {
		relay.Unnamed(rec, c, err) // relay/toolsearch.go
	}
	if err != nil {
		return rec.ErrorParts(m.ID, err)
	}
	c.Peer = &peer{s: s, out: out}
	res, err := run(rec.Context(ctx), c)
	if err != nil {
		if errors.Is(context.Cause(ctx), errClientCancelled) {
			return nil
		}
		return rec.ErrorParts(m.ID, err)
	}
	return rec.ResultParts(m.ID, res)
}
