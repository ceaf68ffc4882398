package supervisor

import (
	"bytes"
	"regexp"
	"strconv"
)

func bytesContains(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }

var idPattern = regexp.MustCompile(`"id"\s*:\s*(-?\d+)`)

// findID looks for a numeric "id" member in a fragment of a JSON-RPC message.
func findID(fragment []byte) (int64, bool) {
	m := idPattern.FindSubmatch(fragment)
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseInt(string(m[1]), 10, 64)
	return n, err == nil
}
