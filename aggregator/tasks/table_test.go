package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// A ttl is clamped as a number: 1e13 ms or 1e300 ms is the maximum, not a
// Duration that overflowed to the minimum (found by an adversarial review).
func TestTaskTTLClampedWithoutOverflow(t *testing.T) {
	l := Limits{}.withDefaults()
	for raw, want := range map[string]time.Duration{
		"1e13": l.MaxTTL, "1e300": l.MaxTTL, "9.2e12": l.MaxTTL, "-5": l.MinTTL, "0": l.MinTTL, "1500": 1500 * time.Millisecond, "null": l.DefaultTTL,
	} {
		if got := l.TTL(json.RawMessage(raw)); got != want {
			t.Errorf("ttl %s: %v, want %v", raw, got, want)
		}
	}
}

// The table's count limits refuse a task past them, per caller and in
// all; a task is another caller's as if it were not there; a removed
// task's call is cancelled with the cause.
func TestTableLimitsAndOwners(t *testing.T) {
	tt := NewTable(Limits{PerCaller: 2, Total: 3})
	add := func(owner string) (*Task, error) {
		task := NewMade(owner, time.Hour, KindMade)
		ctx, cancel := contextWithCause()
		task.Ctx, task.Cancel = ctx, cancel
		return task, tt.Add(task)
	}
	a1, _ := add("session:a")
	if _, err := add("session:a"); err != nil {
		t.Fatal(err)
	}
	if _, err := add("session:a"); err == nil {
		t.Error("a third task of one caller with PerCaller 2")
	}
	if _, err := add("session:b"); err != nil {
		t.Fatal(err)
	}
	if _, err := add("session:c"); err == nil {
		t.Error("a fourth task with Total 3")
	}
	if n, _ := tt.Usage(); n != 3 {
		t.Errorf("Usage = %d tasks, want 3", n)
	}
	var rpc *jsonrpc.Error
	if _, err := tt.Get(a1.ID, "session:b"); !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("another caller's task: %v, want -32602", err)
	}
	if got, err := tt.Get(a1.ID, "session:a"); err != nil || got != a1 || tt.Lookup(a1.ID) != a1 {
		t.Errorf("its owner's task: %v, %v", got, err)
	}
	if owned := tt.Owned("session:a"); len(owned) != 2 || owned[0] != a1 {
		t.Errorf("Owned = %d tasks, the oldest first", len(owned))
	}
	tt.Remove(a1, ErrSessionEnded)
	if !errors.Is(causeOf(a1), ErrSessionEnded) || tt.Lookup(a1.ID) != nil {
		t.Error("a removed task's call is not cancelled with its cause")
	}
	tt.CancelAll(ErrExpired)
	if n, _ := tt.Usage(); n != 0 {
		t.Errorf("after CancelAll, %d tasks", n)
	}
}

// A Task object renders what MCP 2025-11-25 names, and a cancelled task
// stays cancelled.
func TestRenderAndCancel(t *testing.T) {
	task := NewLegacy("session:a", 90*time.Second)
	_, task.Cancel = contextWithCause()
	var v struct {
		TaskID, Status string
		TTL            int64 `json:"ttl"`
		PollInterval   int   `json:"pollInterval"`
	}
	if err := json.Unmarshal(task.Snapshot(), &v); err != nil || v.TaskID != task.ID || v.Status != Working || v.TTL != 90000 || v.PollInterval != PollInterval {
		t.Fatalf("Task = %s, %v", task.Snapshot(), err)
	}
	if _, err := task.CancelTask(); err != nil {
		t.Fatal(err)
	}
	if _, err := task.CancelTask(); err == nil {
		t.Error("a cancelled task cancelled again")
	}
	if _, err := task.Outcome(); err != ErrCancelled {
		t.Errorf("a cancelled task's outcome: %v", err)
	}
}

func contextWithCause() (context.Context, context.CancelCauseFunc) {
	return context.WithCancelCause(context.Background())
}

func causeOf(t *Task) error { return context.Cause(t.Ctx) }
