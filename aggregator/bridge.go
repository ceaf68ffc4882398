package aggregator

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/mcp-gateway/mcp-gateway/supervisor"
	"github.com/mcp-gateway/mcp-gateway/supervisor/jsonrpc"
)

// This file bridges server-to-client requests for modern clients (MCP
// 2026-07-28 mrtr; SPEC §4.6). A modern client's tools/call runs as a
// bridgeCall, apart from the HTTP request that started it:
//
//   - A legacy server's elicitation/create, sampling/createMessage or
//     roots/list during the call parks it: the client gets an
//     InputRequiredResult whose inputRequests hold the server's requests as
//     sent and whose requestState (state.go) names the parked call. The
//     client's retry with inputResponses answers the server and the call
//     goes on, round after round. A parked call nobody resumes within
//     HTTPOptions.StateTTL is cancelled upstream.
//   - A modern server's own InputRequiredResult passes through, its
//     requestState sealed with the process that issued it, so that the
//     retry reaches that process (or fails clearly if it has ended).
//
// While a request is attached, closing its stream cancels the call
// (MCP 2026-07-28 Cancellation); while parked, only expiry does.

// bridgeCall is one modern client's tools/call.
type bridgeCall struct {
	h     *handler
	id    string // random; parked calls are found by it
	tool  string // exported name
	token string // the caller's token digest
	caps  json.RawMessage

	ctx    context.Context
	cancel context.CancelCauseFunc
	asks   chan *ask
	done   chan callOutcome // buffered 1

	mu      sync.Mutex
	out     *stream // the attached response; nil while parked
	level   string
	round   int
	keys    int    // input request keys issued
	pending []*ask // asked of the client in this round
	timer   *time.Timer
}

// ask is one server-to-client request waiting for the client's answer.
type ask struct {
	key    string // its key in inputRequests
	method string
	params json.RawMessage
	answer chan json.RawMessage // buffered 1
}

type callOutcome struct {
	res    json.RawMessage
	served uint64
	rt     route
	err    error
}

var (
	errParkExpired = errors.New("the client did not retry with inputResponses within the parked call's time")
	errParkGone    = errors.New("no parked call for this requestState: it was answered already, expired, or the gateway restarted; start the call over")
)

// bridges is a handler's table of parked calls.
type bridges struct {
	mu     sync.Mutex
	parked map[string]*bridgeCall
	wg     sync.WaitGroup // every bridgeCall's goroutine
}

// startBridge starts a modern client's call to run (0: any) with params,
// on a context of its own.
func (h *handler) startBridge(req *modernReq, tool, token string, run uint64, params json.RawMessage) *bridgeCall {
	var b [12]byte
	_, _ = rand.Read(b[:])
	bc := &bridgeCall{h: h, id: hex.EncodeToString(b[:]), tool: tool, token: token, caps: req.caps, level: req.level,
		asks: make(chan *ask), done: make(chan callOutcome, 1)}
	bc.ctx, bc.cancel = context.WithCancelCause(h.baseCtx)
	h.bridges.wg.Add(1)
	go func() {
		defer h.bridges.wg.Done()
		defer bc.cancel(nil)
		res, served, rt, err := h.g.callToolRun(bc.ctx, run, params, bc)
		bc.done <- callOutcome{res, served, rt, err}
	}()
	return bc
}

// await attaches a response to the call and waits for what ends this
// round: the call's outcome, input the server asks for (the call parks),
// or the client closing the stream (the call is cancelled).
func (bc *bridgeCall) await(req *modernReq, out *stream, done <-chan struct{}) {
	bc.mu.Lock()
	bc.out = out
	bc.mu.Unlock()
	out.armSSE()
	select {
	case o := <-bc.done:
		bc.finish(req, out, o)
	case a := <-bc.asks:
		asks := []*ask{a}
		for more := true; more; {
			select {
			case a := <-bc.asks:
				asks = append(asks, a)
			default:
				more = false
			}
		}
		bc.park(asks)
		out.finish(resultParts(req.id, bc.inputRequired(asks))...)
	case <-done:
		bc.cancel(errClientCancelled)
		out.close()
	}
}

