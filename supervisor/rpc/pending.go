package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/telemetry"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// noteQueue is how many notifications may wait for a slow client per call;
// past it they are dropped (and logged), so a client that stops reading
// never stalls the server's stdout for everyone else.
const noteQueue = 256

type note struct {
	method string
	params json.RawMessage
}

type pendingCall struct {
	reply  chan reply // buffered 1
	peer   Peer
	ctx    context.Context
	method string
	start  time.Time       // when it was sent (mcp_client_operation_duration_seconds)
	span   *telemetry.Span // its client span, in its tracedCall; nil when tracing is off (telemetry.go)
	// token is the client's own progressToken, raw; nil when none.
	token json.RawMessage
	// logs says the request's _meta asks a modern server for log messages
	// (io.modelcontextprotocol/logLevel), so they may be relayed to it.
	logs bool
	// notes carries notifications to peer in order; sent to only while the
	// call is in c.pending (under c.mu), closed by call once it is not.
	notes     chan note
	delivered chan struct{} // closed when the delivery goroutine is done
}

// deliver relays queued notifications to the client until notes closes.
func (pc *pendingCall) deliver() {
	defer close(pc.delivered)
	for n := range pc.notes {
		pc.peer.Notify(pc.ctx, n.method, n.params)
	}
}

// enqueue queues a notification without blocking; call with c.mu held.
// The queue and its delivery goroutine are made on the first notification,
// since most calls have none (bench: −11 KB and −46 µs of CPU per call).
func (c *Conn) enqueue(pc *pendingCall, n note) {
	if pc.notes == nil {
		pc.notes = make(chan note, noteQueue)
		pc.delivered = make(chan struct{})
		go pc.deliver()
	}
	select {
	case pc.notes <- n:
	default:
		c.log.Line(c.name, "[gateway] the client is not reading; "+n.method+" dropped")
	}
}

// endNotes ends the delivery of pc's notifications, once pc has left
// c.pending, and waits for it: the notifications the server sent before
// its response reach the client first.
func (c *Conn) endNotes(pc *pendingCall) {
	c.mu.Lock()
	notes := pc.notes
	c.mu.Unlock()
	if notes != nil {
		// No longer in c.pending, so nothing sends to notes any more.
		close(notes)
		<-pc.delivered // bounded: at most noteQueue notifications, each sent with ctx
	}
}

type reply struct {
	result json.RawMessage
	err    error
}

// take removes and returns the pending call with id, or nil: the one
// reply (or failure) a call gets is sent by whoever takes it.
func (c *Conn) take(id int64) *pendingCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	pc := c.pending[id]
	delete(c.pending, id)
	return pc
}

// forget drops a pending call; it reports whether it was still pending.
func (c *Conn) forget(id int64) bool { return drop(c, c.pending, id) }

// drop deletes id from m, one of c's maps by request id, under c.mu, and
// reports whether it was there.
func drop[V any](c *Conn, m map[int64]V, id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := m[id]
	delete(m, id)
	return ok
}

// soleCaller returns the most recent pending call with a client, if every
// pending call with a client comes from the same client (Peer.ClientID);
// else nil. With logsOnly, only calls that asked for log messages count.
// Call with c.mu held.
func (c *Conn) soleCaller(logsOnly bool) *pendingCall {
	var (
		best   int64
		pc     *pendingCall
		client string
	)
	for id, p := range c.pending {
		if p.peer == nil || (logsOnly && !p.logs) {
			continue
		}
		if pc != nil && p.peer.ClientID() != client {
			return nil
		}
		client = p.peer.ClientID()
		if pc == nil || id > best {
			best, pc = id, p
		}
	}
	return pc
}

// clientCalls counts the pending calls made for a client (with a peer;
// the gateway's own, such as initialize and tools/list, have none). c.mu
// is held.
func (c *Conn) clientCalls() int {
	n := 0
	for _, p := range c.pending {
		if p.peer != nil {
			n++
		}
	}
	return n
}

// swapProgressToken replaces params._meta.progressToken with ours and
// returns the client's original, raw. Params without one are unchanged.
func swapProgressToken(params, ours json.RawMessage) (json.RawMessage, json.RawMessage, error) {
	if !mayHoldToken(params) {
		return params, nil, nil
	}
	fields, err := jsonrpc.Fields(params)
	if err != nil {
		return nil, nil, err
	}
	// No _meta, a _meta that is not an object, or one without the token:
	// the params go as they are.
	meta, _ := jsonrpc.Get(fields, "_meta")
	mfields, _ := jsonrpc.Fields(meta) // nil on error: no token found below
	orig, ok := jsonrpc.Get(mfields, "progressToken")
	if !ok {
		return params, nil, nil
	}
	mfields = jsonrpc.Set(mfields, "progressToken", ours)
	fields = jsonrpc.Set(fields, "_meta", jsonrpc.Encode(mfields))
	return jsonrpc.Encode(fields), orig, nil
}

// mayHoldToken reports whether params may hold a progressToken, reading
// no more of them than their top-level keys and _meta: the arguments,
// 8 MiB of them perhaps, are skipped, not searched. A key with an escape,
// which could spell _meta ("_m\u0065ta"), or params that do not read as
// an object send them through the decoding path, which decides.
func mayHoldToken(params json.RawMessage) bool {
	may := false
	err := jsonrpc.Members(params, func(key, value []byte) bool {
		may = bytes.IndexByte(key, '\\') >= 0 || string(key) == "_meta" && containsToken(value)
		return !may
	})
	return err != nil || may
}

// containsToken reports whether a _meta may hold a progressToken: the
// plain key, or any escape, which could spell it ("progress\u0054oken"),
// sends it through the decoding path.
func containsToken(meta []byte) bool {
	return bytesContains(meta, `"progressToken"`) || bytesContains(meta, `\u`)
}

func bytesContains(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }
