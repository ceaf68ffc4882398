package httpup

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"time"
)

// sseBuffer is the read buffer of one SSE stream: lines longer than this
// (a large message's data line) are read through it in pieces.
const sseBuffer = 64 << 10

// sseEvent is one event of a server's SSE stream (HTML Living Standard,
// "Server-sent events", event stream interpretation): its type ("" for
// the default, message) and its data, the lines of its data fields
// joined with LF; a new slice for every event, which dispatch may keep.
type sseEvent struct {
	name string
	data []byte
}

// sseReader reads the events of a server's SSE stream, each event's data
// bounded by maxMessage (through bodyReader.keep) and each pause in the
// middle of an event by the body's stall deadline. It keeps the stream's
// last event ID and retry time, for a reconnection (MCP 2025-11-25
// basic/transports, "Resumability and Redelivery").
//
// Lines end with LF or CRLF. A lone CR, which the SSE standard also
// allows, is not taken as an end of line: no MCP server is known to use
// it, and such a stream reads as one event that never ends, which the
// size bound ends.
type sseReader struct {
	body   *bodyReader
	r      *bufio.Reader
	lastID string        // the last event ID field seen; "" none
	retry  time.Duration // the last retry field; 0 none

	// The event being read.
	name    []byte
	data    []byte
	hasData bool
	pending bool // a field line of the event has been read
}

func newSSEReader(body *bodyReader) *sseReader {
	return &sseReader{body: body, r: bufio.NewReaderSize(body, sseBuffer)}
}

// next returns the next event with data (non-empty). At the end of the stream it
// returns io.EOF if the stream ended between events, or
// io.ErrUnexpectedEOF if it ended in the middle of one (which is then
// dropped, as the standard says); a read error or a message over
// maxMessage (errTooLarge) as it is.
func (s *sseReader) next() (sseEvent, error) {
	for {
		chunk, err := s.r.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			err = s.longLine(chunk)
		case err == nil:
			var ev sseEvent
			var ok bool
			if ev, ok, err = s.line(trimEOL(chunk)); ok {
				s.boundary()
				return ev, nil
			}
		}
		if errors.Is(err, io.EOF) {
			if s.pending || len(chunk) > 0 {
				return sseEvent{}, io.ErrUnexpectedEOF
			}
			return sseEvent{}, io.EOF
		}
		if err != nil {
			return sseEvent{}, err
		}
		s.boundary()
	}
}

// boundary tells the body that nothing of an event is owed when the last
// line ended one, or was a comment, and nothing more is buffered.
func (s *sseReader) boundary() {
	if !s.pending && s.r.Buffered() == 0 {
		s.body.rest()
	}
}

// line handles one whole line; it returns the event a blank line ends,
// if it has data.
func (s *sseReader) line(line []byte) (sseEvent, bool, error) {
	if len(line) == 0 {
		// An event with empty data (the priming event of MCP 2025-11-25:
		// an id and an empty data field) is not dispatched, as the
		// standard says; its id is kept.
		ev, ok := sseEvent{name: string(s.name), data: s.data}, len(s.data) > 0
		s.name, s.data, s.hasData, s.pending = s.name[:0], nil, false, false
		return ev, ok, nil
	}
	if line[0] == ':' {
		return sseEvent{}, false, nil // a comment: a keep-alive
	}
	s.pending = true
	field, value := splitField(line)
	switch string(field) {
	case "data":
		if err := s.addData(value); err != nil {
			return sseEvent{}, false, err
		}
	case "event":
		s.name = append(s.name[:0], value...)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			s.lastID = string(value)
		}
	case "retry":
		if ms, err := strconv.ParseUint(string(value), 10, 31); err == nil {
			s.retry = time.Duration(ms) * time.Millisecond
		}
	}
	return sseEvent{}, false, nil
}

// addData adds one data line to the event's data.
func (s *sseReader) addData(value []byte) error {
	var err error
	if s.hasData {
		if s.data, err = s.body.keep(s.data, []byte{'\n'}); err != nil {
			return err
		}
	}
	s.hasData = true
	s.data, err = s.body.keep(s.data, value)
	return err
}

// longLine reads the rest of a line longer than the read buffer, whose
// first part is chunk: a data line's value goes into the event's data
// piece by piece; any other field's is skipped.
func (s *sseReader) longLine(chunk []byte) error {
	s.pending = true
	field, value := splitField(chunk)
	isData := string(field) == "data"
	if isData {
		if err := s.addData(nil); err != nil {
			return err
		}
	}
	heldCR := false
	for {
		end := false
		if isData {
			v := value
			if heldCR {
				v = append([]byte{'\r'}, v...)
			}
			if end = len(v) > 0 && v[len(v)-1] == '\n'; end {
				v = trimEOL(v)
			} else if heldCR = len(v) > 0 && v[len(v)-1] == '\r'; heldCR {
				v = v[:len(v)-1] // maybe the CR of a CRLF split across reads
			}
			var err error
			if s.data, err = s.body.keep(s.data, v); err != nil {
				return err
			}
		} else {
			end = len(value) > 0 && value[len(value)-1] == '\n'
		}
		if end {
			return nil
		}
		var err error
		value, err = s.r.ReadSlice('\n')
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

// splitField splits a line into its field name and value: the value
// after the first colon, less one leading space; the whole line is the
// name when it has no colon.
func splitField(line []byte) (field, value []byte) {
	i := bytes.IndexByte(line, ':')
	if i < 0 {
		return line, nil
	}
	field, value = line[:i], line[i+1:]
	if len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	return field, value
}

// trimEOL removes a trailing LF or CRLF.
func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}
