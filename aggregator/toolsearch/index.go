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

// Field weights: how much a word counts where it is found (doc.go).
const (
	weightName      = 3
	weightTitle     = 2
	weightServer    = 1
	weightDesc      = 1
	weightParamName = 1.5
	weightParamDesc = 0.5

	k1 = 1.2
	b  = 0.75

	maxSchemaDepth = 4
)

// posting is one tool's weighted count of one term.
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
	norm     []float32 // per tool: k1 × (1 − b + b × len/avglen)
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
		norm:    make([]float32, len(tools)),
		byName:  make(map[string]int, len(tools)),
		firstOf: map[string]int{},
	}
	lengths := make([]float64, len(tools))
	var total float64
	bag := map[string]float64{}
	var scratch []string
	cache := map[string]string{}
	for i, t := range tools {
		clear(bag)
		add := func(text string, w float64) {
			scratch = foldWords(scratch[:0], text, cache)
			for _, term := range scratch {
				bag[term] += w
				lengths[i] += w
			}
		}
		add(t.Name, weightName)
		add(t.Server, weightServer)
		var def definition
		if json.Unmarshal(t.Definition, &def) == nil {
			add(def.Title, weightTitle)
			if def.Annotations.Title != def.Title {
				add(def.Annotations.Title, weightTitle)
			}
			add(def.Description, weightDesc)
			walkSchema(def.InputSchema, 0, add)
		}
		for term, tf := range bag {
			ix.terms[term] = append(ix.terms[term], posting{int32(i), float32(tf)})
		}
		total += lengths[i]
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
	avg := 1.0
	if len(tools) > 0 && total > 0 {
		avg = total / float64(len(tools))
	}
	for i := range tools {
		ix.norm[i] = float32(k1 * (1 - b + b*lengths[i]/avg))
	}
	n := float64(len(tools))
	ix.idf = make(map[string]float64, len(ix.terms))
	for term, ps := range ix.terms {
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
		Title string `json:"title"`
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
// Schema, to the bag, down to maxSchemaDepth. Map order does not matter:
// a bag has none.
func walkSchema(raw json.RawMessage, depth int, add func(string, float64)) {
	if depth > maxSchemaDepth || len(raw) == 0 || raw[0] != '{' {
		return
	}
	var s schema
	if json.Unmarshal(raw, &s) != nil {
		return
	}
	if depth > 0 {
		add(s.Description, weightParamDesc)
		if s.Title != s.Description {
			add(s.Title, weightParamDesc)
		}
	}
	for name, sub := range s.Properties {
		add(name, weightParamName)
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
