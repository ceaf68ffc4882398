package tasks

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// This file is a gateway-made task's state (MCP 2025-11-25
// basic/utilities/tasks; SPEC §4.7) and its Task object:
//
//	{"taskId", "status", "statusMessage"?, "createdAt", "lastUpdatedAt"
//	 (RFC 3339, ms), "ttl" (ms), "pollInterval" (ms)}
//
// status: working, input_required (a server-to-client request waits for
// the client's tasks/result), completed, failed (a JSON-RPC error, or a
// result with isError true), cancelled.

// Kind says which of the gateway's kinds of task an entry is; it
// decides which of task's parts it has.
type Kind int

const (
	// KindRelayed is a server's own task (either era), relayed: the
	// gateway knows only which process owns it (Relayed) and asks it.
	KindRelayed Kind = iota + 1
	// KindMade is a task the gateway made of a legacy session's call
	// (MCP 2025-11-25): it runs the call itself (Made), and its
	// server-to-client requests wait for a tasks/result to carry them.
	KindMade
	// KindModern is a task the gateway made of a modern caller's call
	// (the 2026-07-28 tasks extension): a Made task whose requests wait in
	// inputRequests for tasks/update (Modern). It starts inline (its
	// caller still waits on the call's own response) and is announced
	// when the call runs past taskAfter or asks for input.
	KindModern
)

// Task is one entry of the table: what every kind has, and the part its
// kind needs (embedded, so that the kind's code reads t.Status, t.UpID;
// the other kind's part is nil). mu guards ttl and the Made part's
// mutable fields.
type Task struct {
	ID      string
	Owner   string // "session:<id>" or "token:<digest>"
	Kind    Kind
	Created time.Time
	timer   *time.Timer // expiry
	Unbind  func() bool // stops the session-end hook
	// trace is the server span of the call that made the task: its
	// calls and methods join that trace (SPEC §11.3); invalid when
	// tracing is off.
	Trace trace.SpanContext

	*Relayed // KindRelayed
	*Made    // KindMade, KindModern

	Mu  sync.Mutex
	TTL time.Duration // grows for a modern task whose call still runs (expire)
}

// Relayed is a server's own task: the server, the process (run) that
// made it, and the server's own task id.
type Relayed struct {
	Up   *supervisor.Upstream
	Run  uint64
	UpID string
}

// Made is a task the gateway made and whose call it runs. ctx is the
// call's, done closes when the call has ended; the rest is under task.Mu.
type Made struct {
	Ctx    context.Context
	Cancel context.CancelCauseFunc
	Done   chan struct{}
	Asks   chan *Ask // KindMade: requests waiting for tasks/result

	Status  string // working, input_required, completed, failed, cancelled
	Message string // statusMessage
	Updated time.Time
	Result  json.RawMessage // the call's result, or nil
	RPCErr  *jsonrpc.Error  // the call's error, or nil
	kept    int64           // bytes of result counted in the table
	// out is the response that carries the call's progress and log
	// messages: KindMade, the tasks/result attached; KindModern, the
	// call's own response while it is inline.
	Out *wire.Stream

	*Modern // KindModern
}

// Modern is what a modern caller's task adds (modern.go): the
// caller's capabilities, its requests pending for tasks/update, and its
// inline phase. Under task.mu but for caps, asked and onAsk, which are
// set once.
type Modern struct {
	Caps  json.RawMessage // the caller's clientCapabilities
	Asked chan struct{}   // buffered 1; signalled at each ask
	OnAsk func(*Task)     // told when an ask makes the task input_required

	// inline: the caller still waits on the call's own response and has
	// not been told of the task (the modern front's modernTasks.call); level filters the log
	// messages out carries meanwhile.
	Inline  bool
	Level   string
	Pending []*Ask          // asks waiting for tasks/update, in order
	Keys    int             // input request keys issued
	Ended   json.RawMessage // the ended task's DetailedTask, rendered once (endedModern)
}

// Task statuses (MCP 2025-11-25 TaskStatus).
const (
	Working       = "working"
	InputRequired = "input_required"
	Completed     = "completed"
	Failed        = "failed"
	Cancelled     = "cancelled"
)

// PollInterval is the pollInterval (ms) of gateway-made tasks.
const PollInterval = 500

// NewID is 128 random bits, base64url (22 characters).
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// ErrGone is the one error (-32602) for a task id that is unknown,
// expired, or another caller's: it does not say which.
func ErrGone(id string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
		"Failed to retrieve task: task %q not found (unknown, expired, or created by another session or caller)", id)}
}

// MetaRelatedTask is the _meta key tying a message to its task.
const MetaRelatedTask = "io.modelcontextprotocol/related-task"

