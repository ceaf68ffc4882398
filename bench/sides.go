package bench

import (
	"context"
	"encoding/json"
	"sync"
)

// The sides of a figure, set up and torn down the same way by every
// figure: startDirect for the direct side, and an endpoint for each HTTP
// side (startGateway, startFloor, startInprocGateway), on which a figure
// opens callers of an era and which close tears down. A new figure calls
// these and measures; it writes no set-up of its own.

// startDirect spawns argv and initializes it over stdio: the direct side.
// The caller closes it.
func startDirect(ctx context.Context, argv []string) (*StdioClient, error) {
	c, err := StartStdio(argv)
	if err != nil {
		return nil, err
	}
	if _, err := c.Initialize(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// era is the kind of caller a figure opens on an endpoint.
type era int

const (
	eraLegacy  era = iota // HTTPClient.NewSession: initialize, then Mcp-Session-Id (LegacyVersion)
	eraModern             // HTTPClient.Modern: no session, _meta and headers on every request (ModernVersion)
	eraAskable            // HTTPClient.ModernAskable: modern, declaring AskableCaps (its calls could park)
)

// endpoint is an HTTP side of a figure: proc, the server it calls (the
// gateway binary, the floor proxy or the in-process gateway), the client
// that calls it, and the legacy sessions opened on it.
type endpoint[P any] struct {
	proc P
	hc   *HTTPClient
	stop func() error

	mu       sync.Mutex
	sessions []*Session
	closed   bool
}

// httpSide is what a figure does with an endpoint whatever serves it:
// every endpoint is one.
type httpSide interface {
	open(ctx context.Context, era era) (*Session, error)
	close() error
}

var _ httpSide = (*endpoint[*Gateway])(nil)

// startGateway launches the gateway binary (Config.Bin.Gateway, with
// Config.GatewayEnv) with servers, name → runCmd, and returns once it is
// ready.
func (r *runner) startGateway(ctx context.Context, servers map[string]string) (*endpoint[*Gateway], error) {
	return r.startGatewayWith(ctx, config(servers), LaunchOptions{})
}

// startGatewayWith is startGateway with a config of any kind (catalog
// servers too) and launch options o (Config.GatewayEnv is added to o.Env).
func (r *runner) startGatewayWith(ctx context.Context, config string, o LaunchOptions) (*endpoint[*Gateway], error) {
	o.Env = append(o.Env, r.cfg.GatewayEnv...)
	g, err := LaunchGatewayWith(ctx, r.cfg.Bin.Gateway, config, r.cfg.TempDir, o)
	if err != nil {
		return nil, err
	}
	return &endpoint[*Gateway]{proc: g, hc: NewHTTPClient(g.URL, g.Token), stop: g.Stop}, nil
}

// startFloor starts the floor proxy over upstream argv.
func (r *runner) startFloor(argv []string) (*endpoint[*Floor], error) {
	f, err := StartFloor(r.cfg.Bin.Floor, argv)
	if err != nil {
		return nil, err
	}
	return &endpoint[*Floor]{proc: f, hc: NewHTTPClient(f.URL, ""), stop: func() error { f.Stop(); return nil }}, nil
}

// startHTTPEcho starts the Go echo serving Streamable HTTP: the direct
// side of an HTTP upstream, called by the same HTTPClient as the gateway.
func (r *runner) startHTTPEcho() (*endpoint[*Floor], error) {
	f, err := StartHTTPEcho(r.cfg.Bin.Echo)
	if err != nil {
		return nil, err
	}
	return &endpoint[*Floor]{proc: f, hc: NewHTTPClient(f.URL, ""), stop: func() error { f.Stop(); return nil }}, nil
}

// startInprocGateway starts the gateway's pieces in this process with the
// Go echo at echo (StartInproc).
func startInprocGateway(echo string) (*endpoint[*Inproc], error) {
	p, err := StartInproc(echo)
	if err != nil {
		return nil, err
	}
	return &endpoint[*Inproc]{proc: p, hc: p.hc, stop: func() error { p.Close(); return nil }}, nil
}

// open returns a caller of era. A legacy session is initialized now and
// ended by close; a modern caller sends nothing until its first Call.
// open is safe for concurrent use.
func (e *endpoint[P]) open(ctx context.Context, era era) (*Session, error) {
	switch era {
	case eraModern:
		return e.hc.Modern(), nil
	case eraAskable:
		return e.hc.ModernAskable(), nil
	}
	s, err := e.hc.NewSession(ctx)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.sessions = append(e.sessions, s)
	e.mu.Unlock()
	return s, nil
}

// close ends the sessions opened on e that are still open (DELETE, while
// the server still runs), closes the client's idle connections and stops
// the server, and returns what stopping it returned. A figure defers it
// for its error paths and returns it at the end, so that each side is gone
// before the next one starts. Later calls do nothing.
func (e *endpoint[P]) close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	sessions := e.sessions
	e.mu.Unlock()
	for _, s := range sessions {
		s.Close()
	}
	e.hc.CloseIdle()
	return e.stop()
}

// echoServer is a gateway config of one server, "echo": the Go echo.
func (r *runner) echoServer() map[string]string {
	return map[string]string{"echo": runCmd([]string{r.cfg.Bin.Echo})}
}

// config renders a gateway config of local servers: name → runCmd.
func config(servers map[string]string) string {
	m := map[string]map[string]string{}
	for name, cmd := range servers {
		m[name] = map[string]string{"runCmd": cmd}
	}
	b, _ := json.Marshal(m)
	return string(b)
}
