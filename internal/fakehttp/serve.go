package fakehttp

// The fake's http.Handler: every request is seen (Seen, Options.Record),
// answered with Options.Status when that is set, and otherwise served by
// its era: modern.go, old.go (sse) or legacy.go.

import (
	"io"
	"net/http"
)

// ServeHTTP serves one request of the fake's era.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m := parse(body)
	seen := Seen{HTTP: r.Method, Method: m.Method, Header: r.Header.Clone()}
	s.mu.Lock()
	s.seen = append(s.seen, seen)
	s.mu.Unlock()
	if s.opts.Record != nil {
		s.opts.Record(seen)
	}
	if s.opts.Status != 0 {
		w.Header().Set("Content-Type", s.opts.BodyType)
		w.WriteHeader(s.opts.Status)
		io.WriteString(w, s.opts.Body)
		return
	}
	switch s.opts.Era {
	case "modern":
		s.serveModern(w, r, m)
	case "sse":
		s.serveOld(w, r, m)
	default:
		s.serveLegacy(w, r, m)
	}
}
