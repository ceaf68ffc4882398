package jsonrpc

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"testing"
)

// chunky reads from r in pieces of random sizes, often small.
type chunky struct {
	r   io.Reader
	rng *rand.Rand
}

func (c chunky) Read(p []byte) (int, error) {
	n := 1 + c.rng.Intn(len(p))
	if c.rng.Intn(3) == 0 {
		n = min(n, 1+c.rng.Intn(100))
	}
	return c.r.Read(p[:n])
}

// Lines of sizes around keepBuffer, a reserved buffer's and Max, ending
// in \n, \r\n or the stream's end, read in chunks of random sizes by
// ReadLine and ReadOwned at random, with and without Alloc and a Reserve
// that sometimes has no room: every line comes whole and in order, an
// over-long one is skipped, and no owned line is written over later
// (a hostile review's test of the lines read whole, issue 33).
func TestReaderRandomLines(t *testing.T) {
	for seed := int64(0); seed < 20; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var stream bytes.Buffer
		type exp struct {
			line string
			long bool // over max
		}
		var want []exp
		max := 3<<20 + rng.Intn(1<<20)
		sizes := []int{10, keepBuffer - 5, keepBuffer, keepBuffer + 1, keepBuffer + 3, 2 << 20, 2<<20 + 100, 9 << 19, 3 << 20, 0}
		n := 12
		for i := 0; i < n; i++ {
			sz := sizes[rng.Intn(len(sizes))] + rng.Intn(3) - 1
			if sz < 0 {
				sz = 0
			}
			if rng.Intn(8) == 0 {
				sz = max + rng.Intn(3) - 1
			}
			b := make([]byte, sz)
			for j := range b {
				b[j] = byte('a' + (i+j/1000)%26)
			}
			eol := []string{"\n", "\r\n"}[rng.Intn(2)]
			if i == n-1 && rng.Intn(2) == 0 {
				eol = ""
			}
			stream.Write(b)
			stream.WriteString(eol)
			if sz == 0 && eol == "" {
				continue
			}
			want = append(want, exp{string(b), sz+len(eol) > max})
		}
		rd := NewReader(chunky{bytes.NewReader(stream.Bytes()), rng})
		rd.Max = max
		mode := rng.Intn(3)
		if mode >= 1 {
			rd.Alloc = func(n int) ([]byte, error) {
				b := make([]byte, n)
				for i := range b {
					b[i] = 'Z'
				}
				return b, nil
			}
		}
		if mode == 2 {
			rd.Reserve = func(n int) []byte {
				if rng.Intn(4) == 0 {
					return nil
				}
				b := make([]byte, n)
				for i := range b {
					b[i] = 'Y'
				}
				return b
			}
		}
		type got struct {
			line []byte
			cp   string
		}
		var kept []got
		var wi int
		for {
			owned := rng.Intn(2) == 0
			var line []byte
			var err error
			if owned {
				line, err = rd.ReadOwned()
			} else {
				line, err = rd.ReadLine()
			}
			if err == io.EOF {
				if wi < len(want) && want[wi].long { // an over-long last line with no end: its skip ends in EOF
					wi++
				}
				break
			}
			var e *LineTooLongError
			if errors.As(err, &e) {
				if !want[wi].long {
					t.Fatalf("seed %d line %d: unexpected %v", seed, wi, err)
				}
				if !e.Partial {
					wi++
				}
				continue
			}
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if wi >= len(want) || want[wi].long || string(line) != want[wi].line {
				t.Fatalf("seed %d line %d: got %d bytes, want %d (long %v)", seed, wi, len(line), len(want[wi].line), want[wi].long)
			}
			if owned {
				kept = append(kept, got{line, want[wi].line})
				if cap(line) > len(line)+len(line)/4+4 {
					t.Errorf("seed %d line %d: owned cap %d len %d", seed, wi, cap(line), len(line))
				}
			}
			wi++
		}
		if wi != len(want) {
			t.Fatalf("seed %d: read %d lines, want %d", seed, wi, len(want))
		}
		for i, k := range kept {
			if string(k.line) != k.cp {
				t.Fatalf("seed %d: owned line %d was overwritten", seed, i)
			}
		}
	}
}
