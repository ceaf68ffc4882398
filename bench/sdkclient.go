package bench

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// go-sdk's client, the one clients in the wild use (issue 12): the same
// sequential echo calls as HTTPClient's, so that the table shows what a
// go-sdk client pays through the gateway, through the floor proxy and
// directly over stdio, in each era.

// sdkHTTP connects go-sdk's Streamable HTTP client (no standalone SSE
// stream, no retries) to url, asking for version: LegacyVersion does
// initialize; ModernVersion does server/discover and then sends _meta and
// the MCP headers on every request. It fails if go-sdk settled on another
// version (it falls back to initialize when discovery fails).
func sdkHTTP(ctx context.Context, url, token, version string) (*mcp.ClientSession, error) {
	hc := &http.Client{Transport: bearerTransport{token: token, next: &http.Transport{MaxIdleConnsPerHost: 16, DisableCompression: true}}}
	client := mcp.NewClient(&mcp.Implementation{Name: "bench-sdk", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		return nil, fmt.Errorf("go-sdk client connect (%s): %w", version, err)
	}
	if got := cs.InitializeResult().ProtocolVersion; version == ModernVersion && got != version {
		cs.Close()
		return nil, fmt.Errorf("go-sdk client asked for %s and settled on %s", version, got)
	}
	return cs, nil
}

// sdkStdio connects go-sdk's client to argv over stdio (CommandTransport):
// the direct counterpart of sdkHTTP, legacy (the Go echo does not serve
// server/discover).
func sdkStdio(ctx context.Context, argv []string) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "bench-sdk", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(argv[0], argv[1:]...)},
		&mcp.ClientSessionOptions{ProtocolVersion: LegacyVersion})
	if err != nil {
		return nil, fmt.Errorf("go-sdk client connect (stdio): %w", err)
	}
	return cs, nil
}

// sdkCall is one echo call with go-sdk's client on cs.
func sdkCall(cs *mcp.ClientSession) timedCall {
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hello"}}
	return func(ctx context.Context) error {
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			return fmt.Errorf("go-sdk client call: %w", err)
		}
		if res.IsError || len(res.Content) == 0 {
			return fmt.Errorf("go-sdk client call: unexpected result %+v", res)
		}
		return nil
	}
}

// sdkSide is a side go-sdk's client is measured on: its name ("direct",
// "floor", or a gateway side), and how to connect to it.
type sdkSide struct {
	side    string
	connect func() (*mcp.ClientSession, error)
}

// sdkFigures measures go-sdk's client on each of sides, connected at once
// and their calls interleaved: Warmup untimed calls, then SDKCalls timed
// ones, into client.sdk.* (legacy) or client.sdk.modern.*: the p50 in µs
// and this process's CPU per call (all of it is the client's unless the
// server runs in it too).
func (r *runner) sdkFigures(ctx context.Context, sides []sdkSide, modern bool) error {
	callers := make([]seqCaller, len(sides))
	for i, s := range sides {
		cs, err := s.connect()
		if err != nil {
			return err
		}
		defer cs.Close()
		callers[i] = seqCaller{call: sdkCall(cs)}
	}
	lat, cpu, err := r.measure(ctx, callers, r.cfg.SDKCalls)
	if err != nil {
		return err
	}
	id := "client.sdk"
	if modern {
		id += ".modern"
	}
	for i, s := range sides {
		r.add(id+".p50", s.side, percentile(lat[i], 50))
		r.sample(id+".p50", s.side, blockP50s(lat[i])...)
		r.add(id+".cpu", s.side, cpu[i][0])
	}
	return nil
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

// sdkDefs are the rows of go-sdk's client, measured in figure 1.
func (cfg Config) sdkDefs() []figDef {
	return []figDef{
		{"client.sdk.p50", fmt.Sprintf("%d sequential calls with go-sdk's client, legacy (%s): p50", cfg.SDKCalls, LegacyVersion), "µs", nil,
			"direct: go-sdk's client over stdio (CommandTransport) to the Go echo; floor, gateway: its Streamable HTTP client"},
		{"client.sdk.modern.p50", fmt.Sprintf("%d sequential calls with go-sdk's client, modern (%s): p50", cfg.SDKCalls, ModernVersion), "µs", nil,
			"direct: the legacy stdio figure above (the Go echo does not serve server/discover)"},
		{"client.sdk.cpu", "CPU per call of go-sdk's client, legacy", "µs", nil,
			"compare with cpu.seq.client: the reason the load generator uses raw net/http"},
		{"client.sdk.modern.cpu", "CPU per call of go-sdk's client, modern", "µs", nil, ""},
	}
}
