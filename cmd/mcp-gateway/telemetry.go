package main

import (
	"context"
	"log/slog"
	"net/url"
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

// newTelemetry makes the metrics registry, and the tracer when the
// OTEL_* environment switches tracing on (telemetry.FromEnv); a bad
// OTEL_TRACES_EXPORTER or protocol fails the start, naming the variable.
func newTelemetry(logger *slog.Logger) (*telemetryParts, error) {
	t := &telemetryParts{metrics: telemetry.NewMetrics()}
	tr, err := telemetry.FromEnv(os.Getenv, version, t.metrics, logger)
	if err != nil {
		return nil, err
	}
	t.tracing = tr
	if tr != nil {
		endpoint := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
		if endpoint == "" {
			endpoint = os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
		}
		if u, err := url.Parse(endpoint); err == nil && u.User != nil {
			u.User = nil // credentials in the URL stay out of the log
			endpoint = u.String()
		}
		logger.Info("tracing on: spans are exported over OTLP", "endpoint", endpoint,
			"protocol", firstSet(os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"), os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL"), "http/protobuf"))
	}
	return t, nil
}

// shutdown stops the exporter, should no trace actor have run (a start
// that failed); at most a second.
func (t *telemetryParts) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = t.tracing.Shutdown(ctx)
}

func firstSet(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
