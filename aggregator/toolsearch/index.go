package toolsearch

import (
	"encoding/json"
	"math"
	"strings"
)

// Tool is one exported tool, as the registry lists it.
type Tool struct {
	Server string // the server that owns it
	Name   string // its exported name (SPEC §4.1, §4.2)
	// Definition is the tool as tools/list gives it, exported name and
	// all (SPEC §4.4); search_tools returns these bytes unchanged.
	Definition json.RawMessage
}

// The fields of a tool that are indexed (doc.go).
const (
	fieldName = iota
	fieldTitle
	fieldServer
	fieldDesc
	fieldParamName
	fieldParamDesc
	fieldHint
	nFields
)

// readOnly is the term of a tool whose annotations say readOnlyHint
// (MCP 2025-06-18, tool annotations): words never give it, so only a
// query's hint (related.go, a question) finds it.
const readOnly = "\x00read-only"

// weight is how much a word counts in each field (doc.go); read only.
var weight = [nFields]float64{fieldName: 3, fieldTitle: 2, fieldServer: 1, fieldDesc: 1, fieldParamName: 1.5, fieldParamDesc: 0.5, fieldHint: 1}

const (
	k1 = 1.2  // BM25's saturation of a term's count
	b  = 0.75 // BM25F's length normalization, the same in every field

	maxSchemaDepth = 4
)

// posting is one tool's weighted, length-normalized count of one term.
type posting struct {
	tool int32
	tf   float32
}

// Index is the search index of one merged tool list. It is built once
// per list (New) and read-only after: safe for concurrent Search.
type Index struct {
	tools    []Tool
	terms    map[string][]posting // postings in tool order
	idf      map[string]float64
	byName   map[string]int
	servers  []string // in order of first appearance
	firstOf  map[string]int
	perTools []int // tools per server, in servers order
}

// New indexes tools, which must be in server order (SPEC §4.1): ties in
// Search keep this order. A definition that is not a JSON object is
// indexed by its name and server only. New keeps tools; the caller must
// not change them after.
func New(tools []Tool) *Index {
	ix := &Index{
		tools:   tools,
		terms:   map[string][]posting{},
		byName:  make(map[string]int, len(tools)),
		firstOf: map[string]int{},
	}
	type count struct {
		tool int32
		tf   [nFields]float32
	}
	counts := map[string][]count{}
	lengths := make([][nFields]float64, len(tools))
	var total [nFields]float64
	var scratch []string
	cache := map[string]string{}
	for i, t := range tools {
		add := func(text string, field int) {
			scratch = foldWords(scratch[:0], text, cache)
			for _, term := range scratch {
				cs := counts[term]
				if len(cs) == 0 || cs[len(cs)-1].tool != int32(i) {
					cs = append(cs, count{tool: int32(i)})
				}
				cs[len(cs)-1].tf[field]++
				counts[term] = cs
			}
			lengths[i][field] += float64(len(scratch))
		}
		add(t.Name, fieldName)
		add(t.Server, fieldServer)
		var def definition
		if json.Unmarshal(t.Definition, &def) == nil {
			add(def.Title, fieldTitle)
			if def.Annotations.Title != def.Title {
				add(def.Annotations.Title, fieldTitle)
			}
			add(def.Description, fieldDesc)
			walkSchema(def.InputSchema, 0, add)
			if def.Annotations.ReadOnlyHint {
				cs := counts[readOnly]
				cs = append(cs, count{tool: int32(i)})
				cs[len(cs)-1].tf[fieldHint]++
				counts[readOnly] = cs
				lengths[i][fieldHint]++
			}
		}
		for f := range nFields {
			total[f] += lengths[i][f]
		}
		if _, dup := ix.byName[t.Name]; !dup {
			ix.byName[t.Name] = i
		}
		if _, seen := ix.firstOf[t.Server]; !seen {
			ix.firstOf[t.Server] = len(ix.servers)
			ix.servers = append(ix.servers, t.Server)
			ix.perTools = append(ix.perTools, 0)
		}
		ix.perTools[ix.firstOf[t.Server]]++
	}
	// BM25F: each field's count is weighted and divided by that field's
	// length normalization, then summed; Search saturates the sum.
	var norm [nFields][]float64
	for f := range nFields {
		avg := 1.0
		if total[f] > 0 {
			avg = total[f] / float64(len(tools))
		}
		norm[f] = make([]float64, len(tools))
		for i := range tools {
			norm[f][i] = weight[f] / (1 - b + b*lengths[i][f]/avg)
		}
	}
	n := float64(len(tools))
	ix.idf = make(map[string]float64, len(counts))
	for term, cs := range counts {
		ps := make([]posting, len(cs))
		for j, c := range cs {
			var tf float64
			for f := range nFields {
				tf += float64(c.tf[f]) * norm[f][c.tool]
			}
			ps[j] = posting{c.tool, float32(tf)}
		}
		ix.terms[term] = ps
		df := float64(len(ps))
		ix.idf[term] = math.Log(1 + (n-df+0.5)/(df+0.5))
	}
	return ix
}

// Len returns the number of tools indexed.
func (ix *Index) Len() int { return len(ix.tools) }

// Servers returns the servers that own the tools, in server order, and
// how many tools each has.
func (ix *Index) Servers() (names []string, tools []int) { return ix.servers, ix.perTools }

// definition is what the index reads of a tool.
type definition struct {
	Title       string `json:"title"`
	Description string `json:"description"`
	Annotations struct {
		Title        string `json:"title"`
		ReadOnlyHint bool   `json:"readOnlyHint"`
	} `json:"annotations"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// schema is what the index reads of a JSON Schema.
type schema struct {
	Description string                     `json:"description"`
	Title       string                     `json:"title"`
	Properties  map[string]json.RawMessage `json:"properties"`
	Items       json.RawMessage            `json:"items"`
	AnyOf       []json.RawMessage          `json:"anyOf"`
	OneOf       []json.RawMessage          `json:"oneOf"`
	AllOf       []json.RawMessage          `json:"allOf"`
}

// walkSchema adds the parameter names and descriptions of raw, a JSON
// Schema, to the tool's counts, down to maxSchemaDepth. Map order does
// not matter: counts have none.
func walkSchema(raw json.RawMessage, depth int, add func(string, int)) {
	if depth > maxSchemaDepth || len(raw) == 0 || raw[0] != '{' {
		return
	}
	var s schema
	if json.Unmarshal(raw, &s) != nil {
		return
	}
	if depth > 0 {
		add(s.Description, fieldParamDesc)
		if s.Title != s.Description {
			add(s.Title, fieldParamDesc)
		}
	}
	for name, sub := range s.Properties {
		add(name, fieldParamName)
		walkSchema(sub, depth+1, add)
	}
	walkSchema(s.Items, depth+1, add)
	for _, list := range [][]json.RawMessage{s.AnyOf, s.OneOf, s.AllOf} {
		for _, sub := range list {
			walkSchema(sub, depth+1, add)
		}
	}
}

// firstLine is the first non-empty line of s, trimmed, cut at 160 bytes
// on a rune boundary with "…".
func firstLine(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			if len(line) > 160 {
				cut := 160
				for cut > 0 && line[cut]&0xC0 == 0x80 {
					cut--
				}
				line = strings.TrimSpace(line[:cut]) + "…"
			}
			return line
		}
	}
	return ""
}
