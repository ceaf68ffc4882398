package registry

import "github.com/mcp-gateway/mcp-gateway/jsonrpc"

// Offered is the server surface the gateway advertises (SPEC §3.8): each
// capability a configured server offers, as its last run declared it.
// Tools and logging are always offered (the gateway relays servers' log
// messages), and every list it offers announces its changes (listChanged:
// the gateway tells of restarts and reloads, SPEC §4.5, whatever the
// servers announce); resources.subscribe is offered when a server with
// resources takes subscriptions.
type Offered struct {
	prompts, resources, subscribe, completions bool
}

// Capabilities reads what the upstreams' last runs declared.
func (r *Registry) Capabilities() Offered {
	var o Offered
	for _, u := range r.ups {
		c := u.Capabilities()
		o.prompts = o.prompts || c.Prompts
		o.resources = o.resources || c.Resources
		o.subscribe = o.subscribe || (c.Resources && c.ResourcesSubscribe)
		o.completions = o.completions || c.Completions
	}
	return o
}

// Lists reports whether the gateway offers the list of kind.
func (o Offered) Lists(kind ListKind) bool {
	switch kind {
	case ListPrompts:
		return o.prompts
	case ListResources:
		return o.resources
	}
	return true
}

// Object renders the capabilities object of initialize (legacy) or
// server/discover (modern, with the tasks extension): the tasks entry
// differs between the eras and is the caller's.
func (o Offered) Object(tasks map[string]any) map[string]any {
	caps := map[string]any{"logging": struct{}{}, "tools": map[string]bool{"listChanged": true}}
	for k, v := range tasks {
		caps[k] = v
	}
	if o.prompts {
		caps["prompts"] = map[string]bool{"listChanged": true}
	}
	if o.resources {
		caps["resources"] = map[string]bool{"listChanged": true, "subscribe": o.subscribe}
	}
	if o.completions {
		caps["completions"] = struct{}{}
	}
	return caps
}

// Serves reports whether the gateway serves method, a method of the
// surface beyond tools: one whose capability no server offers is -32601
// (completion/complete: while no server offers prompts or resources
// either),
// as it is from a server that does not declare it (a client that calls
// prompts/list of a gateway without prompts learns that they are not
// there, not that there are none).
func (o Offered) Serves(method string) bool {
	switch method {
	case "prompts/list", "prompts/get":
		return o.prompts
	case "resources/list", "resources/templates/list", "resources/read", "resources/subscribe", "resources/unsubscribe":
		return o.resources
	case "completion/complete":
		// Routed to the ref's owner whether or not it declared
		// completions (SPEC §4.8: some servers answer without declaring
		// it): served wherever a prompt or a template can be its ref.
		return o.completions || o.prompts || o.resources
	}
	return true
}

// NotOffered is the error for a method whose capability no server offers.
func NotOffered(method string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found: " + method + " (no server behind the gateway offers it)"}
}
