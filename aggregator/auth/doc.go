// Package auth owns who may reach /mcp and /metrics (SPEC §3.2, §3.4):
// the bearer token, compared in constant time, whose 401s are logged at
// a bounded rate and never with the token tried; the Origin check
// against DNS rebinding; and the token's digest, by which the gateway
// names a modern caller without holding its token.
//
//	auth.go  RequireBearer, Bearer, CheckOrigin, TokenDigest
//	log.go   Log: the 401 log, one line at once, then a count per interval
package auth
