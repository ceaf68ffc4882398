// Package toolsearch owns tool search (SPEC §4.10): the index of the
// exported tools that search_tools ranks, the ranking, what search_tools
// returns, and the definitions of the gateway's own two tools,
// search_tools and call_tool. It is a leaf: plain values in (each
// tool's server, exported name and definition, in server order), ranked
// tools out; the registry builds an Index whenever the merged list
// changes (SPEC §4.5) and the handlers call Search.
//
// Ranking is BM25F (k1 1.2, b 0.75) over the fields of each tool: the
// exported name split into words (at `_ - .`, spaces and camelCase;
// weight 3), the title (2), the server's name (1), the description (1),
// and the parameters' names (1.5) and descriptions (0.5), walked through
// properties, items, and anyOf/oneOf/allOf to a depth of 4. A word's
// count in a field is weighted and divided by that field's length
// against its average over the tools, then the fields are summed and
// saturated once: a long description or a long list of parameters
// weakens only its own field, not a match in the name. Words are lowercased, English stop words dropped, and
// endings folded by the Snowball English stemmer (Porter2,
// github.com/kljensen/snowball), with a few verb/noun stems it leaves
// apart joined (creation/create), the same way for the query. Each word
// of the query brings its related words (related.go: "PR" → pull
// request, "find" → search) at a lower weight, and the word and its
// related words score as one group: its best match in full, the others
// at half, so that a word with many related words does not outweigh one
// with none. Names in a query (facebook/react, notes.txt) bring no
// related words. A query's form implies words too (hints.go: "file" for
// notes.txt, "time" for "when …", "get" for "PR 3001"), and a question
// leans to the tools that read, those annotated readOnlyHint among them.
// A query that is exactly a tool's exported name
// puts it first. Ties keep server order, so the ranking is
// deterministic.
//
// The library question: blevesearch/bleve v2.6.3 was measured against
// this scorer on 1,000 tools (the reference servers' 105 real
// definitions, ×10 with distinct names) on a 2-core machine: bleve added
// 12.6 MB to a stripped binary, built its in-memory index in 1.5–1.7 s,
// and answered in a p50 of 165–240 µs (p99 6–12 ms); this package adds
// its own code and the stemmer (124 KiB stripped), and its figures are in
// BenchmarkSearchTools. The index is rebuilt on every list change, so
// the build time decided it.
package toolsearch
