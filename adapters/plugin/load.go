package plugin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcp-gateway/mcp-gateway/adapters"
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

// builtinPrefixes are the key prefixes the built-in adapters own; an
// external adapter may not claim one, nor a prefix overlapping one.
var builtinPrefixes = []string{"github/"}

// Load starts every adapter in dir and asks each for its key prefixes. It
// returns one adapters.Adapter per adapter file, to be put after the
// built-ins, which take precedence:
//
//	list := append(adapters.Builtin(cat, gh), external...)
//
// env is the adapters' whole environment (the daemon's sanitised one: the
// host's own environment is not added), to which go-plugin adds its
// handshake variables. Each adapter's stderr goes to log under
// "adapter:<file>".
//
// The adapters run until closeAll, which stops every one of them and waits
// for it to exit; call it as soon as the entries are resolved. ctx bounds
// their whole life: the handshakes, every Resolve, and the processes
// themselves, which are killed when it is done. A missing dir means no
// adapters. On error nothing is left running, and closeAll is a no-op; the
// error names each adapter file at fault.
func Load(ctx context.Context, dir string, env []string, log Log) (list []adapters.Adapter, closeAll func(), err error) {
	noop := func() {}
	if log == nil {
		log = discardLog{}
	}
	paths, err := discover(dir, log)
	if err != nil || len(paths) == 0 {
		return nil, noop, err
	}
	procs := make([]*proc, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	for i, path := range paths {
		wg.Go(func() { procs[i], errs[i] = start(ctx, path, env, log) })
	}
	wg.Wait()
	var once sync.Once
	closeAll = func() {
		once.Do(func() {
			var wg sync.WaitGroup
			for _, p := range procs {
				if p != nil {
					wg.Go(p.stop)
				}
			}
			wg.Wait()
		})
	}
	if err := errors.Join(errs...); err != nil {
		closeAll()
		return nil, noop, err
	}
	if err := checkOverlaps(procs); err != nil {
		closeAll()
		return nil, noop, err
	}
	for _, p := range procs {
		list = append(list, &external{p: p})
	}
	return list, closeAll, nil
}

// discover lists the regular executable files in dir (following symbolic
// links), sorted by name. Dotfiles are skipped quietly; anything else that
// is not an executable file is skipped with a log line saying why, since a
// config naming its prefix otherwise fails as an unknown server, with no
// hint that the adapter was there.
func discover(dir string, log Log) ([]string, error) {
	if dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read adapters dir: %w", err)
	}
	var paths []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		fi, err := os.Stat(path)
		switch {
		case err != nil:
			log.Line("adapter:"+e.Name(), fmt.Sprintf("skipped: %v", err))
			continue
		case !fi.Mode().IsRegular():
			log.Line("adapter:"+e.Name(), fmt.Sprintf("skipped: not a regular file (%s)", fi.Mode().Type()))
			continue
		case fi.Mode().Perm()&0o111 == 0:
			log.Line("adapter:"+e.Name(), fmt.Sprintf("skipped: not executable (mode %s); chmod +x it to use it", fi.Mode().Perm()))
			continue
		}
		paths = append(paths, path)
	}
	return paths, nil
}

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

// checkOverlaps refuses a prefix that a built-in kind owns, or that two
// adapters claim; one prefix being a prefix of another counts.
func checkOverlaps(procs []*proc) error {
	overlap := func(a, b string) bool { return strings.HasPrefix(a, b) || strings.HasPrefix(b, a) }
	var errs []error
	for i, p := range procs {
		for _, pre := range p.prefixes {
			for _, b := range builtinPrefixes {
				if overlap(pre, b) {
					errs = append(errs, fmt.Errorf("adapter %s: prefix %q overlaps the built-in %q keys, which take precedence; choose another prefix", p.path, pre, b))
				}
			}
			for _, q := range procs[:i] {
				for _, other := range q.prefixes {
					switch {
					case pre == other:
						errs = append(errs, fmt.Errorf("prefix %q is claimed twice: by adapters %s and %s; remove one of them", pre, q.path, p.path))
					case overlap(pre, other):
						errs = append(errs, fmt.Errorf("prefix %q of adapter %s overlaps prefix %q of adapter %s; remove one of them", pre, p.path, other, q.path))
					}
				}
			}
		}
	}
	return errors.Join(errs...)
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
