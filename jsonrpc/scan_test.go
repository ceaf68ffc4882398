package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMembersAndReplace(t *testing.T) {
	obj := []byte(` { "b" : [1, {"x":"}"}], "a\u0062":"q\"}", "n":9007199254740993 , "e":{} } `)
	var keys []string
	if err := Members(obj, func(k, v []byte) bool { keys = append(keys, string(k)+"="+string(v)); return true }); err != nil {
		t.Fatal(err)
	}
	want := []string{`b=[1, {"x":"}"}]`, `a\u0062="q\"}"`, `n=9007199254740993`, `e={}`}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("members (-want +got):\n%s", diff)
	}
	if v, ok := Member(obj, "ab"); !ok || string(v) != `"q\"}"` {
		t.Errorf("Member with an escaped key: %s %v", v, ok)
	}
	got, err := Replace(obj, "n", []byte(`"x"`))
	if err != nil || string(got) != ` { "b" : [1, {"x":"}"}], "a\u0062":"q\"}", "n":"x" , "e":{} } ` {
		t.Errorf("Replace: %s %v", got, err)
	}
	for in, want := range map[string]string{`{}`: `{"k":1}`, ` { } `: ` { "k":1}`, `{"a":2}`: `{"a":2,"k":1}`} {
		if got, _ := Replace([]byte(in), "k", []byte("1")); string(got) != want {
			t.Errorf("Replace into %s = %s, want %s", in, got, want)
		}
	}
	if _, err := Replace([]byte(`[1]`), "k", []byte("1")); err == nil {
		t.Error("Replace into an array did not fail")
	}
}

// FuzzReplace: on any JSON object, Replace keeps the JSON valid, and the
// member then holds the new value.
func FuzzReplace(f *testing.F) {
	f.Add([]byte(`{"a":1,"name":"x","b":[{"name":2}]}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"n\u0061me":"\"}"}`))
	f.Fuzz(func(t *testing.T, obj []byte) {
		var m map[string]json.RawMessage
		if json.Unmarshal(obj, &m) != nil {
			return
		}
		out, err := Replace(obj, "name", []byte(`"new"`))
		if err != nil {
			t.Fatalf("Replace(%q): %v", obj, err)
		}
		var after map[string]json.RawMessage
		if err := json.Unmarshal(out, &after); err != nil || string(after["name"]) != `"new"` {
			t.Fatalf("Replace(%q) = %q (%v)", obj, out, err)
		}
		if v, ok := Member(out, "name"); !ok || string(v) != `"new"` {
			t.Fatalf("Member after Replace(%q): %q", obj, v)
		}
	})
}

// FuzzValid holds Valid to encoding/json's answer.
func FuzzValid(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, ` {"a":[1,-0.5e+3,"x\u00e9\n",true,false,null,{}]} `, `{"a":1,}`, `[1,]`, `01`, `-`, `1.`, `1e`, `"\x01"`,
		`"\ud800"`, `{"a" 1}`, `[[[[]]]]`, `"` + "\xff" + `"`, `{"a":{"b":[1,{"c":2}]},"d":"e"}`, `tru`, `nul`, `{"a":1}{}`, `[1 2]`, `"\q"`, `"\u12g4"`} {
		f.Add([]byte(s))
	}
	for _, n := range []int{9999, 10000, 10001} {
		deep := strings.Repeat("[", n) + strings.Repeat("]", n)
		if got, want := Valid([]byte(deep)), json.Valid([]byte(deep)); got != want {
			f.Errorf("Valid of %d nested arrays = %v, encoding/json says %v", n, got, want)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", b, got, want)
		}
	})
}
