// Package logfile owns the daemon's log, /var/log/mcp-gateway.log by
// default (SPEC §7.4, §7.5, §10): one line per event, each prefixed with a
// timestamp and its source (a server's name, "gateway", "adapter:<file>");
// bounded in size by rotation (lumberjack), so a chatty server cannot fill
// the disk; and masking every registered secret (the token, each envs
// value) in every form it may take in a line (line.go), so that no secret
// is written by the gateway or passed through from a server's stderr.
//
// Writes never block on a reader: the file is written synchronously, under
// one mutex, a line at a time; or, for LineLater's lines (the gateway's
// call lines), by a goroutine of the Log's, as many at a time as have
// queued (later.go). Each source other than the gateway writes
// within its share of the log (share.go): past it, its lines are dropped
// and counted, so one chatty server cannot rotate the others' lines out. A stream (a server's stderr, install and
// clone output) becomes lines through Writer or CopyLines, which split an
// over-long line into pieces without cutting through a secret.
package logfile

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
	"gopkg.in/natefinch/lumberjack.v2"
)

// Log file rotation (SPEC §7.4): the file is rotated when it passes MaxMB
// megabytes, and Backups old files are kept, so a chatty server can use at
// most (Backups+1)×MaxMB MB of disk.
const (
	MaxMB   = 10
	Backups = 2
	// maxLine is the longest log line in bytes; a longer server line is
	// split into several, each marked with a trailing "…".
	maxLine = 16 << 10
)

// Log is the daemon's log (/var/log/mcp-gateway.log by default). Every line
// is "<RFC3339 time with ms> [<source>] <text>", where source is a server
// name, "gateway" for the daemon's own slog records, or "adapter:<file>".
// Secrets registered with AddSecrets are masked in every line (SPEC §7.5).
// Writes never block on a reader: the file is written synchronously.
type Log struct {
	mu      sync.Mutex
	out     io.Writer
	closer  io.Closer
	secrets []string                // each secret form and secretMask, in pairs (AddSecrets)
	masking atomic.Pointer[masking] // nil until a secret is added (line.go)
	shares  shares                  // each source's share (share.go)
	later   later                   // lines written by a goroutine of the Log's (later.go)
}

// The state of the Log's parts, each kept up by its own file: masking
// (line.go), shares (share.go) and later (later.go).

// masking is what the registered secrets are masked with, replaced whole
// when one is added, so that a reader sees the replacer and the forms of
// the same secrets.
type masking struct {
	replacer *strings.Replacer
	forms    []string // the secret forms alone, longest first
}

// shares holds each source's limiter and its dropped lines.
type shares struct {
	rate  rate.Limit // bytes per second; 0: no limit
	burst int
	every time.Duration

	mu  sync.Mutex
	all map[string]*share
}

// share is one source's: its limiter, and what it dropped in the current
// report interval (open while the report timer runs).
type share struct {
	lim          *rate.Limiter
	lines, bytes int64
	timer        *time.Timer
}

type laterLine struct {
	at           time.Time
	source, text string
}

// later is a Log's queue of lines to write and its writer.
type later struct {
	once    sync.Once
	mu      sync.RWMutex // held for reading while a line is queued; Close takes it to end the queue
	closed  bool
	queue   chan laterLine
	pending atomic.Bool   // a line is queued that the writer has not been woken for
	wake    chan struct{} // buffered 1
	done    chan struct{} // closed when the writer has written everything and returned
	buf     []byte        // the writer's: the lines of a drain, formatted
}

// Open opens (creating its directory, mode 0755, and the file, mode 0600)
// the log file at path, rotated by size (MaxMB, Backups). An empty path
// logs to stderr, for `serve` in a container. Its errors are the
// *fs.PathError of the directory or the file.
func Open(path string) (*Log, error) {
	if path == "" {
		return New(os.Stderr), nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	f.Close()
	lj := &lumberjack.Logger{Filename: path, MaxSize: MaxMB, MaxBackups: Backups}
	return &Log{out: lj, closer: lj}, nil
}

// New logs to w, unbounded (tests, a caller that bounds w itself).
func New(w io.Writer) *Log { return &Log{out: w} }
