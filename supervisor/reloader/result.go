package reloader

// Result says what a catalog reload changed (SPEC §6.3); the
// control socket sends it as `mcp-gateway reload`'s answer (SPEC §8.1).
type Result struct {
	// Added, Removed and Changed name catalog entries (built-in and file
	// merged) that differ from the last good catalog.
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changed []string `json:"changed"`
	// Updated names the servers whose launch spec changed.
	Updated []string `json:"updated"`
	// Restarted names the updated servers that were running and were
	// restarted; an updated server that was not running starts with its new
	// spec on its next call.
	Restarted []string `json:"restarted"`
	// Failed lists updated servers whose restart failed.
	Failed []ServerError `json:"failed"`
	// Kept lists servers that no longer resolve against the new catalog;
	// they keep running on their last spec.
	Kept []ServerError `json:"kept"`
}

// Normalize makes every nil list empty, so that the JSON form always has
// every key with an array (`reload --json` printed {} when nothing
// changed, which scripts could not index).
func (r *Result) Normalize() {
	for _, l := range []*[]string{&r.Added, &r.Removed, &r.Changed, &r.Updated, &r.Restarted} {
		if *l == nil {
			*l = []string{}
		}
	}
	for _, l := range []*[]ServerError{&r.Failed, &r.Kept} {
		if *l == nil {
			*l = []ServerError{}
		}
	}
}

// ServerError is one server and what went wrong with it.
type ServerError struct {
	Server string `json:"server"`
	Error  string `json:"error"`
}

func serverNames(errs []ServerError) []string {
	var names []string
	for _, e := range errs {
		names = append(names, e.Server)
	}
	return names
}
