package tasks

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file is the gateway's table of tasks (MCP 2025-11-25
// basic/utilities/tasks; SPEC §4.7): every task a caller created through
// the gateway, made by the gateway (task.go, modern.go) or relayed from
// a server that made it (their calls are package aggregator's). A task id
// is the gateway's own: 128 random bits, base64url, so ids of two servers
// never collide and cannot be guessed. Each task is bound to its owner (a legacy session, or a modern
// caller's token digest); any other caller asking for it gets the same
// -32602 as for an unknown id. Nothing grows without bound: see Limits.

// Limits bounds the task table (SPEC §4.7). Past each, the request
// that would cross it is a JSON-RPC error saying which limit and its value.
type Limits struct {
	// PerCaller caps the tasks one caller (a legacy session, or a modern
	// token) holds at once, running or kept (default 100).
	PerCaller int
	// Total caps the tasks of every caller (default 1000).
	Total int
	// ResultBytes caps the bytes of results kept for finished gateway-made
	// tasks (default 64 MiB); a result that does not fit fails its task.
	ResultBytes int64
	// DefaultTTL is a task's lifetime when the client asks for none
	// (default 5 min); MinTTL and MaxTTL clamp the one it asks for
	// (default 1 s and 1 h). At its TTL a task is dropped, its call
	// cancelled upstream if still running.
	DefaultTTL, MinTTL, MaxTTL time.Duration
}

// Defaults of Limits.
const (
	DefaultPerCaller   = 100
	DefaultTotal       = 1000
	DefaultResultBytes = 64 << 20
	DefaultTTL         = 5 * time.Minute
	DefaultMinTTL      = time.Second
	DefaultMaxTTL      = time.Hour
)

func (l Limits) withDefaults() Limits {
	l.PerCaller = positiveOr(l.PerCaller, DefaultPerCaller)
	l.Total = positiveOr(l.Total, DefaultTotal)
	l.ResultBytes = positiveOr(l.ResultBytes, DefaultResultBytes)
	l.DefaultTTL = positiveOr(l.DefaultTTL, DefaultTTL)
	l.MinTTL = positiveOr(l.MinTTL, DefaultMinTTL)
	l.MaxTTL = positiveOr(l.MaxTTL, DefaultMaxTTL)
	return l
}

// positiveOr is v, or def when v is not positive (an option left unset).
func positiveOr[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// TTL clamps a requested task ttl (ms; nil or null: none asked for).
func (l Limits) TTL(raw json.RawMessage) time.Duration {
	var ms *float64
	if json.Unmarshal(raw, &ms) != nil || ms == nil {
		return l.DefaultTTL
	}
	// Clamped as a number of milliseconds first: 1e13 ms as a Duration
	// overflowed and came out as the minimum (found by an adversarial
	// review).
	switch {
	case *ms >= float64(l.MaxTTL.Milliseconds()):
		return l.MaxTTL
	case *ms <= float64(l.MinTTL.Milliseconds()):
		return l.MinTTL
	}
	return time.Duration(*ms * float64(time.Millisecond))
}

// upKey names a relayed task as its server knows it.
type upKey struct {
	server string
	run    uint64
	id     string
}

// Table is a handler's tasks.
type Table struct {
	Lim Limits

	mu      sync.Mutex
	byID    map[string]*Task
	byOwner map[string]int
	byUp    map[upKey]*Task // relayed tasks by the server's own id
	bytes   int64           // kept results

	WG sync.WaitGroup // every gateway-made task's call
}

func NewTable(l Limits) *Table {
	return &Table{Lim: l.withDefaults(), byID: map[string]*Task{}, byOwner: map[string]int{}, byUp: map[upKey]*Task{}}
}

// Add registers t, unless a count limit is reached; its expiry clock
// starts now.
func (tt *Table) Add(t *Task) error {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if len(tt.byID) >= tt.Lim.Total {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
			"create task: the gateway holds its limit of %d tasks; wait for some to finish or expire", tt.Lim.Total)}
	}
	if tt.byOwner[t.Owner] >= tt.Lim.PerCaller {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
			"create task: this caller holds its limit of %d tasks; wait for some to finish or expire", tt.Lim.PerCaller)}
	}
	tt.byID[t.ID] = t
	tt.byOwner[t.Owner]++
	if t.Kind == KindRelayed {
		tt.byUp[upKey{t.Up.Name(), t.Run, t.UpID}] = t
	}
	t.timer = time.AfterFunc(t.TTL, func() { tt.expire(t) })
	return nil
}

