package supervisor

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/budget"
	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/internal/telemetry"
	"github.com/mcp-gateway/mcp-gateway/supervisor/httpup"
	"github.com/mcp-gateway/mcp-gateway/supervisor/proc"
)

// DefaultStartTimeout bounds one server's start: prepare, spawn,
// initialize and tools/list (SPEC §2.4).
const DefaultStartTimeout = 55 * time.Second

// DefaultEventStall is how long an HTTP server may pause in the middle of
// a message before the gateway gives up on that answer (Options.EventStall;
// see httpup.DefaultEventStall).
const DefaultEventStall = httpup.DefaultEventStall

// Options configures a Supervisor.
type Options struct {
	Log    *logfile.Log // server stderr and gateway lines; required
	Logger *slog.Logger // defaults to Log.Logger()
	// BaseEnv is the environment children start from; TokenEnv and every
	// MCP_GATEWAY_* are always removed (Environ). Defaults to os.Environ().
	BaseEnv []string
	// StartTimeout bounds each start (default DefaultStartTimeout).
	StartTimeout time.Duration
	// Stop holds the waits of the stop sequence.
	Stop proc.StopTimeouts
	// Version is sent upstream as clientInfo.version.
	Version string
	// OnListChanged is called after one of a server's lists (tools,
	// prompts, resources, resource templates) changed: a restart with
	// other lists, or its own list_changed (SPEC §4.5). It must not block
	// long.
	OnListChanged func(server string)
	// OnResourceUpdated is called with a server's
	// notifications/resources/updated, its params raw, and uri, the
	// subscribed URI it is for: the listen's for a modern server (whose
	// notification names the subscription), params.uri for a legacy one
	// (SPEC §4.8; subscribe.go). It is called on the server's read loop
	// and must not block.
	OnResourceUpdated func(server, uri string, params json.RawMessage)
	// EventStall bounds a pause of an HTTP server in the middle of a
	// message (default DefaultEventStall; SPEC §7.9).
	EventStall time.Duration
	// OnTaskStatus is called with a server's notifications/tasks/status
	// (MCP 2025-11-25) or notifications/tasks (the 2026-07-28 tasks
	// extension), its params raw, and num, the number of the run
	// (process) that sent it, so that the task it names can be told to its
	// creator (SPEC §4.7). It is called on the server's read loop and must
	// not block.
	OnTaskStatus func(server string, num uint64, method string, params json.RawMessage)
	// Budget is the memory budget what servers send is read from (SPEC
	// §3.9, internal/budget), shared with the clients' side. nil: none.
	Budget *budget.Budget
	// Tracer makes a client span for each request of a traced call, and
	// its context goes to the server in _meta (SPEC §11.3); nil: tracing
	// is off and params pass as they are. Metrics gets each request's
	// duration (§11.2); nil: none.
	Tracer  *telemetry.Tracer
	Metrics *telemetry.Metrics

	ctx        context.Context
	httpClient *http.Client // every HTTP server's (httpup.NewClient)
}
