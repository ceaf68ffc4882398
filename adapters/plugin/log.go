package plugin

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/mcp-gateway/mcp-gateway/internal/lines"
)

// Log receives what adapters write, one line at a time, under the source
// "adapter:<file>". *logfile.Log implements it (its lines read
// "<time> [adapter:<file>] <text>", with secrets masked); WriterLog adapts a
// plain io.Writer; nil discards.
type Log interface {
	Line(source, text string)
}

// WriterLog writes each line to w as "[<source>] <text>\n".
func WriterLog(w io.Writer) Log { return &writerLog{w: w} }

type writerLog struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *writerLog) Line(source, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "[%s] %s\n", source, text)
}

type discardLog struct{}

func (discardLog) Line(string, string) {}

// maxLine is the longest line passed to the Log; a longer one is split.
const maxLine = 16 << 10

// tailLines is how many of an adapter's last output lines an error quotes.
const tailLines = 3

// output collects one adapter's stderr and stdio streams: each stream is
// split into lines for the log, and the last few lines are kept to explain
// a failure.
type output struct {
	log    Log
	source string

	mu   sync.Mutex
	tail []string
}

func (o *output) line(text string) {
	o.log.Line(o.source, text)
	if strings.TrimSpace(text) == "" {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.tail) == tailLines {
		o.tail = append(o.tail[:0], o.tail[1:]...)
	}
	o.tail = append(o.tail, text)
}

// last is the adapter's last output lines, quoted for an error, or "".
func (o *output) last() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.tail) == 0 {
		return ""
	}
	return fmt.Sprintf("; its output ended: %q", strings.Join(o.tail, " / "))
}

// stream returns a writer for one stream; Close it when the stream is
// done. When the Log is the gateway's, over-long lines are split where its
// masking allows (lines.Splitter), as the servers' output is.
func (o *output) stream() *lines.Writer {
	split, _ := o.log.(lines.Splitter)
	return &lines.Writer{Line: o.line, Limit: maxLine, Split: split}
}
