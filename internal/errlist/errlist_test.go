package errlist

import (
	"errors"
	"fmt"
	"testing"
)

func TestFlatten(t *testing.T) {
	a, b, c := errors.New("a"), errors.New("b"), errors.New("c")
	got := Flatten(errors.Join(a, errors.Join(b, nil, c), fmt.Errorf("wrapped: %w", a)))
	if len(got) != 4 || got[0] != a || got[1] != b || got[2] != c || got[3].Error() != "wrapped: a" {
		t.Errorf("Flatten = %v", got)
	}
	if Flatten(nil) != nil {
		t.Error("Flatten(nil) != nil")
	}
}
