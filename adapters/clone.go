package adapters

import (
	"context"
	"errors"
	"io"
)

// CloneOptions says what to clone and where.
type CloneOptions struct {
	URL   string    // https://…/<owner>/<repo>.git
	Dir   string    // final directory
	Token string    // optional basic-auth password for URL's host only
	Out   io.Writer // progress lines for the log
}

// Clone makes a shallow clone of opts.URL at opts.Dir, reusing a complete
// clone already there.
func Clone(ctx context.Context, opts CloneOptions) error {
	return errors.New("github servers are not supported yet")
}
