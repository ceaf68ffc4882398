package chaos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"time"
)

// This file is the load: which calls a client makes, in what mix, and
// what each one's end is called (its outcome).

// Outcomes of a call. ok, toolError, errNamed, dropped and deleted are
// fine; the rest fail the run.
const (
	outOK        = "ok"              // a result
	outToolError = "tool_error"      // a result with isError, from the server
	outErrNamed  = "error"           // a JSON-RPC or HTTP error that names the server
	outDropped   = "dropped"         // the driver dropped the connection mid-call
	outDeleted   = "session_deleted" // the driver DELETEd the session mid-call
	outUnnamed   = "error_unnamed"   // an error that does not say which server
	outDeadline  = "deadline"        // no end within the call's deadline: a hang
	outBroken    = "broken"          // a transport error the driver did not cause
)

// failing reports whether outcome fails the run.
func failing(outcome string) bool {
	switch outcome {
	case outOK, outToolError, outErrNamed, outDropped, outDeleted:
		return false
	}
	return true
}

// op is one kind of call: its name for the counts, the server whose
// name a failure must carry, its era, and how to make it.
type op struct {
	kind, server string
	run          func(ctx context.Context, w *worker) (answer, error)
}

// outcome is one call's end.
type outcome struct {
	kind, server, era, class, detail string
	at                               time.Duration // its start, since the run's
	took                             time.Duration
}

// serverNamed matches a server's name as a word ("web" is not in "webrun").
func serverNamed(msg, server string) bool {
	return regexp.MustCompile(`(^|[^A-Za-z0-9_-])` + regexp.QuoteMeta(server) + `($|[^A-Za-z0-9_-])`).MatchString(msg)
}

// classify names the end of a call to server from what it got.
func classify(server string, a answer, err error, ctx context.Context, l *live) (string, string) {
	switch {
	case l.dropped.Load():
		return outDropped, ""
	case l.deleted.Load():
		return outDeleted, ""
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return outDeadline, fmt.Sprint(err)
	case err != nil:
		return outBroken, err.Error()
	case a.Error != nil:
		if server == "" || serverNamed(a.Error.Message, server) {
			return outErrNamed, fmt.Sprintf("%d %s", a.Error.Code, a.Error.Message)
		}
		return outUnnamed, fmt.Sprintf("HTTP %d, %d %s", a.Status, a.Error.Code, a.Error.Message)
	case a.Result == nil:
		return outBroken, fmt.Sprintf("HTTP %d without a result", a.Status)
	}
	var r struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(a.Result, &r) == nil && r.IsError {
		text := ""
		if len(r.Content) > 0 {
			text = r.Content[0].Text
		}
		return outToolError, text
	}
	return outOK, ""
}

// Servers, by their config keys (SPEC §4.1: everything sorts first, so its
// tools keep their names; web's and webrun's are prefixed).
const (
	srvEverything = "everything" // stdio, under /bin/sh: a server with a child
	srvFilesystem = "filesystem" // stdio, a catalog override
	srvMemory     = "memory"     // stdio, a catalog override
	srvThinking   = "thinking"   // stdio, named only by the catalog file
	srvWeb        = "web"        // Streamable HTTP, started by the driver
	srvWebrun     = "webrun"     // Streamable HTTP, started by the gateway (runCmd)
)

// everythings are the three server-everything instances and their tool
// prefixes.
var everythings = []struct{ server, prefix string }{{srvEverything, ""}, {srvWeb, "web_"}, {srvWebrun, "webrun_"}}

// weighted is an op with its share of the mix.
type weighted struct {
	weight int
	pick   func(r *rand.Rand, w *worker) op
}

