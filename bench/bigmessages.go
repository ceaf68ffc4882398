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
	cfg := r.cfg
	resultParams := []byte(fmt.Sprintf(`{"name":"echo","arguments":{"message":"x","bytes":%d}}`, cfg.BigBytes))
	var b strings.Builder
	b.Grow(cfg.BigBytes + 64)
	b.WriteString(`{"name":"echo","arguments":{"bytes":2,"message":"`)
	for i := range cfg.BigBytes {
		b.WriteByte('a' + byte(i%26))
	}
	b.WriteString(`"}}`)
	argParams := []byte(b.String())

	measure := func(side string, call callFunc) error {
		for _, m := range []struct {
			id     string
			params []byte
			check  func([]byte) bool
		}{
			{"big.result", resultParams, func(res []byte) bool { return len(res) >= cfg.BigBytes }},
			{"big.argument", argParams, func(res []byte) bool { return bytes.Contains(res, []byte(`"ab"`)) }},
		} {
			times := make([]float64, 0, cfg.BigCalls)
			for i := range cfg.BigCalls + 1 {
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

	c, err := StartStdio([]string{cfg.Bin.Echo})
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.Initialize(ctx); err != nil {
		return err
	}
	if err := measure("direct", c.Call); err != nil {
		return err
	}
	c.Close()

	f, err := StartFloor(cfg.Bin.Floor, []string{cfg.Bin.Echo})
	if err != nil {
		return err
	}
	defer f.Stop()
	fc := NewHTTPClient(f.URL, "")
	defer fc.CloseIdle()
	fs, err := fc.NewSession(ctx)
	if err != nil {
		return err
	}
	if err := measure("floor", fs.Call); err != nil {
		return err
	}
	f.Stop()

	g, err := r.launch(ctx, config(map[string]string{"echo": runCmd([]string{cfg.Bin.Echo})}), cfg.TempDir)
	if err != nil {
		return err
	}
	defer g.Stop()
	hc := NewHTTPClient(g.URL, g.Token)
	defer hc.CloseIdle()
	s, err := hc.NewSession(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := measure("gateway", s.Call); err != nil {
		return err
	}
	s.Close()
	return g.Stop()
}
