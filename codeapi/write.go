package codeapi

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
)

// Modes of the tree: readable (and the directories searchable) by every
// user, written by the daemon's only (SPEC §12.1).
const (
	dirMode  os.FileMode = 0o755
	fileMode os.FileMode = 0o644
)

var seq atomic.Uint64

// Write generates the tree for in and puts it at dir, replacing what is
// there atomically (SPEC §12.1): the new tree is written beside dir
// (dir's parent must exist and be writable), then takes dir's place in
// one rename, and the old tree is removed. A reader sees the old tree or
// the new one, never a mix. Calls for one dir must not overlap.
func Write(dir string, in Input) error {
	w := &Writer{Dir: dir}
	return errors.Join(w.Write(in), w.Wait())
}

// Writer writes the tree at one dir, again at every change (the daemon's
// code mode). It remembers what it wrote: a file whose bytes are the same
// as in the tree it replaces is hard-linked from that tree instead of
// written again, and it keeps each tool's rendering, so that a change of
// one server's tools renders that server's tools only.
//
// With Spare set (the daemon's writer), it also keeps beside Dir a second
// copy of the tree, ".<base>.spare", whose files are hard links to the
// tree's, and a pool of empty files, ".<base>.pool": a write then puts
// only the files whose bytes changed into the spare (each into an empty
// file of the pool: on a slow disk a new inode costs most of a
// millisecond, a write into an empty one a tenth of that), and swaps it
// with the tree. Its cost is that of the change, not of the tree's 3
// files per tool. After a write, on a goroutine of its own, the tree it
// replaced is removed, or with Spare updated by links to be the spare
// again, and the pool refilled; the next write, Wait and Close wait for
// that work. Close removes the spare and the pool. A Writer's methods
// must not be called concurrently.
type Writer struct {
	Dir   string
	Spare bool
	prev  map[string][]byte // the tree at Dir as this Writer wrote it: path → bytes
	cache renderCache       // the tools of the last generation, read and rendered
	after chan error        // the work after the last write, if one runs
	ready bool              // the spare is a link copy of the tree prev describes
	pool  pool              // the empty files
}

// Wait waits until the work after the last write is done (the replaced
// tree removed, or the spare and the pool brought up to date), and
// returns its error. Call Close, or Wait, before the Writer is dropped.
func (w *Writer) Wait() error {
	if w.after == nil {
		return nil
	}
	err := <-w.after
	w.after = nil
	return err
}

// Close waits as Wait does, then removes the spare and the pool (the
// tree stays). The Writer may write again after it, from a full write.
func (w *Writer) Close() error {
	err := w.Wait()
	if !w.Spare {
		return err
	}
	w.ready = false
	dir := filepath.Clean(w.Dir)
	return errors.Join(err, removeAll(beside(dir, "spare")), w.pool.remove())
}

// background runs work after a write, on a goroutine that Wait waits for.
func (w *Writer) background(work func() error) {
	done := make(chan error, 1)
	w.after = done
	go func() { done <- work() }() // received by Wait
}

// Write generates the tree for in and puts it at w.Dir (see Write). A
// tool whose server, name and definition are those of the last Write is
// not rendered again: a change of one server's tools renders that
// server's.
func (w *Writer) Write(in Input) error {
	dir := filepath.Clean(w.Dir)
	files, cache := generate(in, dir, w.cache)
	w.cache = cache // renderings do not depend on the write's outcome
	return w.WriteFiles(files)
}

// WriteFiles puts files at w.Dir as Write does. An error of the work
// after an earlier write (see Wait) is returned here, once this write is
// done.
func (w *Writer) WriteFiles(files []File) error {
	after := w.Wait()
	return errors.Join(w.writeFiles(files), after)
}

