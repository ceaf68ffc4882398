package legacy

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
)

// This file serves a session's GET stream and what it carries.

// getKeepAlive is the interval of a GET stream's keep-alive comments
// (tests shorten it).
var getKeepAlive = wire.KeepAliveEvery

// ServeGET opens s's GET stream. A session has one at a time: a new GET
// replaces the old one, which ends (a client that reconnects is served at
// once, instead of waiting for the old stream to be noticed as dead).
func (s *Session) ServeGET(w http.ResponseWriter, r *http.Request) {
	g := &getStream{out: wire.NewStream(w, true), queue: make(chan []byte, getQueue), stopped: make(chan struct{})}
	defer g.out.Done()
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		wire.WriteError(w, ErrUnknownSession)
		return
	}
	old := s.get
	s.get = g
	s.mu.Unlock()
	if old != nil {
		old.stop()
	}
	defer func() {
		s.mu.Lock()
		if s.get == g {
			s.get = nil
		}
		s.mu.Unlock()
	}()
	if g.out.OpenSSE() != nil {
		return
	}
	// A stream that may stay quiet for long gets keep-alive comments, so
	// that proxies with an idle timeout do not cut it.
	g.out.KeepAlive(getKeepAlive)
	for {
		select {
		case msg := <-g.queue:
			if g.out.Event(msg) != nil {
				return
			}
		case <-g.stopped:
			return
		case <-r.Context().Done():
			return
		}
	}
}

// notifyAll sends msg on the GET stream of every session that has one
// (SPEC §4.5); sessions without one miss it, as the transport spec allows.
// A full stream's message is dropped and logged on log.
func (ss *sessions) notifyAll(msg []byte, log *slog.Logger) {
	for _, s := range ss.all() {
		s.mu.Lock()
		g := s.get
		s.mu.Unlock()
		if g != nil && !g.send(msg) {
			log.Warn("GET stream full; notification dropped", "session", s.id[:8])
		}
	}
}

// notifySession queues msg on a legacy session's GET stream, if open.
func (ss *sessions) notifySession(id string, msg []byte) {
	s := ss.get(id)
	if s == nil {
		return
	}
	s.mu.Lock()
	g := s.get
	s.mu.Unlock()
	if g != nil {
		g.send(msg)
	}
}

// Updated queues a resource update on the session's GET stream; a session
// without one misses it, as the transport allows.
func (s *Session) Updated(params json.RawMessage) {
	s.mu.Lock()
	g := s.get
	s.mu.Unlock()
	if g != nil {
		g.send(registry.TaggedUpdate(params, nil))
	}
}
