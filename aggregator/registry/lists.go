package registry

import (
	"encoding/base64"
	"encoding/json"
	"strconv"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// PageSize is how many entries one page of a merged list holds
// (tools/list, prompts/list, resources/list, resources/templates/list);
// the rest follow through nextCursor (MCP Pagination, SPEC §4.8).
const PageSize = 500

// List is one merged list as clients page through it: the definitions in
// order, and the result member that holds them ("tools", "prompts",
// "resources", "resourceTemplates").
type List struct {
	member string
	items  []json.RawMessage
}

// Page renders one page of l: {"<member>":[…],"nextCursor":"…"}. A
// cursor is an offset into the list, opaque to clients; one that is not
// this gateway's, or past the end, is -32602 (MCP Pagination).
func (l List) Page(cursor string) (json.RawMessage, error) {
	start := 0
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		if err == nil {
			start, err = strconv.Atoi(string(b))
		}
		if err != nil || start < 0 || start > len(l.items) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor"}
		}
	}
	end := min(start+PageSize, len(l.items))
	n := len(l.member) + 8
	for _, t := range l.items[start:end] {
		n += len(t) + 1
	}
	b := make([]byte, 0, n+64)
	b = append(b, `{"`...)
	b = append(b, l.member...)
	b = append(b, `":[`...)
	for i, t := range l.items[start:end] {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, t...)
	}
	b = append(b, ']')
	if end < len(l.items) {
		b = append(b, `,"nextCursor":"`...)
		b = append(b, base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(end)))...)
		b = append(b, '"')
	}
	return append(b, '}'), nil
}

// Items returns l's definitions in order, as clients get them; the
// caller must not change them.
func (l List) Items() []json.RawMessage { return l.items }

// Same reports whether l and o hold the same definitions, byte for byte.
func (l List) Same(o List) bool {
	if len(l.items) != len(o.items) {
		return false
	}
	for i := range l.items {
		if string(l.items[i]) != string(o.items[i]) {
			return false
		}
	}
	return true
}

// CursorOf reads params.cursor: "" when absent or null. A cursor that is
// not a string is invalid params (-32602), as one the gateway did not
// issue is (Page): read as none, it would answer the first page again.
func CursorOf(params json.RawMessage) (string, error) {
	c, ok := jsonrpc.Member(params, "cursor")
	if !ok || jsonrpc.IsNull(c) {
		return "", nil
	}
	s, ok := jsonrpc.Text(c)
	if !ok {
		return "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor"}
	}
	return s, nil
}

// ListKind names a merged list whose changes clients hear of (SPEC §4.5):
// resources/list_changed covers the templates too.
type ListKind int

const (
	ListTools ListKind = iota
	ListPrompts
	ListResources
	ListKinds ListKind = 3 // how many there are
)

// Method is the notification that the list changed.
func (k ListKind) Method() string {
	return [...]string{"notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed"}[k]
}

// Filter is the member of a subscriptions/listen filter that asks for it.
func (k ListKind) Filter() string {
	return [...]string{"toolsListChanged", "promptsListChanged", "resourcesListChanged"}[k]
}
