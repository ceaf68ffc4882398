package rpc

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// MaxInputRounds bounds the InputRequiredResult rounds InputRounds runs
// for one call of a legacy client (SPEC §4.6): a server that keeps asking
// past 16 rounds fails the call with a JSON-RPC internal error instead of
// asking the client forever.
const MaxInputRounds = 16

// InputMethods are the requests a modern server may answer with an
// InputRequiredResult (MCP 2026-07-28 basic/patterns/mrtr "Supported
// Requests").
var InputMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

// inputRequired is an InputRequiredResult (MCP 2026-07-28 basic/patterns/
// mrtr): requests is the inputRequests object's members in the server's
// order, each {"method": …, "params": …}; state is requestState, raw, nil
// if absent.
type inputRequired struct {
	requests []jsonrpc.Field
	state    json.RawMessage
}

// parseInputRequired reads res; ok is false for any result whose
// resultType is not "input_required" (absent means "complete").
func parseInputRequired(res json.RawMessage) (ir inputRequired, ok bool, err error) {
	fields, err := jsonrpc.Fields(res)
	if err != nil {
		return ir, false, fmt.Errorf("read result: %w", err)
	}
	if rt, _ := jsonrpc.Get(fields, "resultType"); string(rt) != `"input_required"` {
		return ir, false, nil
	}
	if raw, found := jsonrpc.Get(fields, "inputRequests"); found && string(raw) != "null" {
		if ir.requests, err = jsonrpc.Fields(raw); err != nil {
			return ir, false, fmt.Errorf("read inputRequests: %w", err)
		}
	}
	ir.state, _ = jsonrpc.Get(fields, "requestState")
	return ir, true, nil
}

// InputRounds answers a modern server's InputRequiredResults for a legacy
// client: each input request goes to the client through peer.Request, in
// the server's order, and the call is retried on the same connection (the
// same process) with the client's params plus inputResponses (the
// client's results under the server's keys) and the server's requestState
// as sent, until a result of another type, an error, or MaxInputRounds.
// The client's error for any input request fails the call as it is.
func InputRounds(ctx context.Context, c *Conn, method string, params json.RawMessage, peer Peer, res json.RawMessage) (json.RawMessage, error) {
	for round := 1; ; round++ {
		ir, ok, err := parseInputRequired(res)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("the server's result could not be read: %v", err)}
		}
		if !ok {
			return res, nil
		}
		if round > MaxInputRounds {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
				Message: fmt.Sprintf("the server still asked for input after %d rounds; the gateway gave up", MaxInputRounds)}
		}
		responses, err := askClient(ctx, peer, ir.requests)
		if err != nil {
			return nil, err
		}
		retry, err := retryParams(params, responses, ir.state)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid params: %v", err)}
		}
		if res, err = c.Call(ctx, method, retry, peer); err != nil {
			return nil, err
		}
	}
}

// askClient sends each input request to the client and returns its
// results as an InputResponses object, keyed as the requests were; nil if
// there were no requests.
func askClient(ctx context.Context, peer Peer, requests []jsonrpc.Field) (json.RawMessage, error) {
	if len(requests) == 0 {
		return nil, nil
	}
	responses := make([]jsonrpc.Field, 0, len(requests))
	for _, r := range requests {
		var req struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(r.Value, &req); err != nil || req.Method == "" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
				Message: fmt.Sprintf("the server's input request %q is not a request object", r.Key)}
		}
		result, err := peer.Request(ctx, req.Method, req.Params)
		if err != nil {
			return nil, err
		}
		responses = append(responses, jsonrpc.Field{Key: r.Key, Value: result})
	}
	return jsonrpc.Encode(responses), nil
}

// retryParams is the client's params with inputResponses and requestState
// set, or removed where nil (a retry carries no requestState the server
// did not send; MCP 2026-07-28 basic/patterns/mrtr, client requirements).
func retryParams(params, responses, state json.RawMessage) (json.RawMessage, error) {
	var fields []jsonrpc.Field
	if len(params) > 0 && string(params) != "null" {
		var err error
		if fields, err = jsonrpc.Fields(params); err != nil {
			return nil, err
		}
	}
	fields = setOrDelete(fields, "inputResponses", responses)
	fields = setOrDelete(fields, "requestState", state)
	return jsonrpc.Encode(fields), nil
}

func setOrDelete(fields []jsonrpc.Field, key string, value json.RawMessage) []jsonrpc.Field {
	if value != nil {
		return jsonrpc.Set(fields, key, value)
	}
	out := fields[:0]
	for _, f := range fields {
		if f.Key != key {
			out = append(out, f)
		}
	}
	return out
}