// expire drops t at the end of its TTL, but extends, by the default TTL,
// a modern gateway-made task whose call still runs, up to MaxTTL from
// its creation: the gateway chose that TTL (the caller has no say in the
// extension), which may change over a task's life (ttlMs), and 5 minutes
// cut longer calls short (found by an adversarial review).
func (tt *Table) expire(t *Task) {
	t.Mu.Lock()
	extend := t.Kind == KindModern && (t.Status == Working || t.Status == InputRequired) && t.TTL+tt.Lim.DefaultTTL <= tt.Lim.MaxTTL
	if extend {
		t.TTL += tt.Lim.DefaultTTL
	}
	next := time.Until(t.Created.Add(t.TTL))
	t.Mu.Unlock()
	if extend {
		t.timer.Reset(next)
		return
	}
	tt.Remove(t, ErrExpired)
}

// ErrExpired cancels a task still running at its TTL; ErrGone is
// the error for a task this caller cannot see (unknown, expired or
// another's: the same answer, so ids cannot be probed).
var (
	ErrExpired      = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task reached its ttl and was dropped"}
	ErrSessionEnded = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the session that created the task ended"}
)

// Lookup returns task id, whoever owns it, or nil: for the gateway's own
// use (a listen's tasks, agreed on for their owner), never a caller's.
func (tt *Table) Lookup(id string) *Task {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return tt.byID[id]
}

// Get returns owner's task id.
func (tt *Table) Get(id, owner string) (*Task, error) {
	tt.mu.Lock()
	t := tt.byID[id]
	tt.mu.Unlock()
	if t == nil || t.Owner != owner {
		return nil, ErrGone(id)
	}
	return t, nil
}

// Remove drops t (expiry, session end, lost server) and cancels its call
// with cause if it still runs.
func (tt *Table) Remove(t *Task, cause error) {
	tt.mu.Lock()
	if tt.byID[t.ID] != t {
		tt.mu.Unlock()
		return
	}
	delete(tt.byID, t.ID)
	if t.Kind == KindRelayed {
		delete(tt.byUp, upKey{t.Up.Name(), t.Run, t.UpID})
	}
	if tt.byOwner[t.Owner]--; tt.byOwner[t.Owner] <= 0 {
		delete(tt.byOwner, t.Owner)
	}
	if t.Made != nil {
		t.Mu.Lock()
		tt.bytes -= t.kept
		t.kept, t.Result = 0, nil
		if t.Modern != nil {
			t.Ended = nil
		}
		t.Mu.Unlock()
	}
	tt.mu.Unlock()
	t.timer.Stop()
	if t.Unbind != nil {
		t.Unbind()
	}
	if t.Made != nil {
		t.Cancel(cause)
	}
}

// Relayed returns the relayed task a server's process knows as id.
func (tt *Table) Relayed(server string, run uint64, id string) *Task {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return tt.byUp[upKey{server, run, id}]
}

// Keep counts n bytes of a finished task's result, if they fit.
func (tt *Table) Keep(t *Task, n int64) bool {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if tt.byID[t.ID] != t || tt.bytes+n > tt.Lim.ResultBytes {
		return false
	}
	tt.bytes += n
	t.kept = n
	return true
}

// Owned returns owner's tasks, oldest first.
func (tt *Table) Owned(owner string) []*Task {
	tt.mu.Lock()
	var out []*Task
	for _, t := range tt.byID {
		if t.Owner == owner {
			out = append(out, t)
		}
	}
	tt.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// CancelAll cancels every task's call with cause (shutdown) and waits for
// the calls to end.
func (tt *Table) CancelAll(cause error) {
	tt.mu.Lock()
	all := make([]*Task, 0, len(tt.byID))
	for _, t := range tt.byID {
		all = append(all, t)
	}
	tt.mu.Unlock()
	for _, t := range all {
		tt.Remove(t, cause)
	}
	tt.WG.Wait()
}

// Usage returns the task count and kept bytes, for tests and /health.
func (tt *Table) Usage() (tasks int, bytes int64) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return len(tt.byID), tt.bytes
}
