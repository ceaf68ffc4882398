package supervisor

import (
	"context"
	"encoding/json"
)

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
