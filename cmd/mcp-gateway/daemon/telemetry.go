package daemon

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/telemetry"
)

// telemetryParts are the daemon's metrics and tracing (SPEC §11.2,
// §11.3).
type telemetryParts struct {
	metrics *telemetry.Metrics
	tracing *telemetry.Tracing // nil: tracing is off
}

// newTelemetry makes the metrics registry (version names the service), and the tracer when the
// OTEL_* environment switches tracing on (telemetry.FromEnv); a bad
// OTEL_TRACES_EXPORTER, protocol, sampler or endpoint fails the start,
// naming the variable.
func newTelemetry(version string, logger *slog.Logger) (*telemetryParts, error) {
	t := &telemetryParts{metrics: telemetry.NewMetrics()}
	tr, err := telemetry.FromEnv(os.Getenv, version, t.metrics, logger)
	if err != nil {
		return nil, err
	}
	t.tracing = tr // FromEnv logs that tracing is on, where to and how it samples
	return t, nil
}

// shutdown stops the exporter, should no trace actor have run (a start
// that failed); at most a second.
func (t *telemetryParts) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = t.tracing.Shutdown(ctx)
}
