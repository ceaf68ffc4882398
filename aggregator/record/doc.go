// Package record owns what an operator sees of each request to /mcp
// (SPEC §11): a Record, begun as the request is routed (Begin) and ended
// where its answer is written (End). For tools/call, prompts/get and
// resources/read it ends in one call log line (§11.1) and the call
// series of /metrics (§11.2); for every request, when tracing is on, it
// is the request's server span (§11.3), which continues the caller's
// trace (SEP-414) and which an MRTR retry or a task's methods join
// (Follows, Origin). What happens in between (the route, the outcome, a
// task made, a round of MRTR) is told to the Record by the code that
// knows it. A nil *Record takes every method and tells nothing.
//
//	record.go  Telemetry, Record: Begin, what it is told
//	span.go    its server span: Context, SpanContext, Follows, Origin
//	end.go     End: the span ended, the call's metrics and its call line
package record
