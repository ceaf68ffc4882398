package codeapi

import (
	"bytes"
	"os"
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
	if !os.SameFile(index, stat("INDEX.md")) || w.removing != nil {
		t.Error("the same list again replaced the tree")
	}
}
