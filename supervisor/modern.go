package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// An upstream server's era, as Status.Era shows it (SPEC §7.8; MCP
// 2026-07-28 basic/versioning "Terminology").
const (
	// EraLegacy: initialize handshake (2025-11-25 and earlier).
	EraLegacy = "legacy"
	// EraModern: no handshake; every request carries its version and the
	// client's capabilities in _meta (2026-07-28 and later).
	EraModern = "modern"
)

// firstModern is the first modern protocol revision; revision names are
// dates, so they order as strings.
const firstModern = "2026-07-28"

// ModernVersions are the modern revisions the gateway can drive an
// upstream server with, newest first.
var ModernVersions = []string{"2026-07-28"}

// codeUnsupportedVersion is UnsupportedProtocolVersionError's code (MCP
// 2026-07-28 basic/versioning); its data is {"supported": [versions],
// "requested": version}.
const codeUnsupportedVersion = -32022

// modernRefusal tells whether err is a server's refusal of the legacy
// initialize that identifies it as modern only (SPEC §7.8): -32022 whose
// data.supported lists only modern versions. It returns the version to
// drive it with (the newest of ModernVersions it supports), or an error
// if it supports none of them.
func modernRefusal(err error) (version string, modern bool, _ error) {
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != codeUnsupportedVersion {
		return "", false, nil
	}
	var data struct {
		Supported []string `json:"supported"`
	}
	if json.Unmarshal(rpcErr.Data, &data) != nil || len(data.Supported) == 0 {
		return "", false, nil
	}
	for _, v := range data.Supported {
		if v < firstModern {
			return "", false, nil // it speaks a legacy version: not ours to switch
		}
	}
	for _, v := range ModernVersions {
		if slices.Contains(data.Supported, v) {
			return v, true, nil
		}
	}
	return "", true, fmt.Errorf("choose protocol version: the server supports only %s; the gateway speaks %s",
		strings.Join(data.Supported, ", "), strings.Join(append(ModernVersions, ProtocolVersion), ", "))
}

// discovery is what server/discover told about a modern server (MCP
// 2026-07-28 server/discover), raw.
type discovery struct {
	Supported    []string        `json:"supportedVersions"`
	Capabilities json.RawMessage `json:"capabilities"`
	Instructions string          `json:"instructions"`
	Meta         struct {
		ServerInfo json.RawMessage `json:"io.modelcontextprotocol/serverInfo"`
	} `json:"_meta"`
}

// handshakeModern drives a server that refused initialize as modern:
// server/discover (request _meta from now on, see stampMeta), its own
// subscriptions/listen for the list changes it declares (listen.go), then
// tools/list and the other lists it declares (lists.go).
func (l *launcher) handshakeModern(ctx context.Context, r *run, version string) (Lists, error) {
	self, _ := json.Marshal(map[string]string{"name": "mcp-gateway", "version": l.opts.Version})
	r.conn.SetModern(version, self)
	res, err := r.conn.Call(ctx, "server/discover", nil, nil)
	if err != nil {
		return Lists{}, &stepError{"server/discover", err}
	}
	var d discovery
	if err := json.Unmarshal(res, &d); err != nil {
		return Lists{}, &stepError{"server/discover", fmt.Errorf("decode result: %w", err)}
	}
	if !slices.Contains(d.Supported, version) {
		return Lists{}, &stepError{"server/discover", fmt.Errorf("the server lists versions %s, not %s, which it asked for",
			strings.Join(d.Supported, ", "), version)}
	}
	r.protocol, r.era = version, EraModern
	r.capabilities, r.serverInfo = d.Capabilities, d.Meta.ServerInfo
	r.caps = parseCapabilities(d.Capabilities)
	r.instructions = instructionsOf(d.Instructions, d.Meta.ServerInfo)
	l.opts.Logger.Info("server refused the legacy initialize; driving it as modern", "server", l.name,
		"protocolVersion", version, "serverInfo", string(d.Meta.ServerInfo), "capabilities", string(d.Capabilities))
	if filter := listenFilter(r.caps); filter != "" {
		if err := l.openListen(ctx, r, filter); err != nil {
			return Lists{}, &stepError{"subscriptions/listen", err}
		}
	}
	var lists Lists
	err = l.surf.listKinds(ctx, r, ListTools|r.caps.declared(), &lists)
	return lists, err
}

// listenAckWait bounds the wait for a modern server to acknowledge one of
// the gateway's subscriptions/listen. At a start, past it the start goes on
// (with a log line): list changes the server tags with the subscription
// still count, and a server that never acknowledges costs a start no more
// than this. A resource subscription not acknowledged in time fails.
const listenAckWait = 5 * time.Second

// listenFilter is the listen params asking for the list changes caps
// declare; "" when it declares none.
func listenFilter(caps Capabilities) string {
	var kinds []string
	for _, k := range []struct {
		on   bool
		name string
	}{{caps.ToolsListChanged, "toolsListChanged"}, {caps.PromptsListChanged, "promptsListChanged"}, {caps.ResourcesListChanged, "resourcesListChanged"}} {
		if k.on {
			kinds = append(kinds, `"`+k.name+`":true`)
		}
	}
	if len(kinds) == 0 {
		return ""
	}
	return `{"notifications":{` + strings.Join(kinds, ",") + `}}`
}

// openListen opens the run's subscription for list changes (filter, from
// listenFilter) and waits (up to listenAckWait) for the server to
// acknowledge it, so that no change made after the lists that follow is
// missed. A server that refuses or does not acknowledge in time is logged
// and run without it; only the run's death or ctx fail the start.
func (l *launcher) openListen(ctx context.Context, r *run, filter string) error {
	sub, err := r.conn.Listen(filter, "")
	if err != nil {
		return err
	}
	t := time.NewTimer(listenAckWait)
	defer t.Stop()
	select {
	case <-sub.Acked():
	case <-sub.Ended():
	case <-t.C:
		l.opts.Logger.Warn("server did not acknowledge subscriptions/listen in time; going on", "server", l.name, "wait", listenAckWait)
	case <-r.conn.Dead():
		return r.conn.Failure()
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}
