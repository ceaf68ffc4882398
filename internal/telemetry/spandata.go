package telemetry

import (
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// spanData is what a recording span records, with the ids and times
// the export writes (otlpBatch).
type spanData struct {
	sc      trace.SpanContext
	parent  trace.SpanContext
	name    string
	kind    trace.SpanKind
	start   time.Time
	end     time.Time
	links   []trace.Link
	status  codes.Code
	message string
	nattrs  int
	attrs   [inlineAttrs]stringAttr
	more    []stringAttr // past inlineAttrs
}

// inlineAttrs is how many attributes a span holds in place: the most a
// gateway span sets (a failed call's server span).
const inlineAttrs = 12

// stringAttr is one attribute of a span: a key and its string value.
type stringAttr struct{ key, value string }
