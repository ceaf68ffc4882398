package legacy

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/record"
	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/taskrun"
	"github.com/mcp-gateway/mcp-gateway/aggregator/tasks"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// This file is the legacy front (MCP 2024-11-05 … 2025-11-25, SPEC §3.2,
// §3.5): a POST of the session era, its session found or opened, its
// messages served; and what the rest of the gateway asks of the sessions
// (Lookup, End, the fan-out of news, CancelAll, EndStreams, Count).

// Versions are the legacy protocol versions (SPEC §3.1), newest first:
// they have initialize and sessions.
var Versions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// DefaultVersion is the protocol version of a request without an
// MCP-Protocol-Version header (MCP 2025-06-18 Streamable HTTP: "assume
// 2025-03-26").
const DefaultVersion = "2025-03-26"

// firstWithoutBatches is the first version without JSON-RPC batches.
const firstWithoutBatches = "2025-06-18"

// Front serves legacy sessions: their table, their POSTs (post.go),
// methods (methods.go) and tasks (tasks.go), over
// what Options gives it.
type Front struct {
	reg     *registry.Registry
	router  *relay.Router
	runner  *taskrun.Runner
	table   *tasks.Table
	subs    *registry.Subscriptions
	ups     []*supervisor.Upstream
	version string
	log     *slog.Logger
	begin   func(m *wire.Message, session string, hr *http.Request) *record.Record

	sessions *sessions
	levels   levels       // the servers' log level (loglevel.go)
	tasks    sessionTasks // the task methods (tasks.go)
}

// Options is what a Front serves over: the gateway's registry and router,
// its task runner and table, the resource subscriptions, the servers
// (for logging/setLevel), the gateway's version (serverInfo), its log, and
// Begin, which starts a request's record (session: the session's id, ""
// for an initialize). MaxSessions and SessionTimeout are the session
// table's cap and idle expiry (HTTPOptions).
type Options struct {
	Registry       *registry.Registry
	Router         *relay.Router
	Runner         *taskrun.Runner
	Tasks          *tasks.Table
	Subscriptions  *registry.Subscriptions
	Upstreams      []*supervisor.Upstream
	Version        string
	Log            *slog.Logger
	Begin          func(m *wire.Message, session string, hr *http.Request) *record.Record
	MaxSessions    int
	SessionTimeout time.Duration
}

// New makes the legacy front over o.
func New(o Options) *Front {
	f := &Front{reg: o.Registry, router: o.Router, runner: o.Runner, table: o.Tasks, subs: o.Subscriptions, ups: o.Upstreams,
		version: o.Version, log: o.Log, begin: o.Begin, sessions: newSessions(o.MaxSessions, o.SessionTimeout),
		tasks: sessionTasks{router: o.Router, runner: o.Runner, table: o.Tasks}}
	f.sessions.onEnd = f.sessionEnded
	return f
}

// Lookup returns the live session with id, or nil.
func (f *Front) Lookup(id string) *Session { return f.sessions.get(id) }

// End ends s (DELETE): see sessions.end. It reports whether s was live.
func (f *Front) End(s *Session) bool { return f.sessions.end(s) }

// Count returns the number of live sessions.
func (f *Front) Count() int { return f.sessions.count() }

// NotifyAll sends msg on every session's GET stream (SPEC §4.5).
func (f *Front) NotifyAll(msg []byte) { f.sessions.notifyAll(msg, f.log) }

// Notify queues msg on the GET stream of the session with id, if open.
func (f *Front) Notify(id string, msg []byte) { f.sessions.notifySession(id, msg) }

// CancelAll cancels every running request of every session with cause.
func (f *Front) CancelAll(cause error) {
	for _, s := range f.sessions.all() {
		s.cancelAll(cause)
	}
}

// EndStreams ends every session's GET stream (shutdown, SPEC §7.6).
func (f *Front) EndStreams() {
	for _, s := range f.sessions.all() {
		s.mu.Lock()
		if s.get != nil {
			s.get.stop()
		}
		s.mu.Unlock()
	}
}

// sessionEnded lets go of what an ended session held (sessions.onEnd):
// its resource subscriptions (an upstream one it was the last client of
// ends) and its log level.
func (f *Front) sessionEnded(s *Session) {
	f.subs.DropAll(s)
	s.mu.Lock()
	leveled := s.level != ""
	s.mu.Unlock()
	if leveled {
		f.levels.apply(f.sessions.all(), f.ups)
	}
}
