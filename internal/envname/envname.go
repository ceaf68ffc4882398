// Package envname holds the one rule for environment variable names that
// the config's envs (SPEC §5.5), catalog entries' env (SPEC §6.2) and
// external adapters' launch specs (SPEC §9.2) all follow.
package envname

import (
	"fmt"
	"regexp"
)

// Pattern is the rule, as written in messages.
const Pattern = `[A-Za-z_][A-Za-z0-9_]*`

var re = regexp.MustCompile(`^` + Pattern + `$`)

// Check returns nil if name is a valid variable name, and otherwise an
// error naming it and the rule; the caller adds which field it was in.
func Check(name string) error {
	if !re.MatchString(name) {
		return fmt.Errorf("variable name %q must match %s", name, Pattern)
	}
	return nil
}
