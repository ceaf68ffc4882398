package registry

import (
	"encoding/json"
	"fmt"

	"log/slog"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"

	"github.com/yosida95/uritemplate/v3"

	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// This file merges the servers' resources and resource templates (SPEC
// §4.8) and says which server a URI belongs to. URIs are never rewritten:
// they also travel inside results (resource_link, embedded resources),
// and a client reads them back as it got them.
//
// A URI is routed, in this order:
//
//  1. listed: to the server that lists it in resources/list; where several
//     list it, the first in server order, with a log line naming both;
//  2. remembered: to the server whose result (a tool's, a prompt's, a
//     read's) carried it to this client (memory.go): a result is more
//     particular evidence than a pattern, which two servers' templates
//     may share;
//  3. a template: to the server of the first template, in server order,
//     that matches it (RFC 6570);
//
// and anything else is -32602 naming the URI.

// uriTable is one registry generation's resources and templates.
type uriTable struct {
	listed       map[string]*supervisor.Upstream // URI → the server that serves it
	resources    List
	templates    []uriTemplate // in server order, each uriTemplate once
	templateList List
	byText       map[string]*supervisor.Upstream // uriTemplate → its server (completion's ref/resource)
}

// uriTemplate is one server's resource template: its uriTemplate as
// listed, compiled (nil when it is not RFC 6570: it is listed, but no URI
// is routed by it), and the literal text before its first expression,
// which every URI it matches starts with.
type uriTemplate struct {
	text   string
	prefix string
	tmpl   *uritemplate.Template
	up     *supervisor.Upstream
}

// buildURITable merges the upstreams' resources and templates, in server
// order. A URI or uriTemplate listed by several servers is served by the
// first, with a log line naming both (once for as long as it lasts: log
// is build's, oncelog.go).
func buildURITable(ups []*supervisor.Upstream, lists []supervisor.Lists, log *slog.Logger) uriTable {
	t := uriTable{listed: map[string]*supervisor.Upstream{}, byText: map[string]*supervisor.Upstream{}}
	t.resources.member, t.templateList.member = "resources", "resourceTemplates"
	dup := func(what, key string, first, also *supervisor.Upstream) {
		if first == also {
			log.Warn(what+" dropped", "server", also.Name(), what, key, "reason", "the server lists it twice")
			return
		}
		log.Warn(what+" listed by two servers; the first in server order serves it", what, key, "server", first.Name(), "also", also.Name())
	}
	// first records key as u's in owners unless an earlier server has it.
	first := func(what string, owners map[string]*supervisor.Upstream, key string, u *supervisor.Upstream) bool {
		if owner := owners[key]; owner != nil {
			dup(what, key, owner, u)
			return false
		}
		owners[key] = u
		return true
	}
	for i, u := range ups {
		for _, e := range lists[i].Resources {
			if first("resource", t.listed, e.Key, u) {
				t.resources.items = append(t.resources.items, e.Raw)
			}
		}
		for _, e := range lists[i].Templates {
			if first("resource template", t.byText, e.Key, u) {
				t.templateList.items = append(t.templateList.items, e.Raw)
				t.templates = append(t.templates, compileTemplate(e.Key, u, log))
			}
		}
	}
	return t
}

// compileTemplate compiles a template; one that is not RFC 6570 is
// logged and routes nothing.
func compileTemplate(text string, u *supervisor.Upstream, log *slog.Logger) uriTemplate {
	ut, err := parseTemplate(text)
	ut.up = u
	if err != nil {
		log.Warn("resource template is not an RFC 6570 URI template; no read is routed by it", "server", u.Name(), "uriTemplate", text, "error", err.Error())
	}
	return ut
}

// parseTemplate reads a uriTemplate; on an error the template matches
// nothing.
func parseTemplate(text string) (uriTemplate, error) {
	ut := uriTemplate{text: text}
	ut.prefix, _, _ = strings.Cut(text, "{")
	tmpl, err := uritemplate.New(text)
	if err != nil {
		return ut, err
	}
	ut.tmpl = tmpl
	return ut, nil
}

// matches reports whether uri is one of the template's URIs.
func (ut *uriTemplate) matches(uri string) bool {
	return ut.tmpl != nil && strings.HasPrefix(uri, ut.prefix) && ut.tmpl.Match(uri) != nil
}

// owner returns the server of a URI by the registry's rules: listed, then
// remembered by mem (nil: none), then the first matching template.
func (t *uriTable) owner(uri string, mem *Memory, byName func(string) *supervisor.Upstream) *supervisor.Upstream {
	if u := t.listed[uri]; u != nil {
		return u
	}
	if server := mem.Lookup(uri); server != "" {
		if u := byName(server); u != nil {
			return u
		}
	}
	for i := range t.templates {
		if t.templates[i].matches(uri) {
			return t.templates[i].up
		}
	}
	return nil
}

// same reports whether t and o list the same resources and templates.
func (t *uriTable) same(o *uriTable) bool {
	return t.resources.Same(o.resources) && t.templateList.Same(o.templateList)
}

// ResourceNotFound is the error for a URI no server owns: -32602 with the
// URI in data (MCP 2026-07-28 resources, "Error Handling").
func ResourceNotFound(uri string) error {
	data, _ := json.Marshal(map[string]string{"uri": uri})
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Data: data,
		Message: fmt.Sprintf("Resource not found: %q: no server lists it, has a template matching it, or sent it to this client", uri)}
}
