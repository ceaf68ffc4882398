// Package errlist flattens errors joined with errors.Join, for messages
// that give one line per problem (a config entry, a catalog entry).
package errlist

// Flatten lists the errors joined in err, depth first; an error that joins
// nothing is returned alone, and nil gives nil.
func Flatten(err error) []error {
	if err == nil {
		return nil
	}
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var out []error
	for _, e := range j.Unwrap() {
		out = append(out, Flatten(e)...)
	}
	return out
}
