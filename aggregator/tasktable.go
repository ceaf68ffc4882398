package aggregator

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// This file is the gateway's table of tasks (MCP 2025-11-25
// basic/utilities/tasks; SPEC §4.7): every task a caller created through
// the gateway, made by the gateway (tasks.go) or relayed from a server
// that made it (taskrelay.go). A task id is the gateway's own: 128 random
// bits, base64url, so ids of two servers never collide and cannot be
// guessed. Each task is bound to its owner (a legacy session, or a modern
// caller's token digest); any other caller asking for it gets the same
// -32602 as for an unknown id. Nothing grows without bound: see TaskLimits.

// TaskLimits bounds the task table (SPEC §4.7). Past each, the request
// that would cross it is a JSON-RPC error saying which limit and its value.
type TaskLimits struct {
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

// Defaults of TaskLimits.
const (
	DefaultTasksPerCaller  = 100
	DefaultTasksTotal      = 1000
	DefaultTaskResultBytes = 64 << 20
	DefaultTaskTTL         = 5 * time.Minute
	DefaultTaskMinTTL      = time.Second
	DefaultTaskMaxTTL      = time.Hour
)

// taskPollInterval is the pollInterval (ms) of gateway-made tasks.
const taskPollInterval = 500

func (l TaskLimits) withDefaults() TaskLimits {
	l.PerCaller = positiveOr(l.PerCaller, DefaultTasksPerCaller)
	l.Total = positiveOr(l.Total, DefaultTasksTotal)
	l.ResultBytes = positiveOr(l.ResultBytes, DefaultTaskResultBytes)
	l.DefaultTTL = positiveOr(l.DefaultTTL, DefaultTaskTTL)
	l.MinTTL = positiveOr(l.MinTTL, DefaultTaskMinTTL)
	l.MaxTTL = positiveOr(l.MaxTTL, DefaultTaskMaxTTL)
	return l
}

// positiveOr is v, or def when v is not positive (an option left unset).
func positiveOr[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// ttl clamps a requested task ttl (ms; nil or null: none asked for).
func (l TaskLimits) ttl(raw json.RawMessage) time.Duration {
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

// taskKind says which of the gateway's kinds of task an entry is; it
// decides which of task's parts it has.
type taskKind int

const (
	// taskRelayed is a server's own task (either era), relayed: the
	// gateway knows only which process owns it (relayedTask) and asks it.
	taskRelayed taskKind = iota + 1
	// taskMade is a task the gateway made of a legacy session's call
	// (MCP 2025-11-25): it runs the call itself (madeTask), and its
	// server-to-client requests wait for a tasks/result to carry them.
	taskMade
	// taskModern is a task the gateway made of a modern caller's call
	// (the 2026-07-28 tasks extension): a madeTask whose requests wait in
	// inputRequests for tasks/update (modernTask). It starts inline (its
	// caller still waits on the call's own response) and is announced
	// when the call runs past taskAfter or asks for input.
	taskModern
)

// task is one entry of the table: what every kind has, and the part its
// kind needs (embedded, so that the kind's code reads t.status, t.upID;
// the other kind's part is nil). mu guards ttl and the madeTask's
// mutable fields.
type task struct {
	id      string
	owner   string // "session:<id>" or "token:<digest>"
	kind    taskKind
	created time.Time
	timer   *time.Timer // expiry
	unbind  func() bool // stops the session-end hook
	// trace is the server span of the call that made the task: its
	// calls and methods join that trace (SPEC §11.3); invalid when
	// tracing is off.
	trace trace.SpanContext

	*relayedTask // taskRelayed
	*madeTask    // taskMade, taskModern

	mu  sync.Mutex
	ttl time.Duration // grows for a modern task whose call still runs (expire)
}

// relayedTask is a server's own task: the server, the process (run) that
// made it, and the server's own task id.
type relayedTask struct {
	up   *supervisor.Upstream
	run  uint64
	upID string
}

// madeTask is a task the gateway made and whose call it runs. ctx is the
// call's, done closes when the call has ended; the rest is under task.mu.
type madeTask struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	done   chan struct{}
	asks   chan *taskAsk // taskMade: requests waiting for tasks/result

	status  string // working, input_required, completed, failed, cancelled
	message string // statusMessage
	updated time.Time
	result  json.RawMessage // the call's result, or nil
	rpcErr  *jsonrpc.Error  // the call's error, or nil
	kept    int64           // bytes of result counted in the table
	// out is the response that carries the call's progress and log
	// messages: taskMade, the tasks/result attached; taskModern, the
	// call's own response while it is inline.
	out *wire.Stream

	*modernTask // taskModern
}

// modernTask is what a modern caller's task adds (taskmodern.go): the
// caller's capabilities, its requests pending for tasks/update, and its
// inline phase. Under task.mu but for caps, asked and onAsk, which are
// set once.
type modernTask struct {
	caps  json.RawMessage // the caller's clientCapabilities
	asked chan struct{}   // buffered 1; signalled at each ask
	onAsk func(*task)     // told when an ask makes the task input_required

	// inline: the caller still waits on the call's own response and has
	// not been told of the task (modernTaskCall); level filters the log
	// messages out carries meanwhile.
	inline  bool
	level   string
	pending []*taskAsk      // asks waiting for tasks/update, in order
	keys    int             // input request keys issued
	ended   json.RawMessage // the ended task's DetailedTask, rendered once (endedModern)
}

// upKey names a relayed task as its server knows it.
type upKey struct {
	server string
	run    uint64
	id     string
}

// taskTable is a handler's tasks.
type taskTable struct {
	lim TaskLimits

	mu      sync.Mutex
	byID    map[string]*task
	byOwner map[string]int
	byUp    map[upKey]*task // relayed tasks by the server's own id
	bytes   int64           // kept results

	wg sync.WaitGroup // every gateway-made task's call
}

func newTaskTable(l TaskLimits) *taskTable {
	return &taskTable{lim: l.withDefaults(), byID: map[string]*task{}, byOwner: map[string]int{}, byUp: map[upKey]*task{}}
}

// newTaskID is 128 random bits, base64url (22 characters).
func newTaskID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// add registers t, unless a count limit is reached; its expiry clock
// starts now.
func (tt *taskTable) add(t *task) error {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if len(tt.byID) >= tt.lim.Total {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
			"create task: the gateway holds its limit of %d tasks; wait for some to finish or expire", tt.lim.Total)}
	}
	if tt.byOwner[t.owner] >= tt.lim.PerCaller {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
			"create task: this caller holds its limit of %d tasks; wait for some to finish or expire", tt.lim.PerCaller)}
	}
	tt.byID[t.id] = t
	tt.byOwner[t.owner]++
	if t.kind == taskRelayed {
		tt.byUp[upKey{t.up.Name(), t.run, t.upID}] = t
	}
	t.timer = time.AfterFunc(t.ttl, func() { tt.expire(t) })
	return nil
}

