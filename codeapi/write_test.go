package codeapi

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path"
	"path/filepath"
	"testing"
)

// TestWriterLinksWhatDidNotChange: a Writer's second tree, where one
// server's tools changed, links the other servers' files from the tree it
// replaces (the same inodes) and writes the changed ones anew; the old
// tree is gone once Wait returns, and nothing else is left beside the dir;
// the same list again writes nothing.
func TestWriterLinksWhatDidNotChange(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "code")
	in := synthetic(300)
	changed := synthetic(300)
	for i := range changed.Servers[0].Tools {
		changed.Servers[0].Tools[i].Definition = bytes.Replace(changed.Servers[0].Tools[i].Definition, []byte("Read the"), []byte("Read a"), 1)
	}
	w := &Writer{Dir: dir}
	if err := w.Write(in); err != nil {
		t.Fatal(err)
	}
	stat := func(p string) os.FileInfo {
		t.Helper()
		fi, err := os.Stat(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	kept, redone := "python/mcp_tools/server_1/tool_100_read_thing.py", "js/server_0/tool_5_read_thing.mjs"
	keptBefore, redoneBefore := stat(kept), stat(redone)
	if err := w.Write(changed); err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(keptBefore, stat(kept)) {
		t.Errorf("%s of an unchanged server was written again, not linked", kept)
	}
	if os.SameFile(redoneBefore, stat(redone)) {
		t.Errorf("%s of the changed server is the old file", redone)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, redone)); !bytes.Contains(b, []byte("Read a complete")) {
		t.Errorf("%s lacks the new description:\n%s", redone, b)
	}
	if err := w.Wait(); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 || entries[0].Name() != "code" {
		t.Errorf("beside the tree: %v, want only code", entries)
	}
	index := stat("INDEX.md")
	if err := w.Write(changed); err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(index, stat("INDEX.md")) || w.after != nil {
		t.Error("the same list again replaced the tree")
	}
}

