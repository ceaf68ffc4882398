package tasks

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file is what a modern caller's task adds (the 2026-07-28 tasks
// extension, io.modelcontextprotocol/tasks): its inline phase, its
// DetailedTask, and the server-to-client requests it holds for
// tasks/update.

// Extension is the tasks extension's identifier (MCP 2026-07-28,
// io.modelcontextprotocol/tasks): a modern caller declares it in its
// clientCapabilities.extensions, a server in its capabilities.
const Extension = "io.modelcontextprotocol/tasks"

// Announce makes an inline task a task its caller is told of, and reports
// whether it did: not when the call has ended meanwhile (its outcome is
// answered inline). From here on its result counts against the
// kept-results room and its messages no longer reach the call's response.
func (t *Task) Announce() bool {
	t.Mu.Lock()
	defer t.Mu.Unlock()
	if t.Status == Completed || t.Status == Failed {
		return false
	}
	t.Inline, t.Out = false, nil
	return true
}

// IsInline reports whether t is a modern task its caller has not been
// told of yet (Announce); call with t.Mu held.
func (t *Task) IsInline() bool { return t.Kind == KindModern && t.Inline }

// RenderModern is the extension's Task (CreateTaskResult when resultType
// is "task"), with the status's payload when detailed.
func (t *Task) RenderModern(resultType string, detailed bool) json.RawMessage {
	t.Mu.Lock()
	defer t.Mu.Unlock()
	status := t.Status
	if status == Failed && t.RPCErr == nil {
		status = Completed // isError true is a completed call in the extension
	}
	v := struct {
		ResultType    string `json:"resultType,omitempty"`
		TaskID        string `json:"taskId"`
		Status        string `json:"status"`
		StatusMessage string `json:"statusMessage,omitempty"`
		CreatedAt     string `json:"createdAt"`
		LastUpdatedAt string `json:"lastUpdatedAt"`
		TTL           int64  `json:"ttlMs"`
		PollInterval  int    `json:"pollIntervalMs"`
	}{resultType, t.ID, status, t.Message, stamp(t.Created), stamp(t.Updated), t.TTL.Milliseconds(), PollInterval}
	b, _ := json.Marshal(v)
	if !detailed {
		return b
	}
	switch {
	case status == Completed && t.Result != nil:
		b, _ = jsonrpc.Replace(b, "result", t.Result)
	case status == Failed:
		b, _ = jsonrpc.Replace(b, "error", errorObject(t.RPCErr))
	case status == InputRequired:
		b, _ = jsonrpc.Replace(b, "inputRequests", t.InputRequests())
	}
	return b
}

// errorObject renders a JSON-RPC error object.
func errorObject(e *jsonrpc.Error) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"code": e.Code, "message": e.Message})
	if len(e.Data) > 0 {
		b, _ = jsonrpc.Replace(b, "data", e.Data)
	}
	return b
}

// InputRequests renders the pending asks; call with t.Mu held.
func (t *Task) InputRequests() json.RawMessage {
	b := []byte("{")
	for i, a := range t.Pending {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(b, jsonrpc.Quote(a.Key)...), `:{"method":`...)
		b = append(append(b, jsonrpc.Quote(a.Method)...), `,"params":`...)
		b = append(append(b, orEmpty(a.Params)...), '}')
	}
	return append(b, '}')
}

// AskModern holds a server-to-client request of a modern caller's task
// until tasks/update answers it: the task is input_required meanwhile.
// capability is the client capability the request needs (the caller has
// checked it): its inputRequests key is "<capability>-<n>".
func (t *Task) AskModern(ctx context.Context, a *Ask, capability string) (json.RawMessage, error) {
	t.Mu.Lock()
	t.Keys++
	a.Key = capability + "-" + strconv.Itoa(t.Keys)
	t.Pending = append(t.Pending, a)
	if t.Status == Working {
		t.Status, t.Updated = InputRequired, time.Now()
	}
	t.Mu.Unlock()
	select {
	case t.Asked <- struct{}{}:
	default:
	}
	if t.OnAsk != nil {
		t.OnAsk(t)
	}
	select {
	case r := <-a.Reply:
		return r.Res, r.Err
	case <-ctx.Done():
		t.Answered(a)
		return nil, ctx.Err()
	}
}

// Answered takes a off the pending asks; with none left the task works.
func (t *Task) Answered(a *Ask) bool {
	t.Mu.Lock()
	defer t.Mu.Unlock()
	for i, p := range t.Pending {
		if p == a {
			t.Pending = append(t.Pending[:i], t.Pending[i+1:]...)
			if len(t.Pending) == 0 && t.Status == InputRequired {
				t.Status, t.Updated = Working, time.Now()
			}
			return true
		}
	}
	return false
}

// Update is tasks/update: each inputResponses member whose key is
// pending answers its ask; other keys are ignored (the extension says so).
func (t *Task) Update(responses json.RawMessage) {
	t.Mu.Lock()
	pending := append([]*Ask(nil), t.Pending...)
	t.Mu.Unlock()
	for _, a := range pending {
		v, ok := jsonrpc.Member(responses, a.Key)
		if ok && t.Answered(a) {
			a.Reply <- Reply{Res: v}
		}
	}
}

// EndedModern is an ended gateway-made task's DetailedTask, rendered once:
// it changes no more, so every stream that names the task shares these
// bytes (queueTask) instead of rendering a copy of the result each.
func (t *Task) EndedModern() json.RawMessage {
	t.Mu.Lock()
	r := t.Ended
	t.Mu.Unlock()
	if r != nil {
		return r
	}
	r = t.RenderModern("", true)
	t.Mu.Lock()
	defer t.Mu.Unlock()
	if t.Ended == nil && t.Result != nil {
		t.Ended = r // not after remove, which frees the result
	}
	return r
}

func orEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	return b
}
