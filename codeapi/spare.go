package codeapi

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// beside is the path of the Writer's own directory what (spare, pool)
// beside the tree at dir: ".<base>.<what>" in dir's parent.
func beside(dir, what string) string {
	parent, base := filepath.Split(dir)
	return filepath.Join(parent, "."+base+"."+what)
}

// change is what turns one tree into another: the directories to make
// (parents first), the files to put (new, or with other bytes), the files
// to remove, then the directories to remove (children first).
type change struct {
	mkdirs []string
	put    []File
	remove []string
	rmdirs []string
}

// changeOf is the change from the tree prev (path → bytes) to files.
func changeOf(prev map[string][]byte, files []File) change {
	var c change
	now := make(map[string]bool, len(files))
	nowDirs, prevDirs := map[string]bool{}, map[string]bool{}
	for _, f := range files {
		now[f.Path] = true
		dirsOf(f.Path, nowDirs)
		if old, ok := prev[f.Path]; !ok || string(old) != string(f.Data) {
			c.put = append(c.put, f)
		}
	}
	for p := range prev {
		dirsOf(p, prevDirs)
		if !now[p] {
			c.remove = append(c.remove, p)
		}
	}
	for d := range nowDirs {
		if !prevDirs[d] {
			c.mkdirs = append(c.mkdirs, d)
		}
	}
	for d := range prevDirs {
		if !nowDirs[d] {
			c.rmdirs = append(c.rmdirs, d)
		}
	}
	slices.Sort(c.mkdirs) // a parent sorts before its children
	slices.Sort(c.remove)
	slices.Sort(c.rmdirs)
	slices.Reverse(c.rmdirs)
	return c
}

// dirsOf adds the directories above the file p (slashes) to set.
func dirsOf(p string, set map[string]bool) {
	for d := path.Dir(p); d != "." && !set[d]; d = path.Dir(d) {
		set[d] = true
	}
}

// apply makes c under root, putting each file with put(i, f, its path
// on disk), i its index in c.put: on several goroutines when there are
// many (each waited for here; on a slow disk a file's metadata waits
// more than it computes).
func (c change) apply(root string, strict bool, put func(i int, f File, name string) error) error {
	for _, d := range c.mkdirs {
		if err := makeDir(filepath.Join(root, filepath.FromSlash(d)), strict); err != nil {
			return err
		}
	}
	workers := min(putWorkers, 1+len(c.put)/64)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(c.put) && errs[w] == nil; i += workers {
				f := c.put[i]
				errs[w] = put(i, f, filepath.Join(root, filepath.FromSlash(f.Path)))
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, p := range c.remove {
		if err := os.Remove(filepath.Join(root, filepath.FromSlash(p))); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	for _, d := range c.rmdirs {
		if err := os.Remove(filepath.Join(root, filepath.FromSlash(d))); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// putWorkers is how many goroutines put a change's files at most.
const putWorkers = 4

// errSpare marks a write that failed in the spare, before the swap: the
// tree at dir is untouched, and a full write can be made instead.
var errSpare = errors.New("the spare code tree is not as it was left")

// writeSpare is a write with the spare ready: the change from the tree
// at dir is made in the spare, each new file's bytes written into an
// empty file of the pool, and the spare swapped with the tree. The tree
// it replaces is then, in the background, changed the same way by hard
// links to the new tree's files, so that it is the next spare, and the
// pool is refilled.
func (w *Writer) writeSpare(dir string, files []File) error {
	spare, strict := beside(dir, "spare"), umaskStrips()
	c := changeOf(w.prev, files)
	w.ready = false // until the spare is made again, after the swap
	empty, err := w.pool.take(len(c.put))
	if err == nil {
		err = c.apply(spare, strict, func(i int, f File, name string) error { return fillInto(empty[i], f.Data, name) })
	}
	if err != nil {
		return errors.Join(errSpare, err, removeAll(spare))
	}
	old, err := swap(spare, dir)
	if err != nil {
		return errors.Join(fmt.Errorf("replace code tree %s: %w", dir, err), removeAll(spare))
	}
	w.prev = pathsOf(files)
	w.background(func() error {
		var err error
		switch {
		case old == "": // dir was gone: nothing to change back
			err = w.makeSpare(dir, files)
		case old != spare && os.Rename(old, spare) != nil:
			err = errors.Join(removeAll(old), w.makeSpare(dir, files))
		default:
			err = c.apply(spare, strict, func(_ int, f File, name string) error {
				return relink(filepath.Join(dir, filepath.FromSlash(f.Path)), name)
			})
			if err != nil {
				err = errors.Join(fmt.Errorf("update the spare code tree: %w", err), removeAll(spare), w.makeSpare(dir, files))
			} else {
				err = w.pool.fill(beside(dir, "pool"), poolSize(files), strict)
			}
		}
		w.ready = err == nil
		return err
	})
	return nil
}

// makeSpare makes the spare anew as hard links to the files of the tree
// at dir (files), and fills the pool.
func (w *Writer) makeSpare(dir string, files []File) error {
	spare, strict := beside(dir, "spare"), umaskStrips()
	if err := removeAll(spare); err != nil {
		return err
	}
	c := changeOf(nil, files)
	err := makeDir(spare, strict)
	if err == nil {
		err = c.apply(spare, strict, func(_ int, f File, name string) error {
			return os.Link(filepath.Join(dir, filepath.FromSlash(f.Path)), name)
		})
	}
	if err != nil {
		return errors.Join(fmt.Errorf("make the spare code tree: %w", err), removeAll(spare))
	}
	return w.pool.fill(beside(dir, "pool"), poolSize(files), strict)
}

// relink makes name a hard link to the file from, replacing what name
// was.
func relink(from, name string) error {
	if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.Link(from, name)
}

// poolSize is how many empty files the pool keeps for a tree of files:
// the files of its largest server (the usual change is one server's
// reload) and the tree's own that change with it (INDEX.md), at least 64
// and at most 4,096.
func poolSize(files []File) int {
	per := map[string]int{}
	for _, f := range files {
		p := strings.TrimPrefix(f.Path, "python/mcp_tools/")
		if p == f.Path {
			p = strings.TrimPrefix(f.Path, "js/")
		}
		if s, _, ok := strings.Cut(p, "/"); ok && p != f.Path {
			per[s]++
		}
	}
	n := 0
	for _, c := range per {
		n = max(n, c)
	}
	return min(max(n+8, 64), 4096)
}
