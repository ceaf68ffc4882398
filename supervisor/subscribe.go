package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor/rpc"
)

// This file holds the gateway's own resource subscriptions on a server
// (SPEC §4.8), in the server's own way whatever the client's era: a
// legacy server gets resources/subscribe and resources/unsubscribe; a
// modern one a subscriptions/listen of its own per URI
// (notifications.resourceSubscriptions [uri]; MCP 2026-07-28
// basic/patterns/subscriptions), ended by notifications/cancelled. A
// listen's filter cannot change once the server acknowledged it, so a
// listen per URI lets one URI come and go without touching the others.
//
// The aggregator decides when (one upstream subscription per URI,
// however many clients); the supervisor keeps the set, so that a new run
// of the server is subscribed again as it starts (restore), and passes
// what the server sends to Options.OnResourceUpdated.
//
// Beside them, the one other request the gateway keeps asking of each new
// run: the log level a client asked of a legacy server (setLogLevel,
// applyLevel), which restore applies too.

// subscribe is Upstream.Subscribe.
func (s *surface) subscribe(ctx context.Context, uri string) error {
	r, err := s.runs.acquire(ctx)
	if err != nil {
		return err
	}
	defer r.active.Done()
	s.subMu.Lock()
	defer s.subMu.Unlock()
	if err := s.subscribeOn(ctx, r, uri); err != nil {
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) {
			return rpcErr
		}
		return fmt.Errorf("server %q: subscribe to %s: %w", s.name, uri, err)
	}
	if s.subs == nil {
		s.subs = map[string]struct{}{}
	}
	s.subs[uri] = struct{}{}
	return nil
}

// unsubscribe is Upstream.Unsubscribe.
func (s *surface) unsubscribe(ctx context.Context, uri string) {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	delete(s.subs, uri)
	r := s.runs.current()
	if r == nil {
		return
	}
	id, ok := r.subs[uri]
	if !ok {
		return
	}
	delete(r.subs, uri)
	if r.era == EraModern {
		if sub := r.conn.ListenByID(id); sub != nil {
			r.conn.CancelListen(sub)
		}
		return
	}
	ctx, cancel := context.WithTimeout(ctx, subscribeWait)
	defer cancel()
	if _, err := r.conn.Call(ctx, "resources/unsubscribe", uriParams(uri), nil); err != nil {
		s.opts.Logger.Warn("resources/unsubscribe failed", "server", s.name, "uri", uri, "error", err)
	}
}

// subscribeOn subscribes run r to uri, unless it is subscribed already.
// Call with s.subMu held.
func (s *surface) subscribeOn(ctx context.Context, r *run, uri string) error {
	if id, ok := r.subs[uri]; ok && (r.era != EraModern || r.conn.ListenByID(id) != nil) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, subscribeWait)
	defer cancel()
	var id int64
	if r.era == EraModern {
		sub, err := r.conn.Listen(`{"notifications":{"resourceSubscriptions":[`+string(jsonrpc.Quote(uri))+`]}}`, uri)
		if err != nil {
			return err
		}
		if err := awaitAck(ctx, r.conn, sub); err != nil {
			r.conn.CancelListen(sub)
			return err
		}
		id = sub.ID()
	} else if _, err := r.conn.Call(ctx, "resources/subscribe", uriParams(uri), nil); err != nil {
		return err
	}
	if r.subs == nil {
		r.subs = map[string]int64{}
	}
	r.subs[uri] = id
	return nil
}

// awaitAck waits for a modern server to acknowledge a resource
// subscription with its URI among the agreed ones (MCP 2026-07-28: the
// acknowledgment's filter is the subset the server agreed to honor).
func awaitAck(ctx context.Context, c *rpc.Conn, sub *rpc.Subscription) error {
	select {
	case <-sub.Acked():
	case <-sub.Ended():
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the server refused the subscription to " + sub.URI()}
	case <-c.Dead():
		return c.Failure()
	case <-ctx.Done():
		return fmt.Errorf("no acknowledgment of subscriptions/listen: %w", ctx.Err())
	}
	var agreed struct {
		URIs []string `json:"resourceSubscriptions"`
	}
	_ = json.Unmarshal(sub.Agreed(), &agreed)
	if !slices.Contains(agreed.URIs, sub.URI()) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the server did not agree to a subscription to " + sub.URI()}
	}
	return nil
}

// restore subscribes a new run, before it serves, to every URI the
// gateway is subscribed to, and sets its log level (below). A
// subscription that fails is logged and dropped: that URI's subscribers
// get no updates from this run. Only the run's death fails the start.
func (s *surface) restore(ctx context.Context, r *run) error {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	for uri := range s.subs {
		if err := s.subscribeOn(ctx, r, uri); err != nil {
			if r.conn.Failure() != nil {
				return &stepError{"resources/subscribe", err}
			}
			s.opts.Logger.Warn("subscribe again after a restart failed", "server", s.name, "uri", uri, "error", err)
		}
	}
	s.applyLevel(ctx, r)
	return nil
}

// uriParams is the params of resources/(un)subscribe.
func uriParams(uri string) json.RawMessage {
	return json.RawMessage(`{"uri":` + string(jsonrpc.Quote(uri)) + `}`)
}

// setLogLevel is Upstream.SetLogLevel.
func (s *surface) setLogLevel(ctx context.Context, level string) {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	if s.level == level {
		return
	}
	s.level = level
	if r := s.runs.current(); r != nil {
		s.applyLevel(ctx, r)
	}
}

// applyLevel sends run r the level, if there is one and r takes it. Call
// with s.subMu held.
func (s *surface) applyLevel(ctx context.Context, r *run) {
	if s.level == "" || r.era != EraLegacy || !r.caps.Logging {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, subscribeWait)
	defer cancel()
	params, _ := json.Marshal(map[string]string{"level": s.level})
	if _, err := r.conn.Call(ctx, "logging/setLevel", params, nil); err != nil {
		s.opts.Logger.Warn("logging/setLevel failed", "server", s.name, "level", s.level, "error", err)
	}
}
