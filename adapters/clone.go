package adapters

import (
	"context"
	"errors"
	"fmt"
	"io"
	neturl "net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// CloneOptions says what to clone and where.
type CloneOptions struct {
	URL   string    // https://…/<owner>/<repo>.git
	Dir   string    // final directory
	Token string    // optional basic-auth password for URL's host only
	Out   io.Writer // progress lines for the log; nil discards them
}

// completeMarker is written inside .git of a clone once it has finished,
// before the clone is renamed into place. A directory at Dir without it was
// not made by Clone and is replaced.
const completeMarker = "mcp-gateway-complete"

// Clone makes a shallow clone (depth 1, the remote's default branch only, no
// tags, no submodules) of opts.URL at opts.Dir (SPEC §5.3), with go-git, so
// no git binary is needed.
//
// A complete clone already at opts.Dir (one whose .git holds the marker
// Clone writes) is reused without touching the network. Otherwise the
// clone goes into a sibling directory "<base>~clone-<random>" and is renamed
// onto opts.Dir only once it has finished, so an interrupted clone never
// leaves a directory that looks complete. Siblings "<base>~…" left by an
// earlier interrupted run are removed first; "~" cannot occur in a GitHub
// owner or repository name, so another server's clone never matches. Clone
// assumes one caller per opts.Dir at a time (one daemon, or one `pull`).
//
// opts.Token, if set, is sent as the basic-auth password (user
// "x-access-token") for this clone only. go-git drops it on a redirect to
// another origin, and submodules are not fetched, so it goes to no other
// host; it is never written to disk nor put in an error.
//
// When ctx is done the clone stops, the temporary directory is removed and
// the error wraps context.Cause(ctx). Errors do not repeat opts.URL: the
// caller names the repository once.
func Clone(ctx context.Context, opts CloneOptions) error {
	if opts.URL == "" || opts.Dir == "" {
		return errors.New("want CloneOptions.URL and Dir")
	}
	out := opts.Out
	if out == nil {
		out = io.Discard
	}
	if isCompleteClone(opts.Dir) {
		fmt.Fprintf(out, "reusing the clone at %s\n", opts.Dir)
		return nil
	}
	parent, base := filepath.Dir(opts.Dir), filepath.Base(opts.Dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("create parent directory: %w", err)
	}
	if err := removeLeftovers(parent, base); err != nil {
		return err
	}
	// go-git holds a repository's objects in memory while it checks them
	// out (a 200 MB file took the daemon to 760 MB, kept long after):
	// give that memory back to the system once the clone is over.
	defer debug.FreeOSMemory()
	tmp, err := os.MkdirTemp(parent, base+"~clone-")
	if err != nil {
		return fmt.Errorf("create temporary directory: %w", err)
	}
	done := false
	defer func() {
		if !done {
			_ = os.RemoveAll(tmp)
		}
	}()

	start := time.Now()
	if err := fetchInto(ctx, tmp, opts, out); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, ".git", completeMarker), []byte("complete\n"), 0o644); err != nil {
		return fmt.Errorf("mark clone complete: %w", err)
	}
	if err := moveIntoPlace(tmp, opts.Dir); err != nil {
		return err
	}
	done = true
	fmt.Fprintf(out, "cloned in %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}

// fetchInto makes a shallow clone of opts.URL (one branch, no tags, no
// submodules) in the empty directory tmp, printing progress on out.
func fetchInto(ctx context.Context, tmp string, opts CloneOptions, out io.Writer) error {
	// Credentials in the URL (a mirror's https://user:token@host/) are
	// used as the clone's basic auth, like a token, and never shown or
	// written into .git/config.
	url, user, pass := splitUserinfo(opts.URL)
	fmt.Fprintf(out, "cloning %s into %s\n", url, opts.Dir)
	progress := &progressLines{w: out}
	co := &git.CloneOptions{
		URL:               url,
		Depth:             1,
		SingleBranch:      true,
		Tags:              git.NoTags,
		RecurseSubmodules: git.NoRecurseSubmodules,
		Progress:          progress,
	}
	switch {
	case opts.Token != "":
		co.Auth = &githttp.BasicAuth{Username: "x-access-token", Password: opts.Token}
	case user != "" || pass != "":
		co.Auth = &githttp.BasicAuth{Username: user, Password: pass}
	}
	// git.PlainClone's filesystem rewrites an absolute symlink target to
	// lie under the directory it checks out into, which is then renamed:
	// "passwd -> /etc/passwd" became a broken link into the temporary
	// directory. BoundOS keeps targets as git does (and keeps the checkout
	// from writing through a symlink to outside the clone).
	wt := osfs.New(tmp, osfs.WithBoundOS())
	dot := osfs.New(filepath.Join(tmp, git.GitDirName), osfs.WithBoundOS())
	_, err := git.CloneContext(ctx, filesystem.NewStorage(dot, cache.NewObjectLRUDefault()), wt, co)
	progress.flush()
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("fetch repository: %w", context.Cause(ctx))
		}
		return fmt.Errorf("fetch repository: %w", explainFetchError(err, co.Auth != nil))
	}
	return nil
}

