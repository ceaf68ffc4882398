package toolsearch

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// With no hits, search_tools' text echoes the query (and the server, if
// given), so that an agent sees what it asked (SPEC §4.10).
func TestResultNoMatchEchoesQuery(t *testing.T) {
	ix := New(realSet(t))
	for _, c := range []struct {
		q    Query
		want string
	}{
		{Query{Text: "frobnicate the zorblax"}, `No tool matches "frobnicate the zorblax".`},
		{Query{Text: "frobnicate", Server: "slack"}, `No tool of server "slack" matches "frobnicate".`},
		{Query{Text: "post a message", Server: "nope"}, `No tool of server "nope" matches "post a message".`},
	} {
		hits := ix.Search(c.q)
		if len(hits) != 0 {
			t.Fatalf("%+v: %d hits, want none", c.q, len(hits))
		}
		var r struct {
			Content []struct{ Text string } `json:"content"`
		}
		if err := json.Unmarshal(Result(c.q, hits), &r); err != nil || len(r.Content) != 1 {
			t.Fatalf("%+v: result %s (%v)", c.q, Result(c.q, hits), err)
		}
		if !strings.HasPrefix(r.Content[0].Text, c.want) {
			t.Errorf("%+v: text %q, want it to start %q", c.q, r.Content[0].Text, c.want)
		}
	}
}

// TestSearchArgsRefusesALongQuery: a query of more than MaxQuery
// characters (counted as characters, not bytes) is invalid params, so
// that one request cannot hold a core for seconds; MaxQuery is fine.
func TestSearchArgsRefusesALongQuery(t *testing.T) {
	for _, c := range []struct {
		query string
		ok    bool
	}{
		{strings.Repeat("a", MaxQuery), true},
		{strings.Repeat("é", MaxQuery), true},
		{strings.Repeat("a", MaxQuery+1), false},
		{strings.Repeat("open a PR ", 1<<17), false},
	} {
		args, _ := json.Marshal(map[string]string{"query": c.query})
		_, err := SearchArgs(args)
		if ok := err == nil; ok != c.ok || !ok && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "at most 1000")) {
			t.Errorf("query of %d bytes: error %v, want ok %v", len(c.query), err, c.ok)
		}
	}
}
