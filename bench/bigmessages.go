package bench

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"
)

// big is figure 5: a BigBytes result (from a small request) and a
// BigBytes argument (with a small result), median of BigCalls round
// trips each, after one untimed call each. The gateway sides of an A/B
// run all run at once, and take turns call by call.
func (r *runner) big(ctx context.Context) error {
	msgs := bigMessages(r.cfg.BigBytes)
	echo := []string{r.cfg.Bin.Echo}
	c, err := startDirect(ctx, echo)
	if err != nil {
		return err
	}
	err = r.bigRoundTrips(ctx, []bigCaller{{"direct", c.Call}}, msgs)
	c.Close()
	if err != nil {
		return err
	}
	fl, err := r.startFloor(echo)
	if err != nil {
		return err
	}
	if err := r.bigOverHTTP(ctx, []httpSide{fl}, msgs); err != nil {
		return err
	}
	gws, err := r.startGateways(ctx, r.echoServer())
	if err != nil {
		return err
	}
	es := make([]httpSide, len(gws))
	for i, gw := range gws {
		es[i] = gw
	}
	return r.bigOverHTTP(ctx, es, msgs)
}

// bigMessage is one of figure 5's calls: its params, and how to tell its
// result.
type bigMessage struct {
	id     string
	params []byte
	check  func([]byte) bool
}

// bigMessages are figure 5's calls, of n bytes each way: a result, an
// argument that is one string, and an argument of small objects (JSON
// data: every byte of it is read by the validation, and was by each scan
// of the params; issue 33).
func bigMessages(n int) []bigMessage {
	resultParams := []byte(fmt.Sprintf(`{"name":"echo","arguments":{"message":"x","bytes":%d}}`, n))
	var b strings.Builder
	b.Grow(n + 64)
	b.WriteString(`{"name":"echo","arguments":{"bytes":2,"message":"`)
	for i := range n {
		b.WriteByte('a' + byte(i%26))
	}
	b.WriteString(`"}}`)
	argParams := []byte(b.String())
	b.Reset()
	b.WriteString(`{"name":"echo","arguments":{"bytes":2,"message":"x","rows":[`)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, `{"id":%d,"ok":true,"tags":["a","b"]},`, i)
	}
	b.WriteString(`{}]}}`)
	objParams := []byte(b.String())
	tiny := func(res []byte) bool { return bytes.Contains(res, []byte(`"ab"`)) }
	return []bigMessage{
		{"big.result", resultParams, func(res []byte) bool { return len(res) >= n }},
		{"big.argument", argParams, tiny},
		{"big.objects", objParams, tiny},
	}
}

// bigCaller is a side of figure 5 and its call.
type bigCaller struct {
	side string
	call callFunc
}

// bigOverHTTP is bigRoundTrips in a legacy session on each of es, which
// it then closes, whatever happened.
func (r *runner) bigOverHTTP(ctx context.Context, es []httpSide, msgs []bigMessage) error {
	defer closeAll(es)
	callers := make([]bigCaller, len(es))
	for i, e := range es {
		s, err := e.open(ctx, eraLegacy)
		if err != nil {
			return err
		}
		callers[i] = bigCaller{e.name(), s.Call}
	}
	if err := r.bigRoundTrips(ctx, callers, msgs); err != nil {
		return err
	}
	return closeAll(es)
}

// bigRoundTrips makes BigCalls timed round trips of each of msgs with
// each of callers (taking turns, the first rotating), after one untimed
// one, and records the median of each, in ms.
func (r *runner) bigRoundTrips(ctx context.Context, callers []bigCaller, msgs []bigMessage) error {
	for _, m := range msgs {
		times := make([][]float64, len(callers))
		for i := range r.cfg.BigCalls + 1 {
			for j := range callers {
				k := (i + j) % len(callers)
				t0 := time.Now()
				res, err := callers[k].call(ctx, "tools/call", m.params)
				d := time.Since(t0)
				if err != nil {
					return fmt.Errorf("%s: %w", m.id, err)
				}
				if !m.check(res) {
					return fmt.Errorf("%s: unexpected result of %d bytes: %s", m.id, len(res), truncate(res, 200))
				}
				if i > 0 {
					times[k] = append(times[k], millis(d))
				}
			}
		}
		for k, c := range callers {
			r.add(m.id, c.side, percentile(times[k], 50))
			r.sample(m.id, c.side, times[k]...)
		}
	}
	return nil
}

// bigDefs are the rows of figure 5.
func (cfg Config) bigDefs() []figDef {
	return []figDef{
		// Issue 33: a result ≤ 1.5× a direct call, an argument ≤ 2×.
		{"big.result", fmt.Sprintf("%s result, round trip", size(cfg.BigBytes)), "ms", []target{{on: "ratio", max: true, limit: 1.5, text: "≤ 1.5× direct"}}, ""},
		{"big.argument", fmt.Sprintf("%s argument, round trip", size(cfg.BigBytes)), "ms", []target{{on: "ratio", max: true, limit: 2, text: "≤ 2× direct"}}, ""},
		{"big.objects", fmt.Sprintf("%s argument of small objects, round trip", size(cfg.BigBytes)), "ms", nil, "the Go echo decodes it: direct is mostly its own time"},
	}
}

// size is n bytes as the rows name it: "8 MiB", "256 KiB".
func size(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}
