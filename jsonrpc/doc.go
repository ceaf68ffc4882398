// Package jsonrpc is the gateway's JSON-RPC 2.0 codec, shared by every
// package that touches MCP traffic: the /mcp relay (aggregator), the
// upstream connections (supervisor) and the benchmark (bench).
//
// It reads what the relay needs of a message (its envelope: id, method,
// params, result, error; a member of an object) without decoding the rest,
// and writes messages around raw values: params, results and error data
// stay the bytes they arrived as, so key order and numbers reach the other
// side unchanged (SPEC §4.3, §4.4). Reader splits newline-delimited
// messages (MCP stdio transport) with a bound on a line's size.
//
//	message.go  Message, Decode, Error, the codes, Request/Response/… encoders, ReadEnvelope, ValidEnvelope
//	valid.go    Valid: one validity pass, no allocation
//	scanned.go  LongStrings: a message's long strings checked as it arrives, for ValidEnvelopeScanned and DecodeOwnedScanned
//	index.go    Index: the members of a message's params as its validation found them (ValidEnvelopeIndexed), read again without a scan
//	scan.go     Members, Member, Replace: reading an object without decoding it
//	object.go   Fields/Encode: an object's members in order, for rewriting
//	strings.go  Text, String, Quote: a JSON string read and written
//	reader.go   Reader: newline-delimited messages, bounded
package jsonrpc
