// Package telemetry owns what the gateway tells operators about its calls
// besides the log's own lines (SPEC §11): the Prometheus metrics served on
// /metrics (metrics.go), the tracer whose spans start on the call's path
// (tracer.go; its sampler, the OpenTelemetry SDK's, sampler.go), what
// they record (spandata.go), and their bounded export (spanqueue.go),
// written in OTLP's protobuf (otlp.go) and
// sent by the OTLP exporter's client (tracing.go), and the W3C trace
// context carried in a request's params._meta (meta.go; MCP 2026-07-28
// SEP-414).
//
// Names follow the OpenTelemetry semantic conventions for MCP
// (open-telemetry/semantic-conventions-genai docs/gen-ai/mcp.md) where
// they have one: the spans' mcp.method.name, gen_ai.tool.name,
// jsonrpc.request.id, mcp.session.id, error.type and
// rpc.response.status_code attributes, and the metrics
// mcp.server.operation.duration and mcp.client.operation.duration, which
// Prometheus spells mcp_server_operation_duration_seconds and
// mcp_client_operation_duration_seconds.
//
// Tracing is off unless the standard OTEL_* environment asks for it
// (FromEnv); off, a nil *Tracing costs nothing: no exporter, no span, and
// _meta passes byte for byte (SPEC §4.3).
package telemetry