// finish answers the round with the call's outcome.
func (bc *bridgeCall) finish(req *modernReq, out *stream, o callOutcome) {
	if o.err != nil {
		out.finish(errorParts(req.id, o.err)...)
		return
	}
	res, err := bc.passInputRequired(o)
	if err == nil && wantsTasks(bc.caps) {
		res, err = bc.h.relayModernTask("token:"+bc.token, o, res, bc) // taskmodern.go
	}
	if err != nil {
		out.finish(errorParts(req.id, err)...)
		return
	}
	out.finish(resultParts(req.id, withResultType(res))...)
}

// passInputRequired seals a modern server's requestState with its process
// (SPEC §4.6), and refuses input requests the client cannot answer with
// -32021 (MissingRequiredClientCapability).
func (bc *bridgeCall) passInputRequired(o callOutcome) (json.RawMessage, error) {
	rt, _ := jsonrpc.Member(o.res, "resultType")
	if string(rt) != `"input_required"` {
		return o.res, nil
	}
	if reqs, ok := jsonrpc.Member(o.res, "inputRequests"); ok {
		if missing := bc.missingCapabilities(reqs); missing != nil {
			data, _ := json.Marshal(map[string]any{"requiredCapabilities": missing})
			return nil, &jsonrpc.Error{Code: codeMissingCapability, Data: data,
				Message: "the server needs client capabilities this request did not declare"}
		}
	}
	raw, ok := jsonrpc.Member(o.res, "requestState")
	state, isText := jsonrpc.Text(raw)
	if !ok || !isText {
		return o.res, nil
	}
	sealed := bc.h.g.states.seal(requestState{Kind: stateUpstream, Tool: bc.tool, Token: bc.token,
		Expiry: time.Now().Add(bc.h.o.StateTTL).UnixMilli(), Server: o.rt.upstream.Name(), Run: o.served, State: state})
	return jsonrpc.Replace(o.res, "requestState", jsonrpc.Quote(sealed))
}

// missingCapabilities returns the capabilities the input requests need
// and the client did not declare, or nil.
func (bc *bridgeCall) missingCapabilities(reqs json.RawMessage) map[string]struct{} {
	var missing map[string]struct{}
	_ = jsonrpc.Members(reqs, func(_, v []byte) bool {
		m, _ := jsonrpc.Member(v, "method")
		method, _ := jsonrpc.Text(m)
		if !clientCan(bc.caps, method) {
			if missing == nil {
				missing = map[string]struct{}{}
			}
			missing[capabilityOf(method)] = struct{}{}
		}
		return true
	})
	return missing
}

// park records the round's asks, detaches the response and starts the
// expiry clock.
func (bc *bridgeCall) park(asks []*ask) {
	bc.mu.Lock()
	bc.out = nil
	bc.round++
	bc.pending = asks
	bc.timer = time.AfterFunc(bc.h.o.StateTTL, bc.expire)
	bc.mu.Unlock()
	bc.h.bridges.mu.Lock()
	bc.h.bridges.parked[bc.id] = bc
	bc.h.bridges.mu.Unlock()
}

// expire cancels a parked call nobody resumed; its server gets
// notifications/cancelled.
func (bc *bridgeCall) expire() {
	bc.h.bridges.mu.Lock()
	parked := bc.h.bridges.parked[bc.id] == bc
	delete(bc.h.bridges.parked, bc.id)
	bc.h.bridges.mu.Unlock()
	if parked {
		bc.h.g.log.Info("parked call expired; cancelled upstream", "tool", bc.tool, "after", bc.h.o.StateTTL)
		bc.cancel(errParkExpired)
	}
}

// inputRequired renders the round's InputRequiredResult.
func (bc *bridgeCall) inputRequired(asks []*ask) json.RawMessage {
	b := []byte(`{"resultType":"input_required","inputRequests":{`)
	for i, a := range asks {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, jsonrpc.Quote(a.key)...)
		b = append(b, `:{"method":`...)
		b = append(b, jsonrpc.Quote(a.method)...)
		b = append(b, `,"params":`...)
		b = append(b, orEmpty(a.params)...)
		b = append(b, '}')
	}
	b = append(b, `},"requestState":`...)
	bc.mu.Lock()
	st := requestState{Kind: statePark, ID: bc.id, Round: bc.round, Tool: bc.tool, Token: bc.token, Expiry: time.Now().Add(bc.h.o.StateTTL).UnixMilli()}
	bc.mu.Unlock()
	b = append(b, jsonrpc.Quote(bc.h.g.states.seal(st))...)
	return append(b, '}')
}

