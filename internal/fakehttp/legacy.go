package fakehttp

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
)

// serveLegacy is Streamable HTTP of MCP 2025-11-25, with sessions.
func (s *Server) serveLegacy(w http.ResponseWriter, r *http.Request, m message) {
	switch r.Method {
	case http.MethodGet:
		s.legacyGET(w, r)
		return
	case http.MethodDelete:
		sid := r.Header.Get("Mcp-Session-Id")
		s.mu.Lock()
		sess := s.sessions[sid]
		delete(s.sessions, sid)
		if sess != nil {
			s.deleted = append(s.deleted, sid)
		}
		s.mu.Unlock()
		if sess == nil {
			writeJSON(w, http.StatusNotFound, errorResponse(nil, -32001, "Session not found", ""))
			return
		}
		if sess.stream != nil {
			sess.stream.end()
		}
		w.WriteHeader(http.StatusOK)
		return
	case http.MethodPost:
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if m.Method == "initialize" && m.isRequest() {
		sess := s.newSession()
		w.Header().Set("Mcp-Session-Id", sess.id)
		s.answerLegacy(w, r, m, sess)
		return
	}
	sess, ok := s.sessionOf(w, r)
	if !ok {
		return
	}
	if !m.isRequest() {
		s.answered(m)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	s.answerLegacy(w, r, m, sess)
}

// sessionOf finds the request's session, or answers 400 (none named) or
// 404 (unknown, expired or deleted).
func (s *Server) sessionOf(w http.ResponseWriter, r *http.Request) (*session, bool) {
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, -32000, "Bad Request: No valid session ID provided", ""))
		return nil, false
	}
	s.mu.Lock()
	sess := s.sessions[sid]
	s.mu.Unlock()
	if sess == nil {
		writeJSON(w, http.StatusNotFound, errorResponse(nil, -32001, "Session not found", ""))
		return nil, false
	}
	return sess, true
}

func (s *Server) newSession() *session {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	sess := &session{id: hex.EncodeToString(b)}
	s.mu.Lock()
	s.sessions[sess.id] = sess
	s.mu.Unlock()
	return sess
}

// legacyGET opens the session's GET stream (the one before it ends), or
// resumes an answer that closeearly parked.
func (s *Server) legacyGET(w http.ResponseWriter, r *http.Request) {
	if s.opts.NoGET {
		writeJSON(w, http.StatusMethodNotAllowed, errorResponse(nil, -32000, "Method not allowed.", ""))
		return
	}
	sess, ok := s.sessionOf(w, r)
	if !ok {
		return
	}
	last := r.Header.Get("Last-Event-ID")
	s.mu.Lock()
	parked, resuming := s.parked[last]
	delete(s.parked, last)
	s.mu.Unlock()
	st := openStream(w)
	if resuming {
		st.send(parked)
		return
	}
	s.mu.Lock()
	if sess.stream != nil {
		sess.stream.end()
	}
	sess.stream = st
	s.gets++
	s.mu.Unlock()
	st.raw("retry: 20\n\n") // reopen 20 ms after a drop
	st.hold(r)
}

// answerLegacy answers a request of a session: an SSE stream, or one JSON
// body (Options.JSON), whose messages on the way go to the GET stream.
func (s *Server) answerLegacy(w http.ResponseWriter, r *http.Request, m message, sess *session) {
	if s.fault(w, r, m) {
		return
	}
	if s.opts.JSON {
		res := s.handle(r, m, func(msg string) { s.toGET(sess, msg) }, false)
		writeJSON(w, http.StatusOK, res)
	} else {
		st := openStream(w)
		if res := s.handle(r, m, st.send, false); res != "" {
			st.send(res)
		}
	}
}

// toGET sends msg on the session's GET stream, if it has one.
func (s *Server) toGET(sess *session, msg string) {
	s.mu.Lock()
	st := sess.stream
	s.mu.Unlock()
	if st != nil {
		st.send(msg)
	}
}
