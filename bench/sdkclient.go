package bench

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkClientCost makes n sequential echo calls through the gateway with
// go-sdk's client (Streamable HTTP, no standalone SSE stream) and returns
// the client's CPU per call and the p50 latency: the alternative to
// HTTPClient the issue asks to compare.
func sdkClientCost(ctx context.Context, url, token string, warmup, n int) (cpuPerCall, p50 time.Duration, err error) {
	hc := &http.Client{Transport: bearerTransport{token: token, next: &http.Transport{MaxIdleConnsPerHost: 16, DisableCompression: true}}}
	client := mcp.NewClient(&mcp.Implementation{Name: "bench-sdk", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		return 0, 0, fmt.Errorf("go-sdk client connect: %w", err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hello"}}
	for range warmup {
		if _, err := cs.CallTool(ctx, params); err != nil {
			return 0, 0, fmt.Errorf("go-sdk client call: %w", err)
		}
	}
	lat := make([]float64, n)
	cpu0 := SelfCPU()
	for i := range n {
		t0 := time.Now()
		res, err := cs.CallTool(ctx, params)
		lat[i] = float64(time.Since(t0).Microseconds())
		if err != nil {
			return 0, 0, fmt.Errorf("go-sdk client call: %w", err)
		}
		if res.IsError || len(res.Content) == 0 {
			return 0, 0, fmt.Errorf("go-sdk client call: unexpected result %+v", res)
		}
	}
	cpu := SelfCPU() - cpu0
	return cpu / time.Duration(n), time.Duration(percentile(lat, 50)) * time.Microsecond, nil
}

type bearerTransport struct {
	token string
	next  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}
