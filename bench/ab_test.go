package bench

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseVariant(t *testing.T) {
	v, err := ParseVariant("tracing:OTEL_TRACES_EXPORTER=otlp,OTEL_EXPORTER_OTLP_ENDPOINT={otlp},EMPTY=")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"OTEL_TRACES_EXPORTER=otlp", "OTEL_EXPORTER_OTLP_ENDPOINT={otlp}", "EMPTY="}
	if v.Name != "tracing" || !slices.Equal(v.Env, want) {
		t.Errorf("got %+v", v)
	}
	for _, bad := range []string{"", "tracing", "tracing:", "tracing:KEY", "tracing:=v", "Tracing:K=V", "baseline:K=V", "gateway:K=V", "a b:K=V", "t:K=V,,L=W"} {
		if v, err := ParseVariant(bad); err == nil {
			t.Errorf("ParseVariant(%q) = %+v, want an error", bad, v)
		}
	}
}

func TestJudge(t *testing.T) {
	for _, c := range []struct {
		med, lo, hi, tol float64
		higher           bool
		want             string
	}{
		{1.00, 0.9, 1.1, 0.05, false, "same"}, {1.049, 1.01, 1.08, 0.05, false, "same"}, {0.951, 0.9, 0.99, 0.05, false, "same"},
		{1.06, 1.01, 1.1, 0.05, false, "worse"}, {0.94, 0.9, 0.99, 0.05, false, "better"},
		{1.06, 1.01, 1.1, 0.05, true, "better"}, {0.94, 0.9, 0.99, 0.05, true, "worse"}, {1.2, 1.1, 1.3, 0.25, true, "same"},
		{1.06, 0.98, 1.1, 0.05, false, "noisy"}, {0.94, 0.9, 1.0, 0.05, true, "noisy"},
	} {
		if got := judge(c.med, c.lo, c.hi, c.tol, c.higher); got != c.want {
			t.Errorf("judge(%v, %v–%v, %v, higher %v) = %s, want %s", c.med, c.lo, c.hi, c.tol, c.higher, got, c.want)
		}
	}
}

func TestMedianInterval(t *testing.T) {
	v := make([]float64, 36)
	for i := range v {
		v[i] = float64(36 - i) // 36 … 1
	}
	// k = ⌊(36 − 1.96·6) / 2⌋ = 12: the 12th and the 25th of 36.
	if med, lo, hi := medianInterval(v); med != 18.5 || lo != 12 || hi != 25 {
		t.Errorf("medianInterval(1…36) = %v %v–%v, want 18.5 12–25", med, lo, hi)
	}
	if med, lo, hi := medianInterval([]float64{3, 1, 2}); med != 2 || lo != 1 || hi != 3 {
		t.Errorf("medianInterval(3 1 2) = %v %v–%v, want 2 1–3", med, lo, hi)
	}
}