// mix is the calls a client makes, by weight.
func mix(dataDir string) []weighted {
	ev := func(r *rand.Rand) (string, string) {
		e := everythings[r.IntN(len(everythings))]
		return e.server, e.prefix
	}
	httpEv := func(r *rand.Rand) (string, string) { e := everythings[1+r.IntN(2)]; return e.server, e.prefix }
	return []weighted{
		{20, func(r *rand.Rand, w *worker) op {
			s, p := ev(r)
			return w.tool("echo", s, p+"echo", map[string]any{"message": fmt.Sprintf("chaos %d", r.IntN(1e6))})
		}},
		{10, func(r *rand.Rand, w *worker) op {
			s, p := ev(r)
			return w.tool("get-sum", s, p+"get-sum", map[string]any{"a": r.IntN(100), "b": r.IntN(100)})
		}},
		{5, func(r *rand.Rand, w *worker) op {
			s, p := ev(r)
			return w.tool("long-running", s, p+"trigger-long-running-operation", map[string]any{"duration": 0.5 + r.Float64(), "steps": 2 + r.IntN(3)})
		}},
		{8, func(r *rand.Rand, w *worker) op {
			if r.IntN(2) == 0 {
				return w.tool("memory", srvMemory, "read_graph", map[string]any{})
			}
			return w.tool("memory", srvMemory, "create_entities", map[string]any{"entities": []any{map[string]any{
				"name": fmt.Sprintf("e%d", r.IntN(50)), "entityType": "chaos", "observations": []any{fmt.Sprint(r.IntN(1e6))}}}})
		}},
		{8, func(r *rand.Rand, w *worker) op {
			if r.IntN(2) == 0 {
				return w.tool("filesystem", srvFilesystem, "list_directory", map[string]any{"path": dataDir})
			}
			return w.tool("filesystem", srvFilesystem, "read_text_file", map[string]any{"path": dataDir + "/a.txt"})
		}},
		{4, func(r *rand.Rand, w *worker) op {
			return w.tool("thinking", srvThinking, "sequentialthinking", map[string]any{
				"thought": "step", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": false})
		}},
		{8, func(r *rand.Rand, w *worker) op {
			s, p := ev(r)
			if r.IntN(2) == 0 {
				return w.prompt(s, p+"simple-prompt", nil)
			}
			return w.prompt(s, p+"args-prompt", map[string]any{"city": "Lyon"})
		}},
		{4, func(r *rand.Rand, w *worker) op {
			return w.list([]string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"}[r.IntN(4)])
		}},
		{10, func(r *rand.Rand, w *worker) op {
			switch r.IntN(3) {
			case 0:
				return w.read(srvMemory, "memory://knowledge-graph")
			case 1:
				return w.read(srvEverything, fmt.Sprintf("demo://resource/dynamic/text/%d", 1+r.IntN(9)))
			}
			return w.read(srvEverything, "demo://resource/static/document/architecture.md")
		}},
		{5, func(r *rand.Rand, w *worker) op {
			return w.subscribe(srvEverything, "demo://resource/static/document/features.md")
		}},
		{2, func(r *rand.Rand, w *worker) op {
			s, p := ev(r)
			return w.task(s, p+"simulate-research-query")
		}},
		{5, func(r *rand.Rand, w *worker) op {
			s, p := httpEv(r)
			return w.elicit(s, p+"trigger-elicitation-request")
		}},
	}
}

// worker is one client: legacy (a session) or modern, its random source,
// and the run it reports to.
type worker struct {
	n      int
	legacy bool
	c      *client
	s      *session // legacy only; nil until (re)initialized
	rng    *rand.Rand
	run    *runState
}

func (w *worker) era() string {
	if w.legacy {
		return "legacy"
	}
	return "modern"
}

// send makes one request in the worker's era: params is a fresh map.
func (w *worker) send(ctx context.Context, method, name string, params map[string]any, tasks bool) (answer, error) {
	if w.legacy {
		return w.s.call(ctx, method, params)
	}
	return w.c.modern(ctx, method, name, params, tasks, nil)
}

func (w *worker) tool(kind, server, name string, args map[string]any) op {
	return op{kind: "tool:" + kind, server: server, run: func(ctx context.Context, w *worker) (answer, error) {
		params := map[string]any{"name": name, "arguments": args}
		if kind == "long-running" {
			params["_meta"] = map[string]any{"progressToken": w.c.ids.Add(1)}
		}
		return w.send(ctx, "tools/call", name, params, false)
	}}
}

func (w *worker) prompt(server, name string, args map[string]any) op {
	return op{kind: "prompt", server: server, run: func(ctx context.Context, w *worker) (answer, error) {
		params := map[string]any{"name": name}
		if args != nil {
			params["arguments"] = args
		}
		return w.send(ctx, "prompts/get", name, params, false)
	}}
}

func (w *worker) list(method string) op {
	return op{kind: "list", run: func(ctx context.Context, w *worker) (answer, error) {
		return w.send(ctx, method, "", map[string]any{}, false)
	}}
}

func (w *worker) read(server, uri string) op {
	return op{kind: "resource", server: server, run: func(ctx context.Context, w *worker) (answer, error) {
		return w.send(ctx, "resources/read", uri, map[string]any{"uri": uri}, false)
	}}
}

// subscribe subscribes to uri and ends the subscription: legacy
// resources/subscribe then unsubscribe; modern a subscriptions/listen
// read until its acknowledgement, then closed.
func (w *worker) subscribe(server, uri string) op {
	return op{kind: "subscription", server: server, run: func(ctx context.Context, w *worker) (answer, error) {
		if w.legacy {
			a, err := w.s.call(ctx, "resources/subscribe", map[string]any{"uri": uri})
			if err != nil || a.Error != nil {
				return a, err
			}
			return w.s.call(ctx, "resources/unsubscribe", map[string]any{"uri": uri})
		}
		lctx, cancel := context.WithCancel(ctx)
		defer cancel()
		acked := false
		a, err := w.c.modern(lctx, "subscriptions/listen", "", map[string]any{"notifications": map[string]any{
			"toolsListChanged": true, "resourceSubscriptions": []string{uri}}}, false, func(m message) bool {
			acked = m.Method == "notifications/subscriptions/acknowledged"
			return acked || m.Error != nil
		})
		if err == nil && a.Error == nil && acked {
			a.Result = json.RawMessage(`{}`)
		}
		return a, err
	}}
}

// task makes a task of tool and follows it to its end: legacy, a
// task-augmented tools/call (2025-11-25), tasks/get until terminal, then
// tasks/result; modern, the tasks extension, tasks/get until terminal.
func (w *worker) task(server, tool string) op {
	return op{kind: "task", server: server, run: func(ctx context.Context, w *worker) (answer, error) {
		params := map[string]any{"name": tool, "arguments": map[string]any{"topic": "chaos"}}
		if w.legacy {
			params["task"] = map[string]any{"ttl": 60000}
		}
		a, err := w.send(ctx, "tools/call", tool, params, true)
		if err != nil || a.Error != nil {
			return a, err
		}
		var created struct {
			ResultType string `json:"resultType"`
			TaskID     string `json:"taskId"`
			Task       struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
		}
		_ = json.Unmarshal(a.Result, &created)
		id := created.TaskID
		if w.legacy {
			id = created.Task.TaskID
		}
		if id == "" {
			return a, nil // the server answered at once: a plain result
		}
		for {
			a, err = w.send(ctx, "tasks/get", id, map[string]any{"taskId": id}, true)
			if err != nil || a.Error != nil {
				return a, err
			}
			var st struct {
				Status        string `json:"status"`
				StatusMessage string `json:"statusMessage"`
			}
			_ = json.Unmarshal(a.Result, &st)
			switch st.Status {
			case "completed":
				if w.legacy {
					return w.send(ctx, "tasks/result", id, map[string]any{"taskId": id}, true)
				}
				return a, nil
			case "failed", "cancelled":
				// A task the server's death ended: the clear error is its
				// status message.
				return answer{Status: a.Status, Error: &rpcError{Code: -1, Message: "task " + st.Status + ": " + st.StatusMessage}}, nil
			}
			t := time.NewTimer(300 * time.Millisecond)
			select {
			case <-ctx.Done():
				t.Stop()
				return a, ctx.Err()
			case <-t.C:
			}
		}
	}}
}

// elicit calls tool, which asks the client for input: a legacy client
// answers the elicitation/create on the call's stream (session.call does);
// a modern one gets an InputRequiredResult and retries with inputResponses
// and the requestState (SPEC §4.6), for as many rounds as it is asked.
func (w *worker) elicit(server, tool string) op {
	return op{kind: "elicitation", server: server, run: func(ctx context.Context, w *worker) (answer, error) {
		params := map[string]any{"name": tool, "arguments": map[string]any{}}
		for round := 0; ; round++ {
			a, err := w.send(ctx, "tools/call", tool, params, false)
			if err != nil || a.Error != nil || w.legacy {
				return a, err
			}
			var irr struct {
				ResultType    string                     `json:"resultType"`
				InputRequests map[string]json.RawMessage `json:"inputRequests"`
				RequestState  string                     `json:"requestState"`
			}
			_ = json.Unmarshal(a.Result, &irr)
			if irr.ResultType != "input_required" {
				if round == 0 {
					return answer{Status: a.Status, Error: &rpcError{Code: -1, Message: server + ": " + tool + " finished without asking for input"}}, nil
				}
				return a, nil
			}
			if round == 5 {
				return answer{Status: a.Status, Error: &rpcError{Code: -1, Message: server + ": more than 5 input rounds"}}, nil
			}
			responses := map[string]any{}
			for key, req := range irr.InputRequests {
				var r struct {
					Method string          `json:"method"`
					Params json.RawMessage `json:"params"`
				}
				_ = json.Unmarshal(req, &r)
				res, _ := answerServer(r.Method, r.Params)
				responses[key] = res
			}
			params = map[string]any{"name": tool, "arguments": map[string]any{}, "inputResponses": responses, "requestState": irr.RequestState}
		}
	}}
}

// isSessionGone reports whether a legacy call's answer says its session is
// no more (deleted, expired): the worker opens a new one.
func isSessionGone(a answer) bool {
	return a.Status == 404 || (a.Error != nil && strings.Contains(strings.ToLower(a.Error.Message), "session"))
}