// expire drops t at the end of its TTL, but extends, by the default TTL,
// a modern gateway-made task whose call still runs, up to MaxTTL from
// its creation: the gateway chose that TTL (the caller has no say in the
// extension), which may change over a task's life (ttlMs), and 5 minutes
// cut longer calls short (found by an adversarial review).
func (tt *taskTable) expire(t *task) {
	t.mu.Lock()
	extend := t.kind == taskModern && (t.status == taskWorking || t.status == taskInput) && t.ttl+tt.lim.DefaultTTL <= tt.lim.MaxTTL
	if extend {
		t.ttl += tt.lim.DefaultTTL
	}
	next := time.Until(t.created.Add(t.ttl))
	t.mu.Unlock()
	if extend {
		t.timer.Reset(next)
		return
	}
	tt.remove(t, errTaskExpired)
}

// errTaskExpired cancels a task still running at its TTL; errTaskGone is
// the error for a task this caller cannot see (unknown, expired or
// another's: the same answer, so ids cannot be probed).
var (
	errTaskExpired = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task reached its ttl and was dropped"}
	errTaskSession = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the session that created the task ended"}
)

func errTaskGone(id string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
		"Failed to retrieve task: task %q not found (unknown, expired, or created by another session or caller)", id)}
}

// get returns owner's task id.
func (tt *taskTable) get(id, owner string) (*task, error) {
	tt.mu.Lock()
	t := tt.byID[id]
	tt.mu.Unlock()
	if t == nil || t.owner != owner {
		return nil, errTaskGone(id)
	}
	return t, nil
}

// remove drops t (expiry, session end, lost server) and cancels its call
// with cause if it still runs.
func (tt *taskTable) remove(t *task, cause error) {
	tt.mu.Lock()
	if tt.byID[t.id] != t {
		tt.mu.Unlock()
		return
	}
	delete(tt.byID, t.id)
	if t.kind == taskRelayed {
		delete(tt.byUp, upKey{t.up.Name(), t.run, t.upID})
	}
	if tt.byOwner[t.owner]--; tt.byOwner[t.owner] <= 0 {
		delete(tt.byOwner, t.owner)
	}
	if t.madeTask != nil {
		t.mu.Lock()
		tt.bytes -= t.kept
		t.kept, t.result = 0, nil
		if t.modernTask != nil {
			t.ended = nil
		}
		t.mu.Unlock()
	}
	tt.mu.Unlock()
	t.timer.Stop()
	if t.unbind != nil {
		t.unbind()
	}
	if t.madeTask != nil {
		t.cancel(cause)
	}
}

// relayed returns the relayed task a server's process knows as id.
func (tt *taskTable) relayed(server string, run uint64, id string) *task {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return tt.byUp[upKey{server, run, id}]
}

// keep counts n bytes of a finished task's result, if they fit.
func (tt *taskTable) keep(t *task, n int64) bool {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if tt.byID[t.id] != t || tt.bytes+n > tt.lim.ResultBytes {
		return false
	}
	tt.bytes += n
	t.kept = n
	return true
}

// owned returns owner's tasks, oldest first.
func (tt *taskTable) owned(owner string) []*task {
	tt.mu.Lock()
	var out []*task
	for _, t := range tt.byID {
		if t.owner == owner {
			out = append(out, t)
		}
	}
	tt.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if !out[i].created.Equal(out[j].created) {
			return out[i].created.Before(out[j].created)
		}
		return out[i].id < out[j].id
	})
	return out
}

// cancelAll cancels every task's call with cause (shutdown) and waits for
// the calls to end.
func (tt *taskTable) cancelAll(cause error) {
	tt.mu.Lock()
	all := make([]*task, 0, len(tt.byID))
	for _, t := range tt.byID {
		all = append(all, t)
	}
	tt.mu.Unlock()
	for _, t := range all {
		tt.remove(t, cause)
	}
	tt.wg.Wait()
}

// usage returns the task count and kept bytes, for tests and /health.
func (tt *taskTable) usage() (tasks int, bytes int64) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return len(tt.byID), tt.bytes
}
