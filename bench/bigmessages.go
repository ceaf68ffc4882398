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
// trips each, after one untimed call each.
func (r *runner) big(ctx context.Context) error {
	msgs := bigMessages(r.cfg.BigBytes)
	echo := []string{r.cfg.Bin.Echo}
	c, err := startDirect(ctx, echo)
	if err != nil {
		return err
	}
	err = r.bigRoundTrips(ctx, "direct", c.Call, msgs)
	c.Close()
	if err != nil {
		return err
	}
	fl, err := r.startFloor(echo)
	if err != nil {
		return err
	}
	if err := r.bigOverHTTP(ctx, "floor", fl, msgs); err != nil {
		return err
	}
	gw, err := r.startGateway(ctx, r.echoServer())
	if err != nil {
		return err
	}
	return r.bigOverHTTP(ctx, "gateway", gw, msgs)
}

// bigMessage is one of figure 5's calls: its params, and how to tell its
// result.
type bigMessage struct {
	id     string
	params []byte
	check  func([]byte) bool
}

// bigMessages are figure 5's two calls, of n bytes each way.
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
	return []bigMessage{
		{"big.result", resultParams, func(res []byte) bool { return len(res) >= n }},
		{"big.argument", argParams, func(res []byte) bool { return bytes.Contains(res, []byte(`"ab"`)) }},
	}
}

// bigOverHTTP is bigRoundTrips in a legacy session on e, which it then
// closes, whatever happened.
func (r *runner) bigOverHTTP(ctx context.Context, side string, e httpSide, msgs []bigMessage) error {
	defer e.close()
	s, err := e.open(ctx, eraLegacy)
	if err != nil {
		return err
	}
	if err := r.bigRoundTrips(ctx, side, s.Call, msgs); err != nil {
		return err
	}
	return e.close()
}

// bigRoundTrips makes BigCalls timed round trips of each of msgs with
// call, after one untimed one, and records the median of each, in ms.
func (r *runner) bigRoundTrips(ctx context.Context, side string, call callFunc, msgs []bigMessage) error {
	for _, m := range msgs {
		times := make([]float64, 0, r.cfg.BigCalls)
		for i := range r.cfg.BigCalls + 1 {
			t0 := time.Now()
			res, err := call(ctx, "tools/call", m.params)
			d := time.Since(t0)
			if err != nil {
				return fmt.Errorf("%s: %w", m.id, err)
			}
			if !m.check(res) {
				return fmt.Errorf("%s: unexpected result of %d bytes: %s", m.id, len(res), truncate(res, 200))
			}
			if i > 0 {
				times = append(times, millis(d))
			}
		}
		r.add(m.id, side, percentile(times, 50))
	}
	return nil
}

// bigDefs are the rows of figure 5.
func (cfg Config) bigDefs() []figDef {
	return []figDef{
		{"big.result", fmt.Sprintf("%s result, round trip", size(cfg.BigBytes)), "ms", []target{{on: "ratio", max: true, limit: 2, text: "≤ 2× direct"}}, ""},
		{"big.argument", fmt.Sprintf("%s argument, round trip", size(cfg.BigBytes)), "ms", []target{{on: "ratio", max: true, limit: 2, text: "≤ 2× direct"}}, ""},
	}
}

// size is n bytes as the rows name it: "8 MiB", "256 KiB".
func size(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}
