package jsonrpc

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// listed is what a reader of members (Members, Index.Each) gives: each
// key and value, in order.
func listed(each func(func(k, v []byte) bool) error) ([]string, error) {
	var got []string
	err := each(func(k, v []byte) bool {
		got = append(got, string(k), string(v))
		return true
	})
	return got, err
}

// The validation that holds a message's params in an Index gives
// ValidEnvelope's verdict and envelope, and the Index then gives what
// Members gives of the params, member for member, with no scan when it
// holds them all; a copy of the params, or params of more members than it
// holds, is scanned.
func FuzzIndexedEnvelope(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		` { "params" : { "a" : 1 , "b\u0041" : [ {} , "x" ] , "c":{"d":{}} } , "id" : 2 } `,
		`{"params":{}}`,
		`{"params":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}}`,
		`{"params":{"a":1,"a":2,"_meta":{"progressToken":"p"},"task":{}}}`,
		`{"params":[1,2]}`,
		`{"params":{"a":}}`,
		`{"params":{"a":1},"params":{"b":2}}`,
		`{"params":{"a":1}} x`,
		`{"params":{"a":[` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `]}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		trimmed := bytes.Trim(msg, " \t\r\n")
		want, wantOK := ValidEnvelope(trimmed)
		var x Index
		got, ok := ValidEnvelopeIndexed(trimmed, nil, 0, &x)
		if ok != wantOK || !cmp.Equal(got, want) {
			t.Fatalf("%q: ValidEnvelopeIndexed = %v %q, ValidEnvelope = %v %q", msg, ok, got, wantOK, want)
		}
		if !ok || len(got.Params) == 0 || got.Params[0] != '{' {
			if x.obj != nil {
				t.Fatalf("%q: an Index of params that are not an object", msg)
			}
			return
		}
		wantMembers, err := listed(func(fn func(k, v []byte) bool) error { return Members(got.Params, fn) })
		if err != nil {
			t.Fatalf("%q: Members of valid params: %v", msg, err)
		}
		gotMembers, _ := listed(func(fn func(k, v []byte) bool) error { return x.Each(got.Params, fn) })
		if !cmp.Equal(gotMembers, wantMembers) {
			t.Fatalf("%q: Index.Each = %q, Members = %q", msg, gotMembers, wantMembers)
		}
		if held := len(wantMembers)/2 <= maxIndexed; x.holds(got.Params) != held {
			t.Fatalf("%q: holds %v its %d members, want %v", msg, !held, len(wantMembers)/2, held)
		}
		other := bytes.Clone(got.Params)
		if x.holds(other) {
			t.Fatalf("%q: the Index holds a copy of the params", msg)
		}
		if gotMembers, _ := listed(func(fn func(k, v []byte) bool) error { return x.Each(other, fn) }); !cmp.Equal(gotMembers, wantMembers) {
			t.Fatalf("%q: Index.Each of a copy = %q, Members = %q", msg, gotMembers, wantMembers)
		}
	})
}