func (w *Writer) writeFiles(files []File) error {
	dir := filepath.Clean(w.Dir)
	if w.same(files) {
		return nil // the tree at dir is this one already
	}
	if err := replaceable(dir); err != nil {
		return err
	}
	if w.Spare && w.ready {
		err := w.writeSpare(dir, files)
		if !errors.Is(err, errSpare) {
			return err
		}
		// Changed behind this Writer's back (removed, or a file in it
		// made a directory): the tree at dir is as it was, and a full
		// write below makes the spare again after it.
	}
	parent, base := filepath.Split(dir)
	if parent == "" {
		parent = "."
	}
	tag := strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(seq.Add(1), 10)
	tmp := filepath.Join(parent, "."+base+".new-"+tag)
	if err := writeTree(tmp, dir, files, w.prev); err != nil {
		w.prev = nil
		return errors.Join(fmt.Errorf("write code tree: %w", err), os.RemoveAll(tmp))
	}
	old, err := swap(tmp, dir)
	if err != nil {
		w.prev = nil
		return errors.Join(fmt.Errorf("replace code tree %s: %w", dir, err), os.RemoveAll(tmp))
	}
	w.prev = pathsOf(files)
	switch {
	case w.Spare:
		w.background(func() error {
			err := errors.Join(removeAll(old), w.makeSpare(dir, files))
			w.ready = err == nil
			return err
		})
	case old != "":
		// Off the way of the next change: the new tree is in place.
		w.background(func() error { return removeAll(old) })
	}
	return nil
}

// pathsOf maps files' paths to their bytes.
func pathsOf(files []File) map[string][]byte {
	m := make(map[string][]byte, len(files))
	for _, f := range files {
		m[f.Path] = f.Data
	}
	return m
}

// removeAll removes the tree at dir ("" is none), saying which.
func removeAll(dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove old code tree: %w", err)
	}
	return nil
}

// ErrNotCodeTree is the error of a write to a dir that holds something
// else than a code tree: a file, a device, or a directory with files in it
// but no INDEX.md and gateway.json. The write replaces only a code tree,
// an empty directory, or nothing: it never removes what it did not write
// (a run dir, a token file, a user's files, given as --code-dir or
// code --out by mistake).
var ErrNotCodeTree = errors.New("not a code tree")

// replaceable reports, as an error wrapping ErrNotCodeTree, why the tree
// at dir may not be replaced; nil when it may.
func replaceable(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("replace code tree %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("replace code tree %s: %w: it is not a directory (%s); choose another path", dir, ErrNotCodeTree, fi.Mode().Type())
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("replace code tree %s: %w", dir, err)
	}
	if len(entries) == 0 {
		return nil
	}
	for _, marker := range []string{"INDEX.md", "gateway.json"} {
		if fi, err := os.Lstat(filepath.Join(dir, marker)); err != nil || !fi.Mode().IsRegular() {
			return fmt.Errorf("replace code tree %s: %w: the directory holds files but no %s, so the gateway did not write it; empty it or choose another path", dir, ErrNotCodeTree, marker)
		}
	}
	return nil
}

// same reports whether files are the tree this Writer wrote last, and
// that tree is still there.
func (w *Writer) same(files []File) bool {
	if w.prev == nil || len(files) != len(w.prev) {
		return false
	}
	for _, f := range files {
		if old, ok := w.prev[f.Path]; !ok || !bytes.Equal(old, f.Data) {
			return false
		}
	}
	_, err := os.Stat(filepath.Join(w.Dir, "INDEX.md"))
	return err == nil
}

// writeTree writes files under root, which must not exist yet, linking
// those whose bytes prev holds from the tree at cur.
func writeTree(root, cur string, files []File, prev map[string][]byte) error {
	strict := umaskStrips()
	if err := makeDir(root, strict); err != nil {
		return err
	}
	return changeOf(nil, files).apply(root, strict, func(_ int, f File, name string) error {
		if old, ok := prev[f.Path]; ok && bytes.Equal(old, f.Data) {
			if os.Link(filepath.Join(cur, filepath.FromSlash(f.Path)), name) == nil {
				return nil
			}
		}
		if err := os.WriteFile(name, f.Data, fileMode); err != nil {
			return err
		}
		if strict {
			return os.Chmod(name, fileMode)
		}
		return nil
	})
}

// makeDir makes the directory d with dirMode, whatever the umask.
func makeDir(d string, strict bool) error {
	if err := os.Mkdir(d, dirMode); err != nil {
		return err
	}
	if strict {
		return os.Chmod(d, dirMode)
	}
	return nil
}

// umaskStrips reports whether the process umask would take a read or
// search bit from the tree's modes (then every file is chmod-ed after
// it is made). It reads /proc/self/status, and assumes so where it
// cannot.
func umaskStrips() bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return true
	}
	_, rest, ok := bytes.Cut(b, []byte("\nUmask:"))
	if !ok {
		return true
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	mask, err := strconv.ParseUint(string(bytes.TrimSpace(line)), 8, 32)
	return err != nil || os.FileMode(mask)&0o755&^0o200 != 0
}
