package codeapi

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// pool is a directory of empty files, made ahead of a write so that the
// write fills existing inodes instead of making new ones (see Writer).
// Its files are never shared: one is taken, filled, then renamed into
// the spare, once.
type pool struct {
	dir    string   // "" until the first fill
	strict bool     // the umask strips the tree's modes: chmod each file
	names  []string // the empty files, under dir
	next   int      // the name of the next file made
}

// fill makes empty files in the pool at dir until it holds n. The
// first fill removes what an earlier daemon left at dir.
func (p *pool) fill(dir string, n int, strict bool) error {
	if p.dir != dir {
		if err := p.remove(); err != nil {
			return err
		}
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("remove old code pool: %w", err)
		}
		if err := makeDir(dir, strict); err != nil {
			return fmt.Errorf("make code pool: %w", err)
		}
		p.dir, p.strict = dir, strict
	}
	for len(p.names) < n {
		name, err := p.make()
		if err != nil {
			return fmt.Errorf("fill code pool: %w", err)
		}
		p.names = append(p.names, name)
	}
	return nil
}

// make makes one empty file in the pool and returns its path.
func (p *pool) make() (string, error) {
	name := filepath.Join(p.dir, strconv.Itoa(p.next))
	p.next++
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
	if err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	if p.strict {
		if err := os.Chmod(name, fileMode); err != nil {
			return "", err
		}
	}
	return name, nil
}

// take takes n empty files out of the pool, making new ones where it
// holds fewer, and returns their paths: each is for fillInto, once.
func (p *pool) take(n int) ([]string, error) {
	k := min(n, len(p.names))
	taken := slices.Clone(p.names[len(p.names)-k:])
	p.names = p.names[:len(p.names)-k]
	for len(taken) < n {
		name, err := p.make()
		if err != nil {
			return nil, fmt.Errorf("fill code pool: %w", err)
		}
		taken = append(taken, name)
	}
	return taken, nil
}

// fillInto writes data into the empty file from and renames it to name,
// replacing what name was (a hard link to the live tree's file is
// replaced, not written through).
func fillInto(from string, data []byte, name string) error {
	fd, err := os.OpenFile(from, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = fd.Write(data)
	if err = errors.Join(err, fd.Close()); err != nil {
		return errors.Join(err, os.Remove(from))
	}
	return os.Rename(from, name)
}

// remove removes the pool's directory.
func (p *pool) remove() error {
	if p.dir == "" {
		return nil
	}
	dir := p.dir
	*p = pool{next: p.next}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove code pool: %w", err)
	}
	return nil
}