// Ask is a server-to-client request of a gateway-made task, waiting
// for a tasks/result stream to carry it to the client.
type Ask struct {
	Key    string // modern: its inputRequests key
	Method string
	Params json.RawMessage
	Reply  chan Reply // buffered 1
}

type Reply struct {
	Res json.RawMessage
	Err error
}

// ErrCancelled is the cause a tasks/cancel cancels the call with; the
// server gets notifications/cancelled.
var ErrCancelled = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task was cancelled (tasks/cancel) before it finished"}

// NewLegacy is a working gateway-made task (KindMade) of owner's, a legacy
// session, with ttl.
func NewLegacy(owner string, ttl time.Duration) *Task {
	t := NewMade(owner, ttl, KindMade)
	t.Asks = make(chan *Ask)
	return t
}

// NewMade is a working task of kind, made by the gateway, with the
// Made part (whose ctx and cancel startTask sets).
func NewMade(owner string, ttl time.Duration, kind Kind) *Task {
	now := time.Now()
	return &Task{ID: NewID(), Owner: owner, Kind: kind, Created: now, TTL: ttl,
		Made: &Made{Status: Working, Updated: now, Done: make(chan struct{})}}
}

func IsErrorResult(res json.RawMessage) bool {
	v, _ := jsonrpc.Member(res, "isError")
	return string(v) == "true"
}

// Render is the Task object; call with t.Mu held.
func (t *Task) Render() json.RawMessage {
	v := struct {
		TaskID        string `json:"taskId"`
		Status        string `json:"status"`
		StatusMessage string `json:"statusMessage,omitempty"`
		CreatedAt     string `json:"createdAt"`
		LastUpdatedAt string `json:"lastUpdatedAt"`
		TTL           int64  `json:"ttl"`
		PollInterval  int    `json:"pollInterval"`
	}{t.ID, t.Status, t.Message, stamp(t.Created), stamp(t.Updated), t.TTL.Milliseconds(), PollInterval}
	b, _ := json.Marshal(v)
	return b
}

func stamp(ts time.Time) string { return ts.UTC().Format("2006-01-02T15:04:05.000Z") }

// Snapshot is render under t.mu.
func (t *Task) Snapshot() json.RawMessage {
	t.Mu.Lock()
	defer t.Mu.Unlock()
	return t.Render()
}

// CancelTask is tasks/cancel of a gateway-made task: a terminal task is
// -32602; otherwise it becomes cancelled at once and its call is
// cancelled upstream (the server gets notifications/cancelled).
func (t *Task) CancelTask() (json.RawMessage, error) {
	t.Mu.Lock()
	switch t.Status {
	case Completed, Failed, Cancelled:
		st := t.Status
		t.Mu.Unlock()
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("Cannot cancel task: already in terminal status '%s'", st)}
	}
	t.Status, t.Message, t.Updated = Cancelled, "The task was cancelled by request.", time.Now()
	res := t.Render()
	t.Mu.Unlock()
	t.Cancel(ErrCancelled)
	return res, nil
}

// Outcome is what tasks/result answers for a finished gateway-made task:
// exactly what the call would have answered, with the related-task _meta
// added to a result (MCP: tasks/result MUST include it).
func (t *Task) Outcome() (json.RawMessage, error) {
	t.Mu.Lock()
	defer t.Mu.Unlock()
	switch {
	case t.Status == Cancelled:
		return nil, ErrCancelled
	case t.RPCErr != nil:
		return nil, t.RPCErr
	case t.Result == nil:
		return nil, ErrGone(t.ID)
	}
	return WithRelatedTask(t.Result, t.ID), nil
}

// WithRelatedTask sets _meta["io.modelcontextprotocol/related-task"] of a
// result to {"taskId": id}, every other byte kept.
func WithRelatedTask(res json.RawMessage, id string) json.RawMessage {
	rel := []byte(`{"taskId":` + string(jsonrpc.Quote(id)) + `}`)
	meta, ok := jsonrpc.Member(res, "_meta")
	if !ok || len(meta) == 0 || meta[0] != '{' {
		meta = []byte("{}")
	}
	meta, err := jsonrpc.Replace(meta, MetaRelatedTask, rel)
	if err != nil {
		return res
	}
	out, err := jsonrpc.Replace(res, "_meta", meta)
	if err != nil {
		return res
	}
	return out
}

// SetStatus moves a running task between working and input_required.
func (t *Task) SetStatus(status string) {
	t.Mu.Lock()
	defer t.Mu.Unlock()
	if t.Status == Working || t.Status == InputRequired {
		t.Status, t.Updated = status, time.Now()
	}
}
