package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// byteSize is a flag of bytes: a count with an optional binary unit, as
// GOMEMLIMIT takes them ("256MiB", "64KiB", "1GiB"), or "k", "m", "g"
// for the same units ("256m").
type byteSize int64

var sizeUnits = []struct {
	suffix string
	shift  uint
}{{"kib", 10}, {"mib", 20}, {"gib", 30}, {"k", 10}, {"m", 20}, {"g", 30}, {"b", 0}}

func parseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	shift := uint(0)
	for _, u := range sizeUnits {
		if num, ok := strings.CutSuffix(t, u.suffix); ok {
			t, shift = strings.TrimSpace(num), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)>>shift {
		return 0, fmt.Errorf("invalid size %q: want bytes, or a count of KiB, MiB or GiB such as 256MiB", s)
	}
	return n << shift, nil
}

func (b *byteSize) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

// setEnv sets b from the environment variable name, if set.
func (b *byteSize) setEnv(name string) error {
	v, ok := os.LookupEnv(name)
	if !ok {
		return nil
	}
	if err := b.Set(v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func (b *byteSize) String() string { return formatSize(int64(*b)) }

// formatSize writes n in the largest binary unit that divides it.
func formatSize(n int64) string {
	for _, u := range []struct {
		name  string
		shift uint
	}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
		if n != 0 && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}
