package fakehttp

import (
	"net/http"
)

// serveOld is the HTTP+SSE transport of MCP 2024-11-05 only: GET /sse
// opens a session's stream, whose first event is endpoint; the client
// POSTs every message there, and every answer comes on the stream.
func (s *Server) serveOld(w http.ResponseWriter, r *http.Request, m message) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/sse":
		sess := s.newSession()
		st := openStream(w)
		st.named = true
		s.mu.Lock()
		sess.stream = st // before the endpoint goes out: the client POSTs as soon as it has it
		s.mu.Unlock()
		st.raw("event: endpoint\ndata: /messages?sessionId=" + sess.id + "\n\n")
		st.hold(r)
		s.mu.Lock()
		delete(s.sessions, sess.id)
		s.mu.Unlock()
	case r.Method == http.MethodPost && r.URL.Path == "/messages":
		s.mu.Lock()
		var st *stream
		if sess := s.sessions[r.URL.Query().Get("sessionId")]; sess != nil {
			st = sess.stream // nil once DropStreams ended it
		}
		s.mu.Unlock()
		if st == nil {
			http.Error(w, "no such session", http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		if !m.isRequest() {
			s.answered(m)
			return
		}
		// Answered on the stream, after this POST's 202, as the stream's
		// own request ends it.
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			st.send(s.handle(r.WithContext(st.context()), m, st.send, false))
		}()
	default:
		// As Express answers a path it does not serve.
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("<!DOCTYPE html><pre>Cannot " + r.Method + " " + r.URL.Path + "</pre>"))
	}
}
