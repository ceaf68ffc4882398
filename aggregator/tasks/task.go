package tasks

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
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

// Task statuses (MCP 2025-11-25 TaskStatus).
const (
	Working       = "working"
	InputRequired = "input_required"
	Completed     = "completed"
	Failed        = "failed"
	Cancelled     = "cancelled"
)

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
