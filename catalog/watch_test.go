package catalog

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// watching starts a Watcher on path and returns a channel that receives one
// value per OnChange. The watcher stops at the end of the test.
func watching(t *testing.T, path string, poll time.Duration) <-chan struct{} {
	t.Helper()
	changes := make(chan struct{}, 100)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	// NotifyAtStart's first call says Run has its first fingerprint and its
	// watch: only then may the test act (a sleep was not enough under load).
	w := &Watcher{Path: path, Poll: poll, NotifyAtStart: true, OnChange: func() { changes <- struct{}{} }}
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Run did not return after cancel")
		}
	})
	select {
	case <-changes:
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher did not start within 10s")
	}
	return changes
}

func wantChange(t *testing.T, changes <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-changes:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: no change seen within 5s", what)
	}
}

// wantQuiet checks no (further) change is reported for a while.
func wantQuiet(t *testing.T, changes <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-changes:
		t.Fatalf("%s: unexpected change", what)
	case <-time.After(700 * time.Millisecond):
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The poll is set to an hour in these tests, so only inotify can see the
// change, except where the test says otherwise.
const noPoll = time.Hour

func TestWatchCreateWriteRenameDelete(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "catalog.json")
	changes := watching(t, path, noPoll)

	write(t, path, `{"a":1}`)
	wantChange(t, changes, "create")
	wantQuiet(t, changes, "after create")

	write(t, path, `{"a":2}`)
	wantChange(t, changes, "write in place")

	tmp := filepath.Join(dir, ".catalog.json.tmp")
	write(t, tmp, `{"a":3}`)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	wantChange(t, changes, "rename over")

	// The watch survived the rename-over: a second in-place write is seen.
	write(t, path, `{"a":4}`)
	wantChange(t, changes, "write after rename")

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	wantChange(t, changes, "delete")

	write(t, path, `{"a":5}`)
	wantChange(t, changes, "re-create")
	wantQuiet(t, changes, "end")
}

func TestWatchIgnoresSameContentAndOtherFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "catalog.json")
	write(t, path, `{"a":1}`)
	changes := watching(t, path, noPoll)

	write(t, path, `{"a":1}`) // same bytes
	write(t, filepath.Join(dir, "other.json"), `x`)
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	wantQuiet(t, changes, "same content, other file, chmod")
}

func TestWatchDebouncesBursts(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "catalog.json")
	changes := watching(t, path, noPoll)

	// An editor-like burst: truncate, several writes, 20 ms apart.
	for i := range 5 {
		write(t, path, `{"burst":`+string(rune('0'+i))+`}`)
		time.Sleep(20 * time.Millisecond) // the burst's pace, under the debounce: the scenario, not a wait
	}
	wantChange(t, changes, "burst")
	wantQuiet(t, changes, "after burst")
}

func TestWatchMissingDirectoryAppearsLater(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "etc", "mcp-gateway", "catalog.json")
	changes := watching(t, path, noPoll)

	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	wantQuiet(t, changes, "directories only")
	write(t, path, `{"a":1}`)
	wantChange(t, changes, "file in a new directory")

	// The directory is now watched itself: a rename-over is seen.
	tmp := filepath.Join(filepath.Dir(path), "tmp")
	write(t, tmp, `{"a":2}`)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	wantChange(t, changes, "rename over in the new directory")

	// The directory removed and made again: the watch follows.
	if err := os.RemoveAll(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	wantChange(t, changes, "directory removed")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, path, `{"a":3}`)
	wantChange(t, changes, "directory made again")
}

// A directory moved away keeps its inotify watch under the old path
// (NOTES, fsnotify): only the poll sees the new one.
func TestWatchPollCatchesMovedDirectory(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "conf")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "catalog.json")
	write(t, path, `{"a":1}`)
	changes := watching(t, path, 100*time.Millisecond)

	// Build the replacement elsewhere, then swap directories.
	next := filepath.Join(root, "conf.next")
	if err := os.Mkdir(next, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(next, "catalog.json"), `{"a":2}`)
	if err := os.Rename(dir, filepath.Join(root, "conf.old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(next, dir); err != nil {
		t.Fatal(err)
	}
	wantChange(t, changes, "directory swapped")
	// And the new directory is watched: an in-place write is seen.
	write(t, path, `{"a":3}`)
	wantChange(t, changes, "write in the swapped-in directory")
}

func TestWatchSymlinkSwap(t *testing.T) {
	// Kubernetes-style: catalog.json -> ..data/catalog.json, ..data a
	// symlink swapped by rename.
	root := t.TempDir()
	for _, v := range []string{"v1", "v2"} {
		if err := os.Mkdir(filepath.Join(root, v), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(root, v, "catalog.json"), `{"v":"`+v+`"}`)
	}
	if err := os.Symlink("v1", filepath.Join(root, "..data")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "catalog.json")
	if err := os.Symlink("..data/catalog.json", path); err != nil {
		t.Fatal(err)
	}
	changes := watching(t, path, 100*time.Millisecond)

	if err := os.Symlink("v2", filepath.Join(root, "..data.tmp")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "..data.tmp"), filepath.Join(root, "..data")); err != nil {
		t.Fatal(err)
	}
	wantChange(t, changes, "symlink swapped")
}

func TestWatchReturnsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	// Watch with a sign that it runs: NotifyAtStart calls OnChange just
	// before the loop that must end on cancel.
	running := make(chan struct{})
	w := &Watcher{Path: filepath.Join(t.TempDir(), "none", "catalog.json"), NotifyAtStart: true, OnChange: func() { close(running) }}
	go func() { done <- w.Run(ctx) }()
	select {
	case <-running:
	case <-time.After(10 * time.Second):
		t.Fatal("Watch did not start within 10 s")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Watch did not return")
	}
}

func TestWatchNotifyAtStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "catalog.json")
	changes := make(chan struct{}, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &Watcher{Path: path, NotifyAtStart: true, OnChange: func() { changes <- struct{}{} }}
	go w.Run(ctx)
	wantChange(t, changes, "start")
	wantQuiet(t, changes, "after start")
	write(t, path, `{}`)
	wantChange(t, changes, "create")
}
