package aggregator

import (
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/body"
	"github.com/mcp-gateway/mcp-gateway/aggregator/record"
	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/tasks"
	"github.com/mcp-gateway/mcp-gateway/internal/budget"
)

// HTTPOptions configures the endpoint (SPEC §3).
type HTTPOptions struct {
	// Token is the bearer token; an empty token fails closed (every /mcp
	// request is 401), SPEC §3.2.
	Token string
	// AllowedOrigins are Origin values accepted besides localhost ones,
	// e.g. "https://app.example.com" (SPEC §3.4). "*" accepts any.
	AllowedOrigins []string
	// SessionTimeout is the idle expiry of a session (default 3600 s).
	SessionTimeout time.Duration
	// MaxSessions caps concurrent sessions (default 100); the next
	// initialize gets 503.
	MaxSessions int
	// MaxBodyBytes caps one request body (default 64 MiB; SPEC §3.9 needs
	// at least 8 MiB). Larger bodies get 413.
	MaxBodyBytes int64
	// BodyTimeout bounds reading one request body (default 60 s); past
	// it the client gets 408.
	BodyTimeout time.Duration
	// Budget is the memory budget request bodies are read from (SPEC
	// §3.9, internal/budget), shared with the servers' side; a body that
	// does not fit waits briefly, then gets 503. nil: no budget.
	Budget *budget.Budget
	// StateTTL is how long an MRTR requestState the gateway issues is good
	// for, and how long a parked call waits for its retry (default 10 min,
	// SPEC §4.6).
	StateTTL time.Duration
	// Tasks bounds the tasks the gateway keeps for callers (SPEC §4.7;
	// zero fields take their defaults, see TaskLimits).
	Tasks TaskLimits
	// Health produces the /health document (default: Gateway.Health).
	Health func() any
	// Telemetry is what the endpoint tells of its requests: the call
	// log, /metrics, traces (SPEC §11; package record). Zero: nothing.
	Telemetry Telemetry
	// ToolSearch is the gateway's tool search (SPEC §4.10; zero: off),
	// which a client's query parameter tools overrides; auto is on past
	// ToolSearchThreshold tools (0: DefaultToolSearchThreshold).
	ToolSearch          ToolSearch
	ToolSearchThreshold int
}

// ToolSearch is the gateway's tool-search setting (SPEC §4.10,
// --tool-search): relay.ToolSearch, the package that routes by it. The
// zero value is off.
type ToolSearch = relay.ToolSearch

// The tool-search settings.
const (
	ToolSearchOff  = relay.ToolSearchOff
	ToolSearchOn   = relay.ToolSearchOn
	ToolSearchAuto = relay.ToolSearchAuto
)

// DefaultToolSearchThreshold is auto's threshold: search mode when the
// merged list holds more tools than this (SPEC §4.10).
const DefaultToolSearchThreshold = relay.DefaultToolSearchThreshold

// ParseToolSearch reads --tool-search's value: off, on or auto
// (relay.ParseToolSearch).
func ParseToolSearch(s string) (ToolSearch, error) { return relay.ParseToolSearch(s) }

// DefaultBodyTimeout bounds reading a POST body (body.DefaultTimeout:
// 64 MiB at about 1 MB/s).
const DefaultBodyTimeout = body.DefaultTimeout

// TaskLimits bounds the tasks the gateway keeps for callers (SPEC §4.7):
// tasks.Limits, the package that keeps them.
type TaskLimits = tasks.Limits

// Defaults of TaskLimits.
const (
	DefaultTasksPerCaller  = tasks.DefaultPerCaller
	DefaultTasksTotal      = tasks.DefaultTotal
	DefaultTaskResultBytes = tasks.DefaultResultBytes
	DefaultTaskTTL         = tasks.DefaultTTL
	DefaultTaskMinTTL      = tasks.DefaultMinTTL
	DefaultTaskMaxTTL      = tasks.DefaultMaxTTL
)

// Telemetry is what the endpoint tells about its requests (SPEC §11):
// record.Telemetry, the package whose records tell it.
type Telemetry = record.Telemetry

// Defaults for HTTPOptions.
const (
	DefaultSessionTimeout = time.Hour
	DefaultMaxSessions    = 100
	DefaultMaxBodyBytes   = 64 << 20
	DefaultStateTTL       = 10 * time.Minute
)

// withDefaults is o with its zero fields given their defaults (Health
// stays nil: Handler serves Gateway.Health then).
func (o HTTPOptions) withDefaults() HTTPOptions {
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = DefaultSessionTimeout
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = body.DefaultTimeout
	}
	if o.StateTTL <= 0 {
		o.StateTTL = DefaultStateTTL
	}
	return o
}
