package aggregator

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

// This file seals the requestState the gateway hands a modern client in an
// InputRequiredResult (MCP 2026-07-28 mrtr, "Server Requirements"; SPEC
// §4.6): an HMAC-SHA256 with a key made for each daemon run, over a
// payload that binds the state to the caller's token, to the tool call it
// belongs to and to an expiry. A tampered, foreign, expired or replayed
// state is an error, never a hang.

// State kinds.
const (
	statePark     = "park"     // a legacy server's call, parked in this daemon (parking.go)
	stateUpstream = "upstream" // a modern server's own requestState, pinned to its process
)

// requestState is the sealed payload.
//
//	{"k": "park"|"upstream", "id": parked call id, "r": round,
//	 "tool": exported tool name, "tok": caller's token digest (hex, 16),
//	 "exp": expiry (Unix ms), "srv": server, "run": its process,
//	 "s": the server's own requestState}
type requestState struct {
	Kind   string `json:"k"`
	ID     string `json:"id,omitempty"`
	Round  int    `json:"r,omitempty"`
	Tool   string `json:"tool"`
	Token  string `json:"tok"`
	Expiry int64  `json:"exp"`
	Server string `json:"srv,omitempty"`
	Run    uint64 `json:"run,omitempty"`
	State  string `json:"s,omitempty"`
}

// sealer seals and opens requestStates with one daemon-lifetime key.
type sealer struct{ key [32]byte }

func newSealer() *sealer {
	s := &sealer{}
	_, _ = rand.Read(s.key[:])
	return s
}

// tokenDigest names the caller's bearer token without revealing it.
func tokenDigest(token string) string {
	sum := sha256.Sum256([]byte("mcp-gateway requestState\x00" + token))
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}

// seal returns "payload.mac", both base64url.
func (s *sealer) seal(st requestState) string {
	payload, _ := json.Marshal(st)
	p := base64.RawURLEncoding.EncodeToString(payload)
	return p + "." + base64.RawURLEncoding.EncodeToString(s.mac(p))
}

func (s *sealer) mac(p string) []byte {
	m := hmac.New(sha256.New, s.key[:])
	m.Write([]byte(p))
	return m.Sum(nil)
}

// Errors of open; each becomes -32602 for the client.
var (
	errStateInvalid = errors.New("requestState is not one this gateway issued, or was altered")
	errStateExpired = errors.New("requestState has expired; start the call over")
	errStateForeign = errors.New("requestState belongs to another caller or another tool call")
)

// open verifies a requestState for the caller's token digest and the
// exported tool name of the retry.
func (s *sealer) open(raw, token, tool string, now time.Time) (*requestState, error) {
	p, mac, ok := strings.Cut(raw, ".")
	got, err := base64.RawURLEncoding.DecodeString(mac)
	if !ok || err != nil || subtle.ConstantTimeCompare(got, s.mac(p)) != 1 {
		return nil, errStateInvalid
	}
	payload, err := base64.RawURLEncoding.DecodeString(p)
	var st requestState
	if err != nil || json.Unmarshal(payload, &st) != nil {
		return nil, errStateInvalid
	}
	if subtle.ConstantTimeCompare([]byte(st.Token), []byte(token)) != 1 || st.Tool != tool {
		return nil, errStateForeign
	}
	if now.UnixMilli() > st.Expiry {
		return nil, errStateExpired
	}
	return &st, nil
}
