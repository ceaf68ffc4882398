package boundedfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path    string
		limit   int64
		want    string // content, or a piece of the error
		wantErr bool
	}{
		{small, 5, "12345", false},
		{small, 4, "larger than 4 bytes", true},
		// Opening a FIFO for reading used to wait for a writer forever.
		{fifo, 10, "not a regular file (a FIFO)", true},
		{"/dev/zero", 10, "not a regular file (a device)", true},
		{dir, 10, "not a regular file (a directory)", true},
		{filepath.Join(dir, "missing"), 10, "no such file", true},
	} {
		done := make(chan struct{})
		var b []byte
		var err error
		go func() {
			defer close(done)
			b, err = Read(tc.path, tc.limit)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("Read(%s) still blocks after 5 s", tc.path)
		}
		switch {
		case tc.wantErr && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("Read(%s): err %v, want one with %q", tc.path, err, tc.want)
		case !tc.wantErr && (err != nil || string(b) != tc.want):
			t.Errorf("Read(%s) = %q, %v; want %q", tc.path, b, err, tc.want)
		}
	}
}
