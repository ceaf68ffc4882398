package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
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
	// answered is closed once reply holds the call's answer: whoever
	// takes the call from its table answers it, once (answer). A closed
	// channel without elements is one allocation; a buffered chan reply
	// was two.
	answered chan struct{}
	reply    reply
	peer     Peer
	ctx      context.Context
	method   string
	start    time.Time       // when it was sent (mcp_client_operation_duration_seconds)
	span     *telemetry.Span // its client span, in its tracedCall; nil when tracing is off (telemetry.go)
	// token is the client's own progressToken, raw; nil when none.
	token json.RawMessage
	// logs says the request's _meta asks a modern server for log messages
	// (io.modelcontextprotocol/logLevel), so they may be relayed to it.
	logs bool
	// notes carries notifications to peer in order; sent to only while the
	// call is in its table (under callTable.mu), closed by endNotes once it
	// is not.
	notes     chan note
	delivered chan struct{} // closed when the delivery goroutine is done
}

// answer gives the call its reply; only its taker from the table calls
// it, once.
func (pc *pendingCall) answer(r reply) {
	pc.reply = r
	close(pc.answered)
}

// deliver relays queued notifications to the client until notes closes.
func (pc *pendingCall) deliver() {
	defer close(pc.delivered)
	for n := range pc.notes {
		pc.peer.Notify(pc.ctx, n.method, n.params)
	}
}

// stamp returns the params of request id as the server is to see them:
// with request _meta for a modern server (m; nil for a legacy one), and
// with the gateway's own progressToken (the client's is kept in pc) when
// the call has a client.
func (pc *pendingCall) stamp(m *modernConn, id int64, params json.RawMessage) (json.RawMessage, error) {
	if m != nil {
		var err error
		if params, pc.logs, err = m.stamp(params, pc.peer); err != nil {
			return nil, err
		}
	}
	if pc.peer != nil && len(params) > 0 && !tokenFree(pc.peer) && mayHoldToken(params) { // the id rendered only for a token
		var err error
		if params, pc.token, err = swapProgressToken(params, jsonrpc.IntID(id)); err != nil {
			return nil, err
		}
	}
	return params, nil
}

type reply struct {
	result json.RawMessage
	err    error
}

// callTable is a connection's pending calls by request id, and its death:
// once dead (fail), it takes no call and every call it held has failed.
// The one reply (or failure) a call gets is sent by whoever takes it
// from the table. A call's notifications are queued to its client only
// while it is in the table (under mu), so that its delivery ends, in
// order, when it leaves.
type callTable struct {
	name string
	log  *logfile.Log

	mu      sync.Mutex
	pending map[int64]*pendingCall
	err     error         // set once the connection is dead
	dead    chan struct{} // closed with err
}

func newCallTable(name string, log *logfile.Log) *callTable {
	return &callTable{name: name, log: log, pending: map[int64]*pendingCall{}, dead: make(chan struct{})}
}

// add makes pc pending as request id, unless the connection is dead: then
// it returns why.
func (t *callTable) add(id int64, pc *pendingCall) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return t.err
	}
	t.pending[id] = pc
	return nil
}

// fail marks the connection dead and fails every pending call with err;
// later calls add nothing.
func (t *callTable) fail(err error) {
	t.mu.Lock()
	if t.err != nil {
		t.mu.Unlock()
		return
	}
	t.err = err
	pending := t.pending
	t.pending = map[int64]*pendingCall{}
	close(t.dead)
	t.mu.Unlock()
	for _, pc := range pending {
		pc.answer(reply{err: err})
	}
}

// failure returns why the connection died (nil while it lives).
func (t *callTable) failure() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// take removes and returns the pending call with id, or nil.
func (t *callTable) take(id int64) *pendingCall {
	t.mu.Lock()
	defer t.mu.Unlock()
	pc := t.pending[id]
	delete(t.pending, id)
	return pc
}

// forget drops a pending call; it reports whether it was still pending.
func (t *callTable) forget(id int64) bool { return t.take(id) != nil }

// count counts the pending calls; with clientsOnly, only those made for
// a client (with a peer; the gateway's own, such as initialize and
// tools/list, have none).
func (t *callTable) count(clientsOnly bool) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !clientsOnly {
		return len(t.pending)
	}
	return t.clientCalls()
}