// explainFetchError replaces go-git's not-found and auth errors, which end
// with the server's response body (often a multi-line page), by their
// sentinel plus a hint; other errors are returned as they are.
func explainFetchError(err error, haveToken bool) error {
	tokenHint := "a private repository needs GITHUB_TOKEN in envs"
	if haveToken {
		tokenHint = "the token was refused"
	}
	switch {
	case errors.Is(err, transport.ErrRepositoryNotFound):
		return fmt.Errorf("%w (check the owner and name; %s)", transport.ErrRepositoryNotFound, tokenHint)
	case errors.Is(err, transport.ErrAuthenticationRequired):
		return fmt.Errorf("%w (%s)", transport.ErrAuthenticationRequired, tokenHint)
	case errors.Is(err, transport.ErrAuthorizationFailed):
		return fmt.Errorf("%w (the token lacks read access to the repository)", transport.ErrAuthorizationFailed)
	}
	return err
}

// isCompleteClone reports whether dir holds a clone Clone finished.
func isCompleteClone(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ".git", completeMarker))
	return err == nil
}

// removeLeftovers removes parent/<base>~* (temporary and set-aside
// directories of earlier runs).
func removeLeftovers(parent, base string) error {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return fmt.Errorf("list %s: %w", parent, err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), base+"~") {
			if err := os.RemoveAll(filepath.Join(parent, e.Name())); err != nil {
				return fmt.Errorf("remove leftover of an earlier clone: %w", err)
			}
		}
	}
	return nil
}

// moveIntoPlace renames tmp to dir. Something already at dir (not a
// complete clone, or Clone would have reused it) is first moved aside to
// "<base>~old-…", since a rename onto a non-empty directory fails, and then
// removed.
func moveIntoPlace(tmp, dir string) error {
	aside := ""
	if _, err := os.Lstat(dir); err == nil {
		aside = filepath.Join(filepath.Dir(tmp), strings.Replace(filepath.Base(tmp), "~clone-", "~old-", 1))
		if err := os.Rename(dir, aside); err != nil {
			return fmt.Errorf("move incomplete %s aside: %w", dir, err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("move clone into place: %w", err)
	}
	if aside != "" {
		_ = os.RemoveAll(aside) // a failure leaves a "~" leftover, removed next time
	}
	return nil
}

// progressLines passes go-git's progress on line by line: a segment ended
// by '\r' (a counter the terminal would overwrite) is dropped, one ended by
// '\n' is written. Write never fails, so a broken log cannot stop a clone.
type progressLines struct {
	w   io.Writer
	buf []byte
}

// maxProgressLine bounds a line without '\n'; longer ones are cut.
const maxProgressLine = 4096

func (p *progressLines) Write(b []byte) (int, error) {
	for _, c := range b {
		switch c {
		case '\r':
			p.buf = p.buf[:0]
		case '\n':
			p.buf = append(p.buf, '\n')
			_, _ = p.w.Write(p.buf)
			p.buf = p.buf[:0]
		default:
			if len(p.buf) < maxProgressLine {
				p.buf = append(p.buf, c)
			}
		}
	}
	return len(b), nil
}

// flush writes a last line that had no '\n'.
func (p *progressLines) flush() {
	if len(p.buf) > 0 {
		_, _ = p.w.Write(append(p.buf, '\n'))
		p.buf = p.buf[:0]
	}
}

// splitUserinfo returns rawURL without its user:password@ part, and that
// user and password. A URL that does not parse is returned as it is.
func splitUserinfo(rawURL string) (clean, user, pass string) {
	u, err := neturl.Parse(rawURL)
	if err != nil || u.User == nil {
		return rawURL, "", ""
	}
	user = u.User.Username()
	pass, _ = u.User.Password()
	u.User = nil
	return u.String(), user, pass
}

// RedactURL returns rawURL without credentials, for messages.
func RedactURL(rawURL string) string {
	clean, _, _ := splitUserinfo(rawURL)
	return clean
}