// resume takes the parked call a requestState names, if it is parked in
// that round: the state of an earlier round, or of a call resumed already,
// is a replay.
func (h *handler) resume(st *requestState) (*bridgeCall, error) {
	h.bridges.mu.Lock()
	defer h.bridges.mu.Unlock()
	bc := h.bridges.parked[st.ID]
	if bc == nil {
		return nil, errParkGone
	}
	bc.mu.Lock()
	defer bc.mu.Unlock()
	if bc.round != st.Round {
		return nil, errParkGone
	}
	delete(h.bridges.parked, st.ID)
	bc.timer.Stop()
	return bc, nil
}

// answer gives the server the client's inputResponses, and returns the
// asks they did not answer (asked again).
func (bc *bridgeCall) answer(responses json.RawMessage) []*ask {
	bc.mu.Lock()
	pending := bc.pending
	bc.pending = nil
	bc.mu.Unlock()
	var missing []*ask
	for _, a := range pending {
		v, ok := jsonrpc.Member(responses, a.key)
		if !ok || len(responses) == 0 || responses[0] != '{' {
			missing = append(missing, a)
			continue
		}
		a.answer <- v
	}
	return missing
}

// The supervisor.Peer of a bridged call.
var _ supervisor.Peer = (*bridgeCall)(nil)

// Notify relays progress and log messages (at or above the request's
// logLevel) on the attached response; while parked they are dropped.
func (bc *bridgeCall) Notify(_ context.Context, method string, params json.RawMessage) {
	bc.mu.Lock()
	out, level := bc.out, bc.level
	bc.mu.Unlock()
	if out == nil {
		return
	}
	if method == "notifications/message" && level != "" {
		raw, _ := jsonrpc.Member(params, "level")
		l, _ := jsonrpc.Text(raw)
		if logLevels[l] < logLevels[level] {
			return
		}
	}
	_ = out.event(jsonrpc.Notification(method, params))
}

// Request parks the call on a legacy server's server-to-client request
// and returns the client's answer from its retry. A client without the
// capability gets none: the server gets -32601 (SPEC §4.6).
func (bc *bridgeCall) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if !clientCan(bc.caps, method) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
			Message: fmt.Sprintf("%s: the calling client did not declare the %s capability", method, capabilityOf(method))}
	}
	bc.mu.Lock()
	bc.keys++
	key := capabilityOf(method) + "-" + strconv.Itoa(bc.keys)
	bc.mu.Unlock()
	a := &ask{key: key, method: method, params: params, answer: make(chan json.RawMessage, 1)}
	select {
	case bc.asks <- a:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case v := <-a.answer:
		return v, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Session is the call's own: a modern client has no session.
func (bc *bridgeCall) Session() string { return "modern:" + bc.id }

// Client: a modern client; a modern server's InputRequiredResult comes
// back to it as sent, and the request's own _meta is kept.
func (bc *bridgeCall) Client() supervisor.ClientInfo { return supervisor.ClientInfo{Modern: true} }

// capabilityOf names the client capability a server-to-client request
// needs.
func capabilityOf(method string) string {
	switch method {
	case "sampling/createMessage":
		return "sampling"
	case "elicitation/create":
		return "elicitation"
	case "roots/list":
		return "roots"
	}
	return method
}

func orEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	return b
}

// cancelBridges cancels every bridged call, running or parked, with cause.
func (h *handler) cancelBridges(cause error) {
	h.bridges.mu.Lock()
	parked := make([]*bridgeCall, 0, len(h.bridges.parked))
	for id, bc := range h.bridges.parked {
		parked = append(parked, bc)
		delete(h.bridges.parked, id)
	}
	h.bridges.mu.Unlock()
	for _, bc := range parked {
		bc.cancel(cause)
	}
	h.cancelBase(cause)
}
