package telemetry

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Tracing is the gateway's tracer and its export (SPEC §11.3): spans are
// started on the call's path (Tracer), decided by the OpenTelemetry SDK's
// sampler, and exported over OTLP by the OTLP exporter's client in
// batches from a bounded queue (spanQueue). A nil *Tracing is tracing
// off: no span is made and nothing is exported.
type Tracing struct {
	tracer Tracer
	queue  *spanQueue
}

// FromEnv switches tracing on as the standard OpenTelemetry environment
// asks (the OTel SDK environment variables specification), and returns
// nil, tracing off, when it does not:
//
//   - on when OTEL_TRACES_EXPORTER names otlp, or is unset and
//     OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is
//     set; off when it is "none", when OTEL_SDK_DISABLED is true, and when
//     none of them is set (the gateway's default);
//   - OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL: http/protobuf (the default) or
//     grpc; the exporter reads its endpoint, headers, timeout, compression
//     and TLS from the environment itself;
//   - OTEL_SERVICE_NAME (default "mcp-gateway") and
//     OTEL_RESOURCE_ATTRIBUTES name the resource;
//   - OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG choose the sampler
//     (samplerFromEnv; the default: parentbased_always_on);
//   - OTEL_BSP_* size the export queue and its batches (spanQueue).
//
// Another exporter, protocol or sampler, a sampler argument that is not
// a ratio, or an endpoint that is not an http(s) URL, is an error naming
// the variable. On, it logs where the spans go and how they are sampled.
// Nothing is exported before Run.
func FromEnv(getenv func(string) string, version string, m *Metrics, log *slog.Logger) (*Tracing, error) {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return nil, nil
	}
	on, err := exporterOn(getenv)
	if !on || err != nil {
		return nil, err
	}
	sampler, err := samplerFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	endpoint, err := endpointFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	protocol, client, err := newClient(getenv)
	if err != nil {
		return nil, err
	}
	res, err := resource.New(context.Background(),
		resource.WithAttributes(attribute.String("service.name", "mcp-gateway"), attribute.String("service.version", version)),
		resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("make trace resource: %w", err)
	}
	if endpoint == "" { // the exporter's default
		endpoint = "http://localhost:4318"
		if protocol == "grpc" {
			endpoint = "http://localhost:4317"
		}
	}
	log.Info("tracing on: sampled spans are exported over OTLP", "endpoint", endpoint, "protocol", protocol, "sampler", sampler.Description())
	return NewTracing(client, sampler, res, version, m, log, getenv), nil
}

// NewTracing is tracing that sends through client, started, the spans
// sampler keeps, with resource res (nil: the SDK's default) and the
// gateway's scope at version; sampler nil is the SDK's default,
// parentbased_always_on; getenv sizes its queue (OTEL_BSP_*; nil: the
// defaults). The messages client.UploadTraces is given are the queue's
// again once it returns: a client that keeps them must copy them
// (proto.Clone). FromEnv makes the daemon's; tests and benchmarks make
// their own.
func NewTracing(client otlptrace.Client, sampler sdktrace.Sampler, res *resource.Resource, version string, m *Metrics, log *slog.Logger, getenv func(string) string) *Tracing {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if sampler == nil {
		sampler = sdktrace.ParentBased(sdktrace.AlwaysSample()) // the SDK's default
	}
	t := &Tracing{tracer: Tracer{sampler: sampler}}
	t.queue = newSpanQueue(client, res, version, m, log, getenv)
	t.tracer.queue = t.queue
	return t
}

// exporterOn reads OTEL_TRACES_EXPORTER (a comma-separated list) and the
// endpoints.
func exporterOn(getenv func(string) string) (bool, error) {
	list := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER"))
	if list == "" {
		return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "", nil
	}
	on := false
	for e := range strings.SplitSeq(list, ",") {
		switch e = strings.ToLower(strings.TrimSpace(e)); e {
		case "otlp":
			on = true
		case "none", "":
		default:
			return false, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: the gateway exports traces over OTLP only (otlp, or none)", list)
		}
	}
	return on, nil
}

// newClient makes and starts the OTLP exporter's client that
// OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL names, and returns the protocol;
// the client reads the rest of the OTEL_EXPORTER_OTLP_* environment
// itself.
func newClient(getenv func(string) string) (string, otlptrace.Client, error) {
	name, protocol := "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if protocol == "" {
		name, protocol = "OTEL_EXPORTER_OTLP_PROTOCOL", getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	var client otlptrace.Client
	switch protocol = cmp.Or(strings.TrimSpace(protocol), "http/protobuf"); protocol {
	case "http/protobuf":
		client = otlptracehttp.NewClient()
	case "grpc":
		client = otlptracegrpc.NewClient()
	default:
		return "", nil, fmt.Errorf("%s=%s: the gateway speaks OTLP as http/protobuf or grpc", name, protocol)
	}
	if err := client.Start(context.Background()); err != nil {
		return "", nil, fmt.Errorf("start OTLP trace client: %w", err)
	}
	return protocol, client, nil
}

// endpointFromEnv is the collector's URL OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
// else OTEL_EXPORTER_OTLP_ENDPOINT, names, without the credentials it may
// hold ("": neither is set, the exporter's default). Each that is set must
// be a URL of scheme http or https and a host, as the OTLP exporter
// specification has it: the exporter takes "127.0.0.1:4318" for a scheme
// and sends to its default instead, and "collector" for a path, and every
// export fails; an error names the variable, and its value only if it
// holds no credentials.
func endpointFromEnv(getenv func(string) string) (string, error) {
	var endpoint string
	for _, name := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"} {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			continue
		}
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			if strings.Contains(v, "@") {
				v = "…"
			}
			return "", fmt.Errorf("%s=%s: want the collector's URL, http:// or https:// and a host (http://collector:4318)", name, v)
		}
		u.User = nil // credentials in the URL stay out of the log
		endpoint = u.String()
	}
	return endpoint, nil
}

// Tracer is the gateway's tracer; nil when tracing is off.
func (t *Tracing) Tracer() *Tracer {
	if t == nil {
		return nil
	}
	return &t.tracer
}

// Run exports spans until Shutdown (the daemon's trace actor runs it).
func (t *Tracing) Run() {
	if t != nil {
		t.queue.run()
	}
}

// Shutdown exports the spans still queued, within ctx, and stops the
// exporter; Run returns.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.queue.Shutdown(ctx)
}

// ForceFlush exports the spans queued now and waits for it, within ctx.
func (t *Tracing) ForceFlush(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.queue.ForceFlush(ctx)
}
