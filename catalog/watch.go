package catalog

import (
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/mcp-gateway/mcp-gateway/internal/boundedfile"
)

// Default timings of a Watcher.
const (
	DefaultDebounce = 100 * time.Millisecond
	DefaultPoll     = 500 * time.Millisecond
)

// Watcher follows the catalog override file (SPEC §6.3) and calls OnChange
// when its content really changed: created, written in place, replaced by
// rename, or deleted. It never reads the file as a catalog; that is the
// caller's job (Load), so an invalid file is the caller's to report.
//
// How (NOTES, fsnotify; fsnotify's README, "Watching a file doesn't work
// well"):
//   - it watches the file's parent directory, never the file, and filters
//     events by name, so a rename-over is seen;
//   - while the directory does not exist it watches the nearest existing
//     ancestor and re-arms as the missing directories appear;
//   - bursts (an editor's write, chmod, rename) are debounced: one timer,
//     reset by every event, then the content is hashed and compared with
//     the last one seen, so a write of the same bytes does nothing;
//   - a cheap stat of the file every Poll catches what inotify misses: an
//     ancestor directory moved away (its watch stays on the old inode), a
//     symlink swapped somewhere up the path, an event-queue overflow.
//
// OnChange runs on the watcher's goroutine, one call at a time; events that
// arrive meanwhile are handled after it returns.
type Watcher struct {
	Path     string
	OnChange func()
	Debounce time.Duration // default DefaultDebounce
	Poll     time.Duration // default DefaultPoll
	Logger   *slog.Logger  // default: discard
	// NotifyAtStart makes Run call OnChange once as soon as it watches, so
	// that the caller catches up with a change made before Run began
	// (while the daemon was starting its servers, say).
	NotifyAtStart bool
}

// Watch runs a Watcher with the defaults until ctx is done. It suits an
// oklog/run actor: execute is Watch, interrupt cancels ctx.
func Watch(ctx context.Context, path string, onChange func()) error {
	return (&Watcher{Path: path, OnChange: onChange}).Run(ctx)
}

// Run watches until ctx is done and returns nil then. If inotify is not
// available (no watches left), it logs that and relies on the poll alone.
func (w *Watcher) Run(ctx context.Context) error {
	if w.Path == "" {
		<-ctx.Done()
		return nil
	}
	path, err := filepath.Abs(w.Path)
	if err != nil {
		return err
	}
	st := w.newState(path)
	if st.fsw != nil {
		defer st.fsw.Close()
	}
	st.timer = time.NewTimer(time.Hour)
	st.timer.Stop()
	defer st.timer.Stop()
	st.arm(false)
	if w.NotifyAtStart {
		st.onChange()
	}
	poll := w.Poll
	if poll <= 0 {
		poll = DefaultPoll
	}
	ticker := time.NewTicker(poll)
	defer ticker.Stop()
	return st.loop(ctx, ticker.C)
}

// newState is Run's state for the file at path (absolute), with the
// Watcher's defaults filled in, the file's first fingerprint, and an
// inotify watcher unless none is available (then the poll alone serves).
func (w *Watcher) newState(path string) *watchState {
	st := &watchState{
		path:     path,
		log:      w.Logger,
		debounce: w.Debounce,
		onChange: w.OnChange,
	}
	if st.log == nil {
		st.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if st.debounce <= 0 {
		st.debounce = DefaultDebounce
	}
	if st.onChange == nil {
		st.onChange = func() {}
	}
	st.content = fingerprint(path)
	st.stat = statOf(path)
	if fsw, err := fsnotify.NewWatcher(); err != nil {
		st.log.Warn("catalog watch: inotify unavailable; polling only", "file", path, "error", err)
	} else {
		st.fsw = fsw
	}
	return st
}

// loop handles inotify events, the poll's ticks (tick) and the debounce
// timer until ctx is done.
func (st *watchState) loop(ctx context.Context, tick <-chan time.Time) error {
	var events <-chan fsnotify.Event
	var errs <-chan error
	if st.fsw != nil {
		events, errs = st.fsw.Events, st.fsw.Errors
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			st.event(ev)
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			if !errors.Is(err, fsnotify.ErrEventOverflow) {
				st.log.Warn("catalog watch: inotify error; re-checking", "file", st.path, "error", err)
			}
			st.arm(true) // re-add, in case the watch was lost
			st.schedule()
		case <-tick:
			st.arm(false)
			// Recorded now, so that the next tick does not see the same
			// change again: each would reset the debounce, and with the
			// poll no slower than the debounce the check never came.
			if s := statOf(st.path); s != st.stat {
				st.stat = s
				st.schedule()
			}
		case <-st.timer.C:
			if ctx.Err() != nil {
				return nil
			}
			st.check()
		}
	}
}

