package plugin

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mcp-gateway/mcp-gateway/adapters"
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
