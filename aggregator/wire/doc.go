// Package wire is the framing of /mcp (MCP Streamable HTTP, SPEC §3):
// what a POST body holds and what an answer looks like on the wire, and
// nothing of what the messages mean.
//
//	message.go  ParseBody: a body into Messages (their envelopes, every byte
//	            kept as sent), the id rule, HTTPError
//	stream.go   Stream: one answer as a JSON body or an SSE stream, with its
//	            keep-alive and its bounded writes
//	sseclock.go the one clock of every answer's sseAfter (ArmSSE, OnLong)
//	answer.go   ResultParts/ErrorParts/ErrorMessage: a response rendered
//	            around a raw result without copying it; WriteError,
//	            WriteRPCError, WriteParts, WriteResult; SkipBody, an answer
//	            that leaves the body unread
package wire
