package httpup

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file says why an HTTP server could not be used (SPEC §7.9: the
// cause, named): it did not answer (reachError: DNS, connect, TLS, a
// broken connection), it answered with an error status or with a body
// that is not MCP (statusError), or it redirected elsewhere
// (redirectError, refused by sameOrigin). Messages show the url without its
// userinfo and query (ShownURL), and a body's words masked, so that
// neither a configured header nor a key in the url reaches an error, the
// log, /health or status.

// reachError is a request that got no HTTP answer: the server cannot be
// reached, or the connection broke. It is what makes a run's server lost.
type reachError struct {
	op    string // "POST http://host/mcp"
	cause string // "connect to 127.0.0.1:9: connection refused"
	err   error
}

func (e *reachError) Error() string { return e.op + ": " + e.cause }
func (e *reachError) Unwrap() error { return e.err }

// redirectError is a redirect the gateway refused to follow.
type redirectError struct{ to string }

func (e *redirectError) Error() string {
	return "the server redirected to " + e.to + ", another origin; the gateway follows redirects only within the url's scheme, host and port, so that its headers stay there"
}

// describe turns the error of client.Do into a reachError naming the
// cause, or, for a refused redirect, the redirectError. ctx's own errors
// come back as they are.
func describe(op string, err error) error {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err // its text holds the whole url
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var redirect *redirectError
	if errors.As(err, &redirect) {
		return redirect
	}
	return &reachError{op: op, cause: Cause(err), err: err}
}

// Cause names the class of a connection error: DNS, connect, TLS.
func Cause(err error) string {
	var (
		dns     *net.DNSError
		op      *net.OpError
		unknown x509.UnknownAuthorityError
		host    x509.HostnameError
		invalid x509.CertificateInvalidError
		verify  *tls.CertificateVerificationError
		record  tls.RecordHeaderError
		alert   tls.AlertError
	)
	switch {
	case errors.As(err, &dns):
		return "DNS: cannot resolve " + dns.Name + ": " + dns.Err
	case errors.As(err, &unknown), errors.As(err, &host), errors.As(err, &invalid), errors.As(err, &verify):
		return "TLS: the server's certificate is not trusted: " + err.Error()
	case errors.As(err, &record), errors.As(err, &alert):
		return "TLS: " + err.Error()
	case errors.As(err, &op) && op.Op == "dial":
		inner := op.Err
		var sys *os.SyscallError
		if errors.As(inner, &sys) {
			inner = sys.Err
		}
		to := ""
		if op.Addr != nil {
			to = " to " + op.Addr.String()
		}
		return "connect" + to + ": " + inner.Error()
	}
	return err.Error()
}

// errClosed is a request on a transport that was closed.
var errClosed = errors.New("the connection to the server is closed")

// statusError is an HTTP answer that is not an MCP answer: an error
// status, or a success whose body is neither JSON nor an SSE stream.
type statusError struct {
	op     string // "POST http://host/mcp"
	status string // "500 Internal Server Error"
	ctype  string // the Content-Type, for a body that is not MCP
	body   string // the start of the body, on one line, masked
	rpc    string // a JSON-RPC error the body held, "message (code)"
}

func (e *statusError) Error() string {
	msg := e.op + ": HTTP " + e.status
	if e.ctype != "" {
		msg += " with Content-Type " + e.ctype + ", not an MCP answer (application/json or text/event-stream); is url the server's MCP endpoint?"
	}
	switch {
	case e.rpc != "":
		msg += ": " + e.rpc
	case e.body != "":
		msg += ": " + e.body
	}
	return msg
}

// newStatusError describes resp, whose body (what was read of it) is
// body; log masks what the body repeats of the secrets.
func newStatusError(op string, resp *http.Response, body []byte, log *logfile.Log, notMCP bool) *statusError {
	e := &statusError{op: op, status: resp.Status}
	if notMCP {
		e.ctype = resp.Header.Get("Content-Type")
		if e.ctype == "" {
			e.ctype = "(none)"
		}
	}
	if msg, err := jsonrpc.Decode(body); err == nil && len(msg.Error) > 0 {
		rpcErr := jsonrpc.DecodeError(msg.Error)
		e.rpc = log.Mask(fmt.Sprintf("%s (%d)", oneLine(rpcErr.Message, 300), rpcErr.Code))
		return e
	}
	e.body = log.Mask(oneLine(string(body), 300))
	return e
}

// oneLine is s with its control characters as spaces, cut at n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }), " ")
	return truncate(strings.TrimSpace(s), n)
}

// truncate shortens s for a log line to n bytes, saying how long it was.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d bytes)", len(s))
}
