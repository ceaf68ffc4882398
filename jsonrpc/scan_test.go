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

// Members skips strings of every length up to 24 bytes, with an escaped
// quote or backslash anywhere in them, as keys, as values and inside
// arrays and objects, as encoding/json reads them.
func TestMembersSkipStringsOfEveryLength(t *testing.T) {
	for n := range 24 {
		for at := range n + 1 {
			for _, esc := range []string{`\"`, `\\`, `\u0022`} {
				str := `"` + strings.Repeat("a", at) + esc + strings.Repeat("b", n-at) + `"`
				obj := `{` + str + `:1,"s":` + str + `,"a":[` + str + `,{"k":` + str + `}],"last":` + str + `}`
				var want map[string]json.RawMessage
				if err := json.Unmarshal([]byte(obj), &want); err != nil {
					t.Fatalf("%s: %v", obj, err)
				}
				got := map[string]json.RawMessage{}
				if err := Members([]byte(obj), func(k, v []byte) bool {
					var key string
					_ = json.Unmarshal(append(append([]byte(`"`), k...), '"'), &key)
					got[key] = v
					return true
				}); err != nil {
					t.Fatalf("Members(%s): %v", obj, err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("Members(%s) (-encoding/json +got):\n%s", obj, diff)
				}
			}
		}
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
		`"\ud800"`, `{"a" 1}`, `[[[[]]]]`, `"` + "\xff" + `"`, `{"a":{"b":[1,{"c":2}]},"d":"e"}`, `tru`, `nul`, `{"a":1}{}`, `[1 2]`, `"\q"`, `"\u12g4"`,
		`"a\"b\\"`, `"` + strings.Repeat("abcdefgh", 9) + `\"` + strings.Repeat("x", 40) + "\x1f" + `"`, `"` + strings.Repeat(`\n`, 40) + `"`} {
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

// SetMembers replaces, removes and adds members in one scan, and keeps
// every other byte, the space and the commas of the members kept too.
func TestSetMembers(t *testing.T) {
	tp, gone := Edit{Key: "tp", Value: []byte(`"new"`)}, Edit{Key: "ts"}
	for _, c := range []struct{ in, want string }{
		{`{}`, `{"tp":"new"}`},
		{` { } `, ` { "tp":"new"}`},
		{`{ "a": 1, "tp" : "old", "z":[2] }`, `{ "a": 1, "tp" : "new", "z":[2] }`},
		{`{"ts":"x", "a":1}`, `{"a":1,"tp":"new"}`},
		{`{"ts":"x","ts":"y" , "a":1}`, `{"a":1,"tp":"new"}`},
		{`{"a":1 , "ts":"x","b":2}`, `{"a":1,"b":2,"tp":"new"}`},
		{`{"a":1,"ts":"x"}`, `{"a":1,"tp":"new"}`},
		{`{"tp":"old","a":1,"tp":"dup"}`, `{"tp":"new","a":1}`},
		{`{"t\u0070":"old"}`, `{"t\u0070":"new"}`},
		{`{"ts":1}`, `{"tp":"new"}`},
	} {
		got, err := SetMembers([]byte(c.in), tp, gone)
		if err != nil || string(got) != c.want {
			t.Errorf("SetMembers(%s) = %s, %v; want %s", c.in, got, err, c.want)
		}
		if !json.Valid(got) {
			t.Errorf("SetMembers(%s) = %s: not JSON", c.in, got)
		}
	}
	if _, err := SetMembers([]byte(`[1]`), tp); err == nil {
		t.Error("SetMembers on an array did not fail")
	}
}

// FuzzSetMembers: on any JSON object, SetMembers keeps the JSON valid,
// the replaced key holds its value once, the removed one is gone, and
// every other member is as it was.
func FuzzSetMembers(f *testing.F) {
	f.Add([]byte(`{"a":1,"tp":"x","ts":[{"tp":2}],"ts":3}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"ts":1, "ts":2}`))
	f.Fuzz(func(t *testing.T, obj []byte) {
		var before map[string]json.RawMessage
		if json.Unmarshal(obj, &before) != nil {
			return
		}
		out, err := SetMembers(obj, Edit{Key: "tp", Value: []byte(`"new"`)}, Edit{Key: "ts"})
		if err != nil {
			t.Fatalf("SetMembers(%q): %v", obj, err)
		}
		var after map[string]json.RawMessage
		if err := json.Unmarshal(out, &after); err != nil {
			t.Fatalf("SetMembers(%q) = %q: %v", obj, out, err)
		}
		n := 0
		_ = Members(out, func(k, _ []byte) bool {
			if KeyIs(k, "tp") {
				n++
			}
			return true
		})
		if n != 1 || string(after["tp"]) != `"new"` {
			t.Fatalf("SetMembers(%q) = %q: tp %d times", obj, out, n)
		}
		if _, ok := after["ts"]; ok {
			t.Fatalf("SetMembers(%q) = %q: ts kept", obj, out)
		}
		delete(before, "tp")
		delete(before, "ts")
		delete(after, "tp")
		if diff := cmp.Diff(before, after); diff != "" {
			t.Fatalf("SetMembers(%q) = %q: other members (-before +after):\n%s", obj, out, diff)
		}
		// Within an object, the same edit, and not a byte around it moves.
		outer := []byte(` {"a":[1], "_meta":` + string(obj) + ` , "z":2} `)
		start := len(` {"a":[1], "_meta":`)
		in, err := SetMembersIn(outer, start, start+len(obj), Edit{Key: "tp", Value: []byte(`"new"`)}, Edit{Key: "ts"})
		if want := ` {"a":[1], "_meta":` + string(out) + ` , "z":2} `; err != nil || string(in) != want {
			t.Fatalf("SetMembersIn(%q) = %q (%v), want %q", outer, in, err, want)
		}
	})
}

// BenchmarkValidEscapes is a long string of escapes: each one passes the
// quote found before it, and the search for the next one starts after it.
func BenchmarkValidEscapes(b *testing.B) {
	msg := []byte(`{"m":"` + strings.Repeat(`a\"b\n`, 1<<18) + `"}`)
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if !Valid(msg) {
			b.Fatal("not valid")
		}
	}
}

// BenchmarkValidLongString is what an 8 MiB argument costs Valid: one
// string of plain content, with a few escapes near its end.
func BenchmarkValidLongString(b *testing.B) {
	msg := []byte(`{"arguments":{"message":"` + strings.Repeat("abcdefgh", 1<<20) + `\n\"é\u00e9"}}`)
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if !Valid(msg) {
			b.Fatal("not valid")
		}
	}
}

func TestValue(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1,"k":"v"}`: `"v"`,
		`{"k":1,"k":[2]}`: `[2]`, // the last, as Member reads it
		`{"a":1}`:         ``,
		`[{"k":1}]`:       ``,
		``:                ``,
		`{"\u006b":true}`: `true`,
	} {
		if got := string(Value([]byte(in), "k")); got != want {
			t.Errorf("Value(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestTrimLeft(t *testing.T) {
	for in, want := range map[string]string{" \t\r\n{}": "{}", "[1] ": "[1] ", "   ": "", "": "", "\u00a0x": "\u00a0x"} {
		if got := string(TrimLeft([]byte(in))); got != want {
			t.Errorf("TrimLeft(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsNull(t *testing.T) {
	for raw, want := range map[string]bool{
		"null": true, " null\n": true, "\tnull ": true,
		"": false, "nul": false, "nullx": false, `"null"`: false, "null x": false, "{}": false,
	} {
		if got := IsNull([]byte(raw)); got != want {
			t.Errorf("IsNull(%q) = %v, want %v", raw, got, want)
		}
	}
}

// KeyFolds says which keys a server decoding with encoding/json reads as
// the name (it matches them under case folding, ſ and K included) though
// they are not the name itself.
func TestKeyFolds(t *testing.T) {
	for _, c := range []struct {
		raw, name string
		want      bool
	}{
		{`_meta`, "_meta", false},
		{`_m\u0065ta`, "_meta", false}, // the name itself, escaped
		{`_META`, "_meta", true},
		{`_Meta`, "_meta", true},
		{`_M\u0045TA`, "_meta", true},
		{`PROGRESSTOKEN`, "progressToken", true},
		{`progre\u017f\u017fToken`, "progressToken", true}, // ſ folds to s
		{"progreſſToken", "progressToken", true},
		{"\u212Aey", "key", true}, // the Kelvin sign folds to k
		{`_metas`, "_meta", false},
		{`meta`, "_meta", false},
		{`\u00`, "_meta", false}, // does not decode
	} {
		if got := KeyFolds([]byte(c.raw), c.name); got != c.want {
			t.Errorf("KeyFolds(%q, %q) = %v, want %v", c.raw, c.name, got, c.want)
		}
	}
}
