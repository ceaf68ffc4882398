package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/names"
	"github.com/mcp-gateway/mcp-gateway/aggregator/toolsearch"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// Tool search (SPEC §4.10, issue 34), phase `search`, in this process:
// what search_tools costs over 1,000 tools (the query's ranking and the
// result's bytes, toolsearch.Index.Search and toolsearch.Result, as the
// gateway answers it), what an index build costs (once per list change),
// and the bytes of tools/list in both modes for the real set: the 113
// tools the pinned npm servers list (codeapi/testdata/realtools.json,
// compacted, named as the merge names them), whole against search
// mode's search_tools and call_tool.
//
// The tools/call path of an exported name does no work for tool search,
// in either mode (aggregator/toolsearch.go): that cost is the sequential
// and handler figures', judged against a baseline build (A/B).

// searchQueries are what agents ask, in users' words.
var searchQueries = []string{
	"open a PR from my feature branch into main", "leave a comment on issue 42", "tell the team in #general the deploy is done",
	"coffee shops near the office", "how long is the drive from Paris to Lyon", "search the internet for election news",
	"save this text into notes.txt", "show me what is in config.yaml", "make a new folder called reports",
	"remember that Alice works at Acme", "what do you remember about Alice", "open this PDF",
	"how many orders did we get last month", "think this through step by step", "add 3 and 5", "list_directory",
}

// toolSearch is the phase: search p50 and p99 over 1,000 tools, the
// index build, and the two lists' bytes.
func (r *runner) toolSearch(ctx context.Context) error {
	real, err := realToolSet()
	if err != nil {
		return err
	}
	var all bytes.Buffer
	all.WriteString(`{"tools":[`)
	for i, t := range real {
		if i > 0 {
			all.WriteByte(',')
		}
		all.Write(t.Definition)
	}
	all.WriteString(`]}`)
	servers, _ := toolsearch.New(real).Servers()
	search := `{"tools":[` + string(toolsearch.SearchToolsDefinition(len(real), servers)) + `,` + string(toolsearch.CallToolDefinition) + `]}`
	r.add("search.list.all", "gateway", float64(all.Len()))
	r.add("search.list.search", "gateway", float64(len(search)))
	r.add("search.list.tools", "gateway", float64(len(real)))

	thousand := copies(real, 1000)
	t0 := time.Now()
	ix := toolsearch.New(thousand)
	r.add("search.build", "gateway", float64(time.Since(t0).Microseconds())/1000)
	ds := make([]float64, 0, r.cfg.SearchCalls)
	for i := range r.cfg.SearchCalls {
		if i%256 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		q := toolsearch.Query{Text: searchQueries[i%len(searchQueries)]}
		t := time.Now()
		res := toolsearch.Result(q, ix.Search(q))
		ds = append(ds, float64(time.Since(t).Nanoseconds())/1e3)
		if len(res) < 100 {
			return fmt.Errorf("search_tools %q over 1,000 tools: result %s", q.Text, res)
		}
	}
	slices.Sort(ds)
	r.add("search.p50", "gateway", percentile(ds, 50))
	r.add("search.p99", "gateway", percentile(ds, 99))
	return nil
}

// realToolSet reads the pinned npm servers' tools from
// codeapi/testdata/realtools.json, compacted as a server sends them,
// each named as the merge names it (aggregator/names, SPEC §4.1, §4.2).
func realToolSet() ([]toolsearch.Tool, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(root, "codeapi", "testdata", "realtools.json"))
	if err != nil {
		return nil, fmt.Errorf("read the real tool set: %w", err)
	}
	var file []struct {
		Name  string            `json:"name"`
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		return nil, fmt.Errorf("decode the real tool set: %w", err)
	}
	var servers []string
	keys := map[string][]string{}
	defs := map[names.Ref]json.RawMessage{}
	for _, s := range file {
		servers = append(servers, s.Name)
		for _, d := range s.Tools {
			var c bytes.Buffer
			if err := json.Compact(&c, d); err != nil {
				return nil, fmt.Errorf("compact a tool of %s: %w", s.Name, err)
			}
			name, _ := jsonrpc.Text(jsonrpc.Value(c.Bytes(), "name"))
			keys[s.Name] = append(keys[s.Name], name)
			defs[names.Ref{Server: s.Name, Name: name}] = c.Bytes()
		}
	}
	exported, _ := names.AssignReserved(servers, keys, []string{toolsearch.SearchToolsName, toolsearch.CallToolName})
	var out []toolsearch.Tool
	for _, s := range servers {
		for _, k := range keys[s] {
			ref := names.Ref{Server: s, Name: k}
			name, ok := exported[ref]
			if !ok {
				continue
			}
			def, err := jsonrpc.Replace(defs[ref], "name", jsonrpc.Quote(name))
			if err != nil {
				return nil, fmt.Errorf("name a tool of %s: %w", s, err)
			}
			out = append(out, toolsearch.Tool{Server: s, Name: name, Definition: def})
		}
	}
	return out, nil
}

// copies is the set again and again, each copy's servers and names made
// distinct, cut at n tools.
func copies(set []toolsearch.Tool, n int) []toolsearch.Tool {
	out := slices.Clone(set)
	for k := 2; len(out) < n; k++ {
		for _, t := range set {
			name := fmt.Sprintf("%s_%d", t.Name, k)
			def, _ := jsonrpc.Replace(t.Definition, "name", jsonrpc.Quote(name))
			out = append(out, toolsearch.Tool{Server: fmt.Sprintf("%s-%d", t.Server, k), Name: name, Definition: def})
		}
	}
	return out[:n]
}

// toolSearchDefs are the rows of the tool-search figure.
func (cfg Config) toolSearchDefs() []figDef {
	return []figDef{
		{"search.p50", fmt.Sprintf("search_tools over 1,000 tools, p50 of %d queries, in-process", cfg.SearchCalls), "µs",
			[]target{{on: "gateway", max: true, limit: 1000, text: "under 1 ms (SPEC §4.10)"}},
			"toolsearch.Index.Search and toolsearch.Result: the ranking and the result's bytes; the real set ×9 with distinct names (toolsearch.go)"},
		{"search.p99", fmt.Sprintf("search_tools over 1,000 tools, p99 of %d queries, in-process", cfg.SearchCalls), "µs", nil, ""},
		{"search.build", "Tool-search index of 1,000 tools, built once per list change, in-process", "ms", nil,
			"toolsearch.New; built when search mode first needs it after a list change, never per call"},
		{"search.list.tools", "Real tool set: tools of the pinned npm servers", "tools", nil, "codeapi/testdata/realtools.json"},
		{"search.list.all", "tools/list result, real set, every tool", "bytes", nil, "compacted definitions, as the servers send them"},
		{"search.list.search", "tools/list result, real set, search mode (search_tools, call_tool)", "bytes",
			[]target{{on: "gateway", max: true, limit: 2047, text: "under 2 KB (SPEC §4.10)"}}, ""},
	}
}
