// Package reqstate seals the requestState the gateway hands a modern
// client in an InputRequiredResult (MCP 2026-07-28 basic/patterns/mrtr,
// "Server Requirements"; SPEC §4.6): an HMAC-SHA256, with a key made for
// each daemon run, over a payload that binds the state to the caller's
// token, to the tool call it belongs to and to an expiry. A tampered,
// foreign or expired state is an error, never a hang; a replayed one (an
// earlier round) is the caller's to refuse, by Round.
package reqstate

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// State kinds.
const (
	KindPark     = "park"     // a legacy server's call, parked in this daemon
	KindUpstream = "upstream" // a modern server's own requestState, pinned to its process
)

// State is the sealed payload.
//
//	{"k": "park"|"upstream", "id": parked call id, "r": round,
//	 "tool": exported tool name, "tok": caller's token digest (hex, 16),
//	 "exp": expiry (Unix ms), "srv": server, "run": its process,
//	 "s": the server's own requestState,
//	 "tp": the W3C traceparent of the call that began it, when traced}
type State struct {
	Kind        string `json:"k"`
	ID          string `json:"id,omitempty"`
	Round       int    `json:"r,omitempty"`
	Tool        string `json:"tool"`
	Token       string `json:"tok"`
	Expiry      int64  `json:"exp"`
	Server      string `json:"srv,omitempty"`
	Run         uint64 `json:"run,omitempty"`
	ServerState string `json:"s,omitempty"`
	// Trace is the traceparent of the server span of the call that began
	// the rounds (SPEC §11.3): the retry's span joins that trace. "" when
	// tracing is off.
	Trace string `json:"tp,omitempty"`
}

// Sealer seals and opens States with one key, made by NewSealer for the
// daemon's life: a state does not survive a restart.
type Sealer struct{ key [32]byte }

// NewSealer makes a Sealer with a random key.
func NewSealer() *Sealer {
	s := &Sealer{}
	_, _ = rand.Read(s.key[:])
	return s
}

// Seal returns "payload.mac", both base64url.
func (s *Sealer) Seal(st State) string {
	payload, _ := json.Marshal(st)
	p := base64.RawURLEncoding.EncodeToString(payload)
	return p + "." + base64.RawURLEncoding.EncodeToString(s.mac(p))
}

func (s *Sealer) mac(p string) []byte {
	m := hmac.New(sha256.New, s.key[:])
	m.Write([]byte(p))
	return m.Sum(nil)
}

// Errors of Open; the gateway answers each with -32602.
var (
	ErrInvalid = errors.New("requestState is not one this gateway issued, or was altered")
	ErrExpired = errors.New("requestState has expired; start the call over")
	ErrForeign = errors.New("requestState belongs to another caller or another tool call")
)

// Open verifies raw, a requestState as a client sent it back, for the
// retrying caller's token digest and the exported tool name of the retry,
// at now. ErrInvalid: not sealed with this key, or altered; ErrForeign:
// another caller's or another tool's; ErrExpired: past its Expiry.
func (s *Sealer) Open(raw, token, tool string, now time.Time) (*State, error) {
	p, mac, ok := strings.Cut(raw, ".")
	got, err := base64.RawURLEncoding.DecodeString(mac)
	if !ok || err != nil || subtle.ConstantTimeCompare(got, s.mac(p)) != 1 {
		return nil, ErrInvalid
	}
	payload, err := base64.RawURLEncoding.DecodeString(p)
	var st State
	if err != nil || json.Unmarshal(payload, &st) != nil {
		return nil, ErrInvalid
	}
	if subtle.ConstantTimeCompare([]byte(st.Token), []byte(token)) != 1 || st.Tool != tool {
		return nil, ErrForeign
	}
	if now.UnixMilli() > st.Expiry {
		return nil, ErrExpired
	}
	return &st, nil
}
