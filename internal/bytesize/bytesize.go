package bytesize

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Flag is a flag of bytes, as Parse reads them.
type Flag int64

var sizeUnits = []struct {
	suffix string
	shift  uint
}{{"kib", 10}, {"mib", 20}, {"gib", 30}, {"k", 10}, {"m", 20}, {"g", 30}, {"b", 0}}

// Parse reads a count of bytes with an optional unit.
func Parse(s string) (int64, error) {
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

func (b *Flag) Set(s string) error {
	n, err := Parse(s)
	if err != nil {
		return err
	}
	*b = Flag(n)
	return nil
}

// SetEnv sets b from the environment variable name, if set.
func (b *Flag) SetEnv(name string) error {
	v, ok := os.LookupEnv(name)
	if !ok {
		return nil
	}
	if err := b.Set(v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func (b *Flag) String() string { return Format(int64(*b)) }

// Format writes n in the largest binary unit that divides it.
func Format(n int64) string {
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
