package modern

import (
	"encoding/json"
	"testing"
)

// A listen stream's queue is bounded in bytes, not only in messages: 20
// streams naming 8 tasks with 8 MiB results each took 2.3 GB (found by an
// adversarial review). One message larger than the bound still goes
// through an empty queue.
func TestListenQueueBoundedInBytes(t *testing.T) {
	l := &listener{queue: make(chan [][]byte, listenQueue)}
	big := make([]byte, 10<<20)
	if !l.enqueue(big) {
		t.Fatal("a 10 MiB message was refused by an empty queue")
	}
	if l.enqueue(big) {
		t.Fatal("a second 10 MiB message was queued past the 16 MiB bound")
	}
	if !l.enqueue([]byte("small")) {
		t.Fatal("a small message was refused within the bound")
	}
	l.dequeued(<-l.queue)
	if !l.enqueue(big) {
		t.Fatal("a 10 MiB message was refused after the queue drained")
	}
	if got := l.queued.Load(); got != int64(len(big))+5 {
		t.Errorf("queued %d bytes, want %d", got, len(big)+5)
	}
}

// Streams that name one task share its DetailedTask's bytes: the queued
// parts of two listeners point at the same rendering.
func TestListenStreamsShareATaskRendering(t *testing.T) {
	ls := &listeners{}
	a := &listener{id: json.RawMessage("1"), queue: make(chan [][]byte, 1)}
	b := &listener{id: json.RawMessage(`"x"`), queue: make(chan [][]byte, 1)}
	params := json.RawMessage(`{"taskId":"t","status":"completed","result":{"content":[]}}`)
	ls.queueTask(a, params)
	ls.queueTask(b, params)
	pa, pb := <-a.queue, <-b.queue
	if &pa[1][0] != &pb[1][0] {
		t.Error("each stream holds its own copy of the task")
	}
	var msg struct {
		Params map[string]json.RawMessage `json:"params"`
	}
	joined := append(append(append([]byte{}, pb[0]...), pb[1]...), pb[2]...)
	if err := json.Unmarshal(joined, &msg); err != nil || string(msg.Params["taskId"]) != `"t"` || msg.Params["_meta"] == nil {
		t.Errorf("notifications/tasks %s: %v", joined, err)
	}
}