// clientCalls is count(true); call with t.mu held.
func (t *callTable) clientCalls() int {
	n := 0
	for _, p := range t.pending {
		if p.peer != nil {
			n++
		}
	}
	return n
}

// queueProgress queues a notifications/progress to the call whose
// request id is the token the server sent, with the client's own token
// (its fields with the token swapped back, from restore), if that call is
// pending, has a client and sent a token.
func (t *callTable) queueProgress(id int64, method string, restore func(token json.RawMessage) json.RawMessage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	pc := t.pending[id]
	if pc == nil || pc.token == nil || pc.peer == nil {
		return
	}
	t.enqueue(pc, note{method, restore(pc.token)})
}

// queueFor queues a notification to the call it is for (callFor), and
// reports whether there was one.
func (t *callTable) queueFor(from int64, logsOnly bool, n note) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	pc := t.callFor(from, logsOnly)
	if pc != nil {
		t.enqueue(pc, n)
	}
	return pc != nil
}

// requestTarget returns the call a server-to-client request is for
// (callFor), and busy: it came on no call's stream while calls of clients
// are in flight.
func (t *callTable) requestTarget(from int64) (pc *pendingCall, busy bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.callFor(from, false), from == 0 && t.clientCalls() > 0
}

// enqueue queues a notification without blocking; call with t.mu held.
// The queue and its delivery goroutine are made on the first notification,
// since most calls have none (bench: −11 KB and −46 µs of CPU per call).
func (t *callTable) enqueue(pc *pendingCall, n note) {
	if pc.notes == nil {
		pc.notes = make(chan note, noteQueue)
		pc.delivered = make(chan struct{})
		go pc.deliver()
	}
	select {
	case pc.notes <- n:
	default:
		t.log.Line(t.name, "[gateway] the client is not reading; "+n.method+" dropped")
	}
}

// endNotes ends the delivery of pc's notifications, once pc has left the
// table, and waits for it: the notifications the server sent before its
// response reach the client first.
func (t *callTable) endNotes(pc *pendingCall) {
	t.mu.Lock()
	notes := pc.notes
	t.mu.Unlock()
	if notes != nil {
		// No longer in the table, so nothing sends to notes any more.
		close(notes)
		<-pc.delivered // bounded: at most noteQueue notifications, each sent with ctx
	}
}

// callFor returns the call a server's request or log message is for: the
// call whose stream carried it (from), if it is still pending and has a
// client, or, from no call's stream, the sole caller's (soleCaller). With
// logsOnly, only a call that asked for log messages. Call with t.mu held.
func (t *callTable) callFor(from int64, logsOnly bool) *pendingCall {
	if from == 0 {
		return t.soleCaller(logsOnly)
	}
	pc := t.pending[from]
	if pc == nil || pc.peer == nil || (logsOnly && !pc.logs) {
		return nil
	}
	return pc
}

// soleCaller returns the most recent pending call with a client, if every
// pending call with a client comes from the same client (Peer.ClientID);
// else nil. With logsOnly, only calls that asked for log messages count.
// Call with t.mu held.
func (t *callTable) soleCaller(logsOnly bool) *pendingCall {
	var (
		best   int64
		pc     *pendingCall
		client string
	)
	for id, p := range t.pending {
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
	if len(params) < quickTokenCheck && !bytes.Contains(params, []byte("progressToken")) && !bytes.Contains(params, []byte(`\u`)) {
		return false // no key anywhere in them can be a progressToken
	}
	may := false
	err := jsonrpc.Members(params, func(key, value []byte) bool {
		may = bytes.IndexByte(key, '\\') >= 0 || string(key) == "_meta" && containsToken(value)
		return !may
	})
	return err != nil || may
}

// quickTokenCheck bounds the params mayHoldToken first searches whole for
// the key (and an escape that could spell it): for most calls' params a
// search of a few hundred bytes is cheaper than reading their members
// (~1 µs a modern call, whose _meta it read); an 8 MiB argument is not
// searched twice.
const quickTokenCheck = 64 << 10

// containsToken reports whether a _meta may hold a progressToken: the
// plain key, or any escape, which could spell it ("progress\u0054oken"),
// sends it through the decoding path.
func containsToken(meta []byte) bool {
	return bytesContains(meta, `"progressToken"`) || bytesContains(meta, `\u`)
}

func bytesContains(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }
