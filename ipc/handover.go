package ipc

import (
	"encoding/json"
	"fmt"
	"io"
)

// HandoverFD and ReportFD are the file descriptors the daemon finds its two
// pipes on (exec.Cmd.ExtraFiles[0] and [1]).
const (
	HandoverFD = 3
	ReportFD   = 4
)

// maxHandover bounds the hand-over document: 16 MiB.
const maxHandover = 16 << 20

// Handover is what the launcher gives the daemon, as one JSON document on
// the hand-over pipe, or on a warm daemon's hand-over socket (warm.go):
//
//	{"config": {…}, "token": "…", "settings": {…}}
//	{"config": {…}, "settings": {…}, "warm": true}           `mcp-gateway warm`: no token
//	{"config": {…}, "token": "…", "settings": {…}, "env": […]} to a warm daemon
//
// Settings is opaque here; the CLI defines it. Warm starts a warm daemon
// (SPEC §2.9): its servers run, and it waits for a config on its
// hand-over socket. Env is the launcher's environment without the token,
// which a warm daemon gives the servers it starts, and compares with the
// environment of the ones it runs; the detached daemon inherits it instead.
type Handover struct {
	Config   json.RawMessage `json:"config"`
	Token    string          `json:"token,omitempty"`
	Settings json.RawMessage `json:"settings"`
	Warm     bool            `json:"warm,omitempty"`
	Env      []string        `json:"env,omitempty"`
}

// WriteHandover writes h to w and closes it.
func WriteHandover(w io.WriteCloser, h Handover) error {
	err := json.NewEncoder(w).Encode(h)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write hand-over: %w", err)
	}
	return nil
}

// ReadHandover reads the hand-over document from r.
func ReadHandover(r io.Reader) (Handover, error) {
	var h Handover
	if err := json.NewDecoder(io.LimitReader(r, maxHandover)).Decode(&h); err != nil {
		return Handover{}, fmt.Errorf("read hand-over: %w", err)
	}
	return h, nil
}
