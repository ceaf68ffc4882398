package plugin

// One running adapter process (proc): its start and handshake, what it
// declares (Describe), why a call to it failed, and its stop.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcp-gateway/mcp-gateway/internal/lines"
)

// Bounds on an adapter, each also bounded by the context given to Load.
const (
	// StartTimeout is how long an adapter may take to make its handshake.
	StartTimeout = 10 * time.Second
	// CallTimeout is how long one Describe or Resolve may take.
	CallTimeout = 10 * time.Second
	// exitGrace is how long a failed call waits for the adapter's exit
	// status, to say that it crashed rather than only that the call failed.
	exitGrace = time.Second
)

// proc is one running adapter.
type proc struct {
	path, name string
	ctx        context.Context // Load's: bounds every call
	client     *goplugin.Client
	run        *procRunner // set when go-plugin starts the process
	out        *output
	streams    []*lines.Writer
	rpc        *rpcClient
	prefixes   []string
	help       string
	stopped    atomic.Bool
}

// start starts the adapter at path and asks it what it handles. On error
// the process is gone.
func start(ctx context.Context, path string, env []string, log Log) (*proc, error) {
	name := filepath.Base(path)
	p := &proc{path: path, name: name, ctx: ctx, out: &output{log: log, source: "adapter:" + name}}
	stderr, stdout, syncStderr := p.out.stream(), p.out.stream(), p.out.stream()
	p.streams = []*lines.Writer{stderr, stdout, syncStderr}
	timeout := StartTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = max(min(timeout, time.Until(dl)), time.Millisecond)
	}
	p.client = goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig: Handshake,
		Plugins:         goplugin.PluginSet{pluginName: &grpcPlugin{}},
		// Our runner, not go-plugin's: it gives the adapter exactly env, no
		// stdin, and its own process group, killed as a whole.
		RunnerFunc: func(_ hclog.Logger, cmd *exec.Cmd, socketDir string) (runner.Runner, error) {
			r, err := newRunner(ctx, path, append(slices.Clip(env), cmd.Env...), socketDir)
			p.run = r
			return r, err
		},
		SkipHostEnv:      true,
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		Managed:          false, // closeAll kills it
		StartTimeout:     timeout,
		Stderr:           stderr,
		SyncStdout:       stdout,
		SyncStderr:       syncStderr,
		// go-plugin's own log would repeat each stderr line; what it knows
		// of a failure comes back as an error instead.
		Logger: hclog.NewNullLogger(),
	})
	cp, err := p.connect()
	if err != nil {
		p.stop()
		return nil, p.startError(ctx, timeout, err)
	}
	raw, err := cp.Dispense(pluginName)
	if err != nil {
		p.stop()
		return nil, fmt.Errorf("start adapter %s: %w", path, err)
	}
	p.rpc = raw.(*rpcClient)

	callCtx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	desc, err := p.rpc.describe(callCtx)
	if err == nil {
		err = p.checkDescribe(desc)
	} else {
		err = p.callError(callCtx, err)
	}
	if err != nil {
		p.stop()
		return nil, fmt.Errorf("describe adapter %s: %w", path, err)
	}
	return p, nil
}

// connect is go-plugin's Client(), which panics on one kind of bad
// handshake line: a sixth field holding a valid certificate, when TLS is
// off, makes go-plugin v1.8.0 dereference a nil tls.Config (client.go,
// loadServerCert). The line cannot be checked before go-plugin reads it,
// so the panic becomes an error; go-plugin has killed the process by then.
func (p *proc) connect() (cp goplugin.ClientProtocol, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("its handshake line crashed go-plugin's parser (%v)", r)
		}
	}()
	return p.client.Client()
}

// startError explains why the handshake failed.
func (p *proc) startError(ctx context.Context, timeout time.Duration, err error) error {
	r := p.run
	switch {
	case r == nil:
		return fmt.Errorf("start adapter %s: %w", p.path, err)
	case r.startErr != nil:
		return fmt.Errorf("start adapter %s: cannot run it: %w", p.path, r.startErr)
	case errors.Is(ctx.Err(), context.Canceled):
		return fmt.Errorf("start adapter %s: %w", p.path, ctx.Err())
	case ctx.Err() != nil || time.Since(r.started) >= timeout:
		return fmt.Errorf("start adapter %s: no handshake within %s%s", p.path, approx(timeout), p.out.last())
	case r.wroteStdout.Load():
		// go-plugin's message quotes what the adapter printed.
		return fmt.Errorf("start adapter %s: bad handshake: %s", p.path, oneLine(err.Error()))
	case r.exitedOnItsOwn():
		return fmt.Errorf("start adapter %s: it exited before its handshake (%s)%s", p.path, r.exitStatus(), p.out.last())
	default:
		return fmt.Errorf("start adapter %s: bad handshake: %s%s", p.path, oneLine(err.Error()), p.out.last())
	}
}

// callError explains why a call failed: the adapter crashed, did not
// answer in time, or answered garbage.
func (p *proc) callError(ctx context.Context, err error) error {
	// gRPC's own timer for the call's deadline may fire just before ctx's
	// does (grpc-go 1.83): its DeadlineExceeded is the same timeout.
	if ctx.Err() != nil || status.Code(err) == codes.DeadlineExceeded {
		return fmt.Errorf("no answer in time: %w", cmp.Or(ctx.Err(), context.DeadlineExceeded))
	}
	if _, garbage := errors.AsType[*garbageError](err); garbage {
		return err
	}
	if status.Code(err) == codes.Unavailable || status.Code(err) == codes.Canceled {
		select {
		case <-p.run.done:
			return fmt.Errorf("it exited (%s)%s", p.run.exitStatus(), p.out.last())
		case <-time.After(exitGrace):
		}
	}
	return err
}

var prefixRE = regexp.MustCompile(`^[^/\s]\S*/$`)

// checkDescribe validates what the adapter declared and keeps it.
func (p *proc) checkDescribe(d describeResponse) error {
	if d.Protocol != ProtocolVersion {
		return fmt.Errorf("it speaks protocol %d, want %d", d.Protocol, ProtocolVersion)
	}
	if len(d.Prefixes) == 0 {
		return errors.New("it declares no key prefixes; want at least one, such as \"npm/\"")
	}
	for _, pre := range d.Prefixes {
		if !prefixRE.MatchString(pre) || strings.ContainsFunc(pre, unicode.IsControl) {
			return fmt.Errorf("prefix %q: want a prefix ending with \"/\", such as \"npm/\", without spaces", pre)
		}
	}
	p.prefixes = slices.Compact(slices.Sorted(slices.Values(d.Prefixes)))
	help := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, d.Help)
	if len(help) > 300 {
		help = help[:300] + "…"
	}
	p.help = help
	return nil
}

// stop ends the adapter: go-plugin's Kill (a graceful shutdown, then a
// kill after 2 s), then SIGKILL to its process group for anything it left.
// It returns when the process has been reaped.
func (p *proc) stop() {
	p.stopped.Store(true)
	p.client.Kill()
	if p.run != nil {
		p.run.killGroup()
		p.run.stopAfterFunc()
	}
	for _, s := range p.streams {
		s.Close()
	}
}

// approx rounds a timeout derived from a deadline (1.4999s) for a message.
func approx(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return (d + 50*time.Millisecond).Truncate(100 * time.Millisecond)
}

// oneLine joins a multi-line message.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ; ")), " ")
}
