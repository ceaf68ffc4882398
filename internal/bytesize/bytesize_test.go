package bytesize

import (
	"strings"
	"testing"
)

// TestParse reads bytes and each unit, in any case and with spaces, and
// refuses what is not a count of bytes, saying what it wants.
func TestParse(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "4096": 4096, "12b": 12, "64k": 64 << 10, "64KiB": 64 << 10, " 256 MiB ": 256 << 20,
		"256m": 256 << 20, "1GiB": 1 << 30, "2g": 2 << 30, "4194304KiB": 4 << 30,
	} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "1.5MiB", "MiB", "12 TiB", "ten", "4294967297GiB"} {
		if got, err := Parse(in); err == nil || !strings.Contains(err.Error(), "such as 256MiB") {
			t.Errorf("Parse(%q) = %d, %v; want an error that says what it wants", in, got, err)
		}
	}
}

// TestFormat writes the largest unit that divides, and Parse reads it
// back.
func TestFormat(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 1000: "1000", 1 << 10: "1KiB", 3 << 19: "1536KiB", 288 << 20: "288MiB", 2 << 30: "2GiB"} {
		got := Format(n)
		if got != want {
			t.Errorf("Format(%d) = %q, want %q", n, got, want)
		}
		if back, err := Parse(got); err != nil || back != n {
			t.Errorf("Parse(Format(%d)) = %d, %v", n, back, err)
		}
	}
}

// TestSetEnv leaves the flag alone when the variable is unset, and names
// the variable in its error.
func TestSetEnv(t *testing.T) {
	f := Flag(7)
	if err := f.SetEnv("BYTESIZE_TEST_UNSET"); err != nil || f != 7 {
		t.Errorf("unset: %v, %d; want no error and 7", err, f)
	}
	t.Setenv("BYTESIZE_TEST", "64MiB")
	if err := f.SetEnv("BYTESIZE_TEST"); err != nil || f.String() != "64MiB" {
		t.Errorf("64MiB: %v, %s", err, f.String())
	}
	t.Setenv("BYTESIZE_TEST", "lots")
	if err := f.SetEnv("BYTESIZE_TEST"); err == nil || !strings.HasPrefix(err.Error(), "BYTESIZE_TEST: ") {
		t.Errorf("lots: %v, want an error naming BYTESIZE_TEST", err)
	}
}
