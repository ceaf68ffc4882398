package reqstate

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestSealOpen(t *testing.T) {
	s := NewSealer()
	now := time.Now()
	st := State{Kind: KindPark, ID: "7", Round: 2, Tool: "echo", Token: "tok", Expiry: now.Add(time.Minute).UnixMilli()}
	sealed := s.Seal(st)

	got, err := s.Open(sealed, "tok", "echo", now)
	if err != nil || *got != st {
		t.Fatalf("Open(Seal(st)) = %+v, %v; want %+v", got, err, st)
	}
	payload, mac, _ := strings.Cut(sealed, ".")
	for name, c := range map[string]struct {
		raw, token, tool string
		at               time.Time
		want             error
	}{
		"another key":    {NewSealer().Seal(st), "tok", "echo", now, ErrInvalid},
		"altered":        {payload + "A." + mac, "tok", "echo", now, ErrInvalid},
		"no mac":         {payload, "tok", "echo", now, ErrInvalid},
		"another caller": {sealed, "other", "echo", now, ErrForeign},
		"another tool":   {sealed, "tok", "other", now, ErrForeign},
		"expired":        {sealed, "tok", "echo", now.Add(2 * time.Minute), ErrExpired},
	} {
		if _, err := s.Open(c.raw, c.token, c.tool, c.at); !errors.Is(err, c.want) {
			t.Errorf("%s: Open = %v, want %v", name, err, c.want)
		}
	}
}
