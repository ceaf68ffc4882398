// Package boundedfile reads the files an operator names (the config file,
// the catalog override file) without trusting them: only regular files, of
// bounded size, and never blocking on a FIFO or device.
package boundedfile

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// Read returns the content of the regular file at path, of at most limit
// bytes. It fails, without blocking, for anything else: a FIFO (opening one
// for reading would wait for a writer forever), a device such as
// /dev/zero, a directory; and for a file larger than limit. Errors from
// opening name the path (*fs.PathError); the others do not, so that
// callers name it once.
func Read(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", kind(st.Mode()))
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit)
	}
	return b, nil
}

// kind names a file type for messages.
func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	default:
		return m.Type().String()
	}
}