// TestGatewaySides checks which binary and environment each side gets,
// that the order rotates by repetition, and, on real daemons, that a
// variant's environment reaches its daemon only.
func TestGatewaySides(t *testing.T) {
	b := testBinaries(t)
	cfg := ShortConfig()
	cfg.Bin, cfg.TempDir = b, t.TempDir()
	cfg.GatewayEnv = []string{"BENCH_ALL=1"}
	cfg.Baseline, cfg.BaselineEnv = "/old/mcp-gateway", []string{"BENCH_OLD=1"}
	cfg.Variants = []Variant{{"tracing", []string{"BENCH_OTLP={otlp}/x"}}}
	r := &runner{cfg: cfg, otlp: map[string]*otlpReceiver{}}
	if err := r.prepareSides(context.Background()); err == nil {
		t.Error("prepareSides accepted a baseline that does not exist")
	}
	r.cfg.Baseline = b.Gateway
	for _, bad := range [][]Variant{{{"baseline", nil}}, {{"tracing", nil}, {"tracing", nil}}} {
		r.cfg.Variants = bad
		if err := r.prepareSides(context.Background()); err == nil {
			t.Errorf("prepareSides accepted the variants %v", bad)
		}
	}
	r.cfg.Variants = cfg.Variants
	if err := r.prepareSides(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer r.closeReceivers()
	if r.otlp["tracing"] == nil || len(r.otlp) != 1 {
		t.Fatalf("receivers %v, want one for tracing", r.otlp)
	}
	url := r.otlp["tracing"].url()
	want := map[string]string{sideGateway: "BENCH_ALL=1", sideBaseline: "BENCH_OLD=1", "tracing": "BENCH_ALL=1 BENCH_OTLP=" + url + "/x"}
	for rep := range 4 {
		r.rep = rep
		sides := r.sides()
		if len(sides) != 3 || sides[0].name != []string{sideGateway, sideBaseline, "tracing"}[rep%3] {
			t.Errorf("repetition %d: sides %+v", rep, sides)
		}
		for _, s := range sides {
			if got := strings.Join(s.env, " "); got != want[s.name] || s.bin != b.Gateway {
				t.Errorf("side %s: bin %s env %q, want %s %q", s.name, s.bin, got, b.Gateway, want[s.name])
			}
		}
		if s := r.treeSide(); s.name != sideGateway {
			t.Errorf("repetition %d: treeSide is %s", rep, s.name)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	gws, err := r.startGateways(ctx, r.echoServer())
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll(gws)
	for _, gw := range gws {
		env, err := os.ReadFile("/proc/" + strconv.Itoa(gw.proc.PID) + "/environ")
		if err != nil {
			t.Fatal(err)
		}
		for _, kv := range []string{"BENCH_ALL=1", "BENCH_OLD=1", "BENCH_OTLP=" + url + "/x"} {
			has := slices.Contains(strings.Split(string(env), "\x00"), kv)
			if has != strings.Contains(want[gw.side], kv) {
				t.Errorf("the %s daemon's environment has %s: %v", gw.side, kv, has)
			}
		}
	}
	if err := closeAll(gws); err != nil {
		t.Error(err)
	}
}

func TestOTLPReceiver(t *testing.T) {
	rc := startOTLPReceiver()
	defer rc.close()
	for _, c := range []struct{ path, ctype, body, want string }{
		{"/v1/traces", "application/x-protobuf", "\x0a\x00", ""},
		{"/v1/traces", "application/x-protobuf", "\x0a\x02\x0a\x00", ""},
		{"/v1/metrics", "application/json", `{"resourceMetrics":[]}`, "{}"},
	} {
		resp, err := http.Post(rc.url()+c.path, c.ctype, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != c.want {
			t.Errorf("%s %s: %d %q, want 200 %q", c.path, c.ctype, resp.StatusCode, body, c.want)
		}
	}
	got := rc.received()
	if got.Requests["/v1/traces"] != 2 || got.Requests["/v1/metrics"] != 1 || got.Bytes != 2+4+22 || got.URL != rc.url() {
		t.Errorf("received %+v", got)
	}
}

// TestBenchAB runs the phases that measure the gateway binary at
// ShortConfig size with the tree's build as its own baseline and as a
// variant, and checks that every judged figure has its twin rows and its
// verdicts. It makes no timing assertion.
func TestBenchAB(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg := ShortConfig()
	cfg.Bin, cfg.TempDir = testBinaries(t), t.TempDir()
	cfg.Only = []string{"seq", "tput", "ready", "mem", "big"}
	// Three sides: smaller still than ShortConfig where it costs nothing.
	cfg.ThroughputDuration, cfg.ReadyServers, cfg.MemSessions = 100*time.Millisecond, []int{1}, 3
	cfg.Baseline = cfg.Bin.Gateway
	cfg.Variants = []Variant{{"otlp", []string{"OTEL_EXPORTER_OTLP_ENDPOINT={otlp}"}}}
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Figure{}
	for _, f := range res.Figures {
		byID[f.ID] = f
	}
	verdicts := map[[3]string]Verdict{}
	for _, v := range res.Verdicts {
		verdicts[[3]string{v.Figure, v.Side, v.Against}] = v
	}
	for _, f := range cfg.abFigures() {
		if f.id == "seq.everything.p50" {
			continue
		}
		if g := byID[f.id].Gateway; g == nil {
			t.Errorf("figure %s: no gateway value", f.id)
		}
		for _, side := range []string{sideBaseline, "otlp"} {
			if tw := byID[f.id+"@"+side]; tw.Gateway == nil || tw.Side != side || tw.Gateway.Median <= 0 {
				t.Errorf("figure %s: twin row of %s %+v", f.id, side, tw)
			}
		}
		for _, c := range cfg.comparisons() {
			v, ok := verdicts[[3]string{f.id, c[0], c[1]}]
			verdicts := []string{"same", "better", "worse", "noisy"}
			if v.Pairs < minPairs {
				verdicts = []string{"unjudged"}
			}
			if !ok || v.Ratio == nil || v.Pairs == 0 || !slices.Contains(verdicts, v.Verdict) {
				t.Errorf("figure %s: verdict %s vs %s: %+v", f.id, c[0], c[1], v)
			}
		}
	}
	if len(cfg.comparisons()) != 3 {
		t.Errorf("comparisons %v, want gateway and otlp against baseline, otlp against gateway", cfg.comparisons())
	}
	if o, ok := res.OTLP["otlp"]; !ok || o.URL == "" || len(res.OTLP) != 1 {
		t.Errorf("OTLP receivers %+v", res.OTLP)
	}
	var table bytes.Buffer
	res.WriteTable(&table)
	if !strings.Contains(table.String(), "gateway (baseline)") || !strings.Contains(table.String(), "side / against") {
		t.Errorf("table without twin rows or verdicts:\n%s", table.String())
	}
	t.Logf("\n%s", table.String())
}