// A write replaces only a code tree, an empty directory or nothing: a
// file, or a directory with other files in it (a run dir, a user's data,
// given as --code-dir or code --out by mistake), is left as it is and
// the write fails with ErrNotCodeTree (it used to be swapped out and
// removed, a token file or /dev/null among them).
func TestWriteReplacesOnlyACodeTree(t *testing.T) {
	parent := t.TempDir()
	in := synthetic(3)
	file := filepath.Join(parent, "token")
	if err := os.WriteFile(file, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(parent, "data")
	if err := os.MkdirAll(filepath.Join(data, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "precious.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{file, data} {
		if err := Write(dir, in); !errors.Is(err, ErrNotCodeTree) {
			t.Errorf("Write(%s) = %v, want ErrNotCodeTree", dir, err)
		}
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "secret" {
		t.Errorf("the file given as the dir: %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(data, "precious.txt")); err != nil || string(b) != "keep" {
		t.Errorf("the directory's file: %q, %v", b, err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 2 {
		t.Errorf("%d entries beside the refused dirs, want 2 (nothing left behind)", len(entries))
	}

	empty := filepath.Join(parent, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{empty, filepath.Join(parent, "new")} {
		if err := Write(dir, in); err != nil {
			t.Fatalf("Write(%s): %v", dir, err)
		}
		if err := Write(dir, synthetic(4)); err != nil { // a code tree, replaced
			t.Errorf("Write(%s) again: %v", dir, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "INDEX.md")); err != nil {
			t.Error(err)
		}
	}
}

// The names a generated function or module uses itself are no tool's or
// parameter's: a Python tool or parameter named locals shadowed the
// builtin its body calls (a recursion, or None called), and a JS tool
// named tool redeclared the module's const (node --check failed).
func TestIdentOfTheGeneratedCodesOwnNames(t *testing.T) {
	for name, want := range map[string]string{"locals": "locals_", "tool": "tool_", "call": "call_", "tools": "tools"} {
		if got := Ident(name); got != want {
			t.Errorf("Ident(%q) = %q, want %q", name, got, want)
		}
	}
}

// treeOf reads the tree at dir: every file's path (slashes) and bytes,
// and every directory as a path ending in "/".
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			got[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		got[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// filesOf is files as treeOf reads a tree.
func filesOf(files []File) map[string]string {
	m := map[string]string{}
	for _, f := range files {
		m[f.Path] = string(f.Data)
		for d := path.Dir(f.Path); d != "."; d = path.Dir(d) {
			m[d+"/"] = ""
		}
	}
	return m
}

// A Writer with Spare makes, after each write, a spare of the tree (the
// same inodes) and a pool of empty files beside it, and writes the next
// change into the spare: after any change (a server's tools reworded, a
// server gone, a new one, nothing left) the tree is exactly the one
// Generate lays out, an unchanged server's files keep their inodes, and
// Close leaves the tree alone in its parent. A spare removed behind the
// Writer's back gives a full write, not a failed one.
func TestWriterSpareWritesOnlyTheChange(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "code")
	w := &Writer{Dir: dir, Spare: true}
	in := synthetic(300)
	reworded := synthetic(300)
	for i := range reworded.Servers[0].Tools {
		reworded.Servers[0].Tools[i].Definition = bytes.Replace(reworded.Servers[0].Tools[i].Definition, []byte("Read the"), []byte("Read a"), 1)
	}
	swapped := synthetic(300)
	swapped.Servers[1] = synthetic(1000).Servers[7]
	swapped.Servers[2].Tools = swapped.Servers[2].Tools[:1]
	kept := "python/mcp_tools/server_2/tool_200_read_thing.py"
	var keptInode os.FileInfo
	for step, next := range []Input{in, reworded, swapped, in, {URL: in.URL, TokenFile: in.TokenFile}, swapped} {
		if err := w.Write(next); err != nil {
			t.Fatalf("write %d: %v", step, err)
		}
		if got, want := treeOf(t, dir), filesOf(Generate(next, dir)); !maps.Equal(got, want) {
			t.Fatalf("write %d: the tree differs from a fresh one: %d entries, want %d", step, len(got), len(want))
		}
		if err := w.Wait(); err != nil {
			t.Fatalf("after write %d: %v", step, err)
		}
		spare := filepath.Join(parent, ".code.spare")
		if got, want := treeOf(t, spare), treeOf(t, dir); !maps.Equal(got, want) {
			t.Fatalf("after write %d: the spare differs from the tree", step)
		}
		a, errA := os.Stat(filepath.Join(dir, "INDEX.md"))
		b, errB := os.Stat(filepath.Join(spare, "INDEX.md"))
		if errA != nil || errB != nil || !os.SameFile(a, b) {
			t.Errorf("after write %d: the spare's INDEX.md is not the tree's (%v, %v)", step, errA, errB)
		}
		if pooled, _ := os.ReadDir(filepath.Join(parent, ".code.pool")); len(pooled) < 64 {
			t.Errorf("after write %d: %d files in the pool, want at least 64", step, len(pooled))
		}
		if step < 2 {
			fi, err := os.Stat(filepath.Join(dir, kept))
			if err != nil {
				t.Fatal(err)
			}
			if step == 1 && !os.SameFile(keptInode, fi) {
				t.Errorf("write %d: %s of an unchanged server was written again", step, kept)
			}
			keptInode = fi
		}
	}
	if err := os.RemoveAll(filepath.Join(parent, ".code.spare")); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(reworded); err != nil {
		t.Fatalf("a write with the spare gone: %v", err)
	}
	if got, want := treeOf(t, dir), filesOf(Generate(reworded, dir)); !maps.Equal(got, want) {
		t.Fatal("with the spare gone: the tree differs from a fresh one")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 1 || entries[0].Name() != "code" {
		t.Errorf("beside the tree after Close: %v, want only code", entries)
	}
}