// watchState is one Run's state; only Run's goroutine touches it.
type watchState struct {
	path     string
	log      *slog.Logger
	debounce time.Duration
	onChange func()
	fsw      *fsnotify.Watcher
	armed    armedDir
	timer    *time.Timer
	content  [sha256.Size + 1]byte // last content seen: see fingerprint
	stat     fileStat              // last stat seen
}

// armedDir is the directory inotify watches: the file's parent or, while
// that is missing, its nearest existing ancestor; dev/ino say which one,
// since a directory moved away keeps its watch.
type armedDir struct {
	path     string
	dev, ino uint64
}

// arm watches the nearest existing directory on the file's path, if that is
// not the one already watched (or always, if force).
func (st *watchState) arm(force bool) {
	if st.fsw == nil {
		return
	}
	// A directory further down may appear between the stat and the watch,
	// unseen by either: look again after each watch until it holds.
	armed := false
	for range 16 {
		want := nearestDir(st.path)
		if want == st.armed && !force {
			break
		}
		force = false
		// Drop the old watch and any stale one under the new path (a
		// directory moved away keeps its watch); either may be gone already.
		if st.armed.path != "" {
			_ = st.fsw.Remove(st.armed.path)
		}
		_ = st.fsw.Remove(want.path)
		st.armed = armedDir{}
		if err := st.fsw.Add(want.path); err != nil {
			st.log.Warn("catalog watch: cannot watch directory; polling only until it can", "dir", want.path, "error", err)
			return
		}
		st.armed = want
		// The file may have appeared before the watch was in place.
		st.schedule()
		armed = true
	}
	if armed && st.armed.path != filepath.Dir(st.path) {
		st.log.Info("catalog watch: directory missing; watching an ancestor until it appears", "file", st.path, "watching", st.armed.path)
	}
}

// nearestDir is the file's directory or, if it is missing, its nearest
// existing ancestor.
func nearestDir(path string) armedDir {
	dir := filepath.Dir(path)
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	d := armedDir{path: dir}
	if sys, ok := statSys(dir); ok {
		d.dev, d.ino = sys.Dev, sys.Ino
	}
	return d
}

// event filters one inotify event: the file itself, or (while an ancestor
// is watched) the next directory on the way to it, or the watched
// directory itself going away.
func (st *watchState) event(ev fsnotify.Event) {
	name := filepath.Clean(ev.Name)
	switch {
	case name == st.path:
		st.schedule()
	case name == st.armed.path || strings.HasPrefix(st.path, name+string(filepath.Separator)):
		st.arm(true)
		st.schedule()
	}
}

func (st *watchState) schedule() { st.timer.Reset(st.debounce) }

// check compares the content with the last seen and calls onChange if it
// differs.
func (st *watchState) check() {
	st.stat = statOf(st.path)
	fp := fingerprint(st.path)
	if fp == st.content {
		return
	}
	st.content = fp
	st.onChange()
}

// fingerprint is the content's SHA-256 behind a tag byte: 0 missing, 1
// present, 2 unreadable (with the error hashed, so a changed error counts).
func fingerprint(path string) [sha256.Size + 1]byte {
	var fp [sha256.Size + 1]byte
	b, err := boundedfile.Read(path, MaxFileBytes) // bounded: a huge file is an error, not a crash
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fp
	case err != nil:
		fp[0] = 2
		b = []byte(err.Error())
	default:
		fp[0] = 1
	}
	sum := sha256.Sum256(b)
	copy(fp[1:], sum[:])
	return fp
}

// fileStat is what the poll compares: existence, identity, size and mtime.
type fileStat struct {
	exists   bool
	dev, ino uint64
	size     int64
	mtime    time.Time
}

func statOf(path string) fileStat {
	fi, err := os.Stat(path) // follows symlinks: a swapped link target counts
	if err != nil {
		return fileStat{}
	}
	s := fileStat{exists: true, size: fi.Size(), mtime: fi.ModTime()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.dev, s.ino = uint64(sys.Dev), sys.Ino
	}
	return s
}

func statSys(path string) (struct{ Dev, Ino uint64 }, bool) {
	var out struct{ Dev, Ino uint64 }
	fi, err := os.Stat(path)
	if err != nil {
		return out, false
	}
	sys, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return out, false
	}
	out.Dev, out.Ino = uint64(sys.Dev), sys.Ino
	return out, true
}
