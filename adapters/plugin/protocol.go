package plugin

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcp-gateway/mcp-gateway/internal/errlist"

	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/mcp-gateway/mcp-gateway/adapters"
)

// ProtocolVersion is the version of the adapter contract. It is the
// handshake's protocol version, the "protocol" field of every request and
// the v1 in the gRPC service name. An incompatible change bumps all three.
const ProtocolVersion = 1

// Handshake is go-plugin's handshake: the gateway sets the cookie in the
// adapter's environment, and go-plugin's Serve refuses to run without it.
// The cookie tells a program it was started as an adapter; it is not a
// secret.
var Handshake = goplugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "MCP_GATEWAY_ADAPTER",
	MagicCookieValue: "7d3c5b1e-mcp-gateway-adapter",
}

// pluginName is the one plugin in go-plugin's plugin set.
const pluginName = "adapter"

// serviceName is the gRPC service; see adapter.proto.
const serviceName = "mcpgateway.adapter.v1.Adapter"

// maxMessage bounds a response the gateway accepts from an adapter.
const maxMessage = 1 << 20

// Adapter is what an external adapter implements: the built-in
// adapters.Adapter's Resolve, with the keys it claims declared up front as
// prefixes. It may also have a Help() string method, describing the key's
// form for the unknown-server message, as the built-ins do.
type Adapter interface {
	// Prefixes are the key prefixes the adapter handles, e.g. "npm/".
	// Each ends with "/".
	Prefixes() []string
	// Resolve validates one entry and returns how to launch it, plus
	// warnings. It must not start anything. The error (which may join
	// several) is shown to the user under the key; the gateway adds the
	// entry's envs to the spec's Env itself. Kind, Secrets and Prepare of
	// the spec are not sent.
	Resolve(key string, e adapters.Entry) (adapters.LaunchSpec, []string, error)
}

// describeRequest and describeResponse are Describe's JSON.
type describeRequest struct {
	Protocol int `json:"protocol"`
}

type describeResponse struct {
	Protocol int      `json:"protocol"`
	Prefixes []string `json:"prefixes"`
	Help     string   `json:"help,omitempty"`
}

// resolveRequest and resolveResponse are Resolve's JSON.
type resolveRequest struct {
	Protocol int                        `json:"protocol"`
	Key      string                     `json:"key"`
	Entry    map[string]json.RawMessage `json:"entry"`
}

type resolveResponse struct {
	Argv     []string          `json:"argv"`
	Env      map[string]string `json:"env,omitempty"`
	Dir      string            `json:"dir,omitempty"`
	Install  [][]string        `json:"install,omitempty"`
	Warnings []string          `json:"warnings,omitempty"`
	Errors   []string          `json:"errors,omitempty"`
}

// grpcPlugin is go-plugin's glue: the adapter side registers the service,
// the gateway side gets an rpcClient.
type grpcPlugin struct {
	goplugin.NetRPCUnsupportedPlugin
	impl Adapter // adapter side only
}

var _ goplugin.GRPCPlugin = (*grpcPlugin)(nil)

func (p *grpcPlugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	s.RegisterService(&serviceDesc, &rpcServer{impl: p.impl})
	return nil
}

func (p *grpcPlugin) GRPCClient(_ context.Context, _ *goplugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &rpcClient{conn: c}, nil
}

// rpcClient calls the service. Responses over maxMessage are refused.
type rpcClient struct{ conn *grpc.ClientConn }

func (c *rpcClient) call(ctx context.Context, method string, req, resp any) error {
	in, err := json.Marshal(req)
	if err != nil {
		return err
	}
	out := new(wrapperspb.BytesValue)
	if err := c.conn.Invoke(ctx, "/"+serviceName+"/"+method, wrapperspb.Bytes(in), out, grpc.MaxCallRecvMsgSize(maxMessage)); err != nil {
		return err
	}
	if err := json.Unmarshal(out.GetValue(), resp); err != nil {
		return &garbageError{err: err}
	}
	return nil
}

// garbageError is a response that is not the JSON the contract describes.
type garbageError struct{ err error }

func (e *garbageError) Error() string { return "invalid response: " + e.err.Error() }
func (e *garbageError) Unwrap() error { return e.err }

func (c *rpcClient) describe(ctx context.Context) (describeResponse, error) {
	var resp describeResponse
	err := c.call(ctx, "Describe", describeRequest{Protocol: ProtocolVersion}, &resp)
	return resp, err
}

func (c *rpcClient) resolve(ctx context.Context, key string, entry map[string]json.RawMessage) (resolveResponse, error) {
	var resp resolveResponse
	err := c.call(ctx, "Resolve", resolveRequest{Protocol: ProtocolVersion, Key: key, Entry: entry}, &resp)
	return resp, err
}

// rpcServer serves the service on the adapter side.
type rpcServer struct{ impl Adapter }

// service is the handler type the descriptor names.
type service interface {
	handle(method string, in []byte) ([]byte, error)
}

func (s *rpcServer) handle(method string, in []byte) ([]byte, error) {
	var out any
	switch method {
	case "Describe":
		resp := describeResponse{Protocol: ProtocolVersion, Prefixes: s.impl.Prefixes()}
		if h, ok := s.impl.(interface{ Help() string }); ok {
			resp.Help = h.Help()
		}
		out = resp
	case "Resolve":
		var req resolveRequest
		if err := json.Unmarshal(in, &req); err != nil {
			return nil, status.Error(codes.InvalidArgument, "decode request: "+err.Error())
		}
		e, err := decodeEntry(req.Entry)
		if err != nil {
			return nil, status.Error(codes.InvalidArgument, "decode entry: "+err.Error())
		}
		spec, warns, err := s.impl.Resolve(req.Key, e)
		resp := resolveResponse{Warnings: warns}
		if err != nil {
			for _, e := range errlist.Flatten(err) {
				resp.Errors = append(resp.Errors, e.Error())
			}
		} else {
			resp.Argv, resp.Env, resp.Dir, resp.Install = spec.Argv, spec.Env, spec.Dir, spec.Install
		}
		out = resp
	default:
		return nil, status.Errorf(codes.Unimplemented, "unknown method %s", method)
	}
	return json.Marshal(out)
}

// serviceDesc is what protoc would generate from adapter.proto, written by
// hand so that the build needs no protoc.
var serviceDesc = grpc.ServiceDesc{
	ServiceName: serviceName,
	HandlerType: (*service)(nil),
	Methods: []grpc.MethodDesc{
		{MethodName: "Describe", Handler: handler("Describe")},
		{MethodName: "Resolve", Handler: handler("Resolve")},
	},
	Metadata: "adapter.proto",
}

func handler(method string) func(any, context.Context, func(any) error, grpc.UnaryServerInterceptor) (any, error) {
	return func(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
		in := new(wrapperspb.BytesValue)
		if err := dec(in); err != nil {
			return nil, err
		}
		call := func(_ context.Context, req any) (any, error) {
			out, err := srv.(service).handle(method, req.(*wrapperspb.BytesValue).GetValue())
			if err != nil {
				return nil, err
			}
			return wrapperspb.Bytes(out), nil
		}
		if interceptor == nil {
			return call(ctx, in)
		}
		return interceptor(ctx, in, &grpc.UnaryServerInfo{Server: srv, FullMethod: "/" + serviceName + "/" + method}, call)
	}
}

// decodeEntry splits an entry object into adapters.Entry, as the gateway
// did before sending it (the shared fields were checked there).
func decodeEntry(obj map[string]json.RawMessage) (adapters.Entry, error) {
	e := adapters.Entry{Props: map[string]json.RawMessage{}}
	for k, v := range obj {
		switch k {
		case "runCmd", "installCmd":
			var s *string
			if err := json.Unmarshal(v, &s); err != nil {
				return e, errors.New(k + ": want a string")
			}
			if k == "runCmd" {
				e.RunCmd = s
			} else {
				e.InstallCmd = s
			}
		case "envs":
			if err := json.Unmarshal(v, &e.Envs); err != nil {
				return e, errors.New("envs: want an object of strings")
			}
		default:
			e.Props[k] = v
		}
	}
	return e, nil
}

// encodeEntry is the inverse of decodeEntry: the entry object as written.
func encodeEntry(e adapters.Entry) map[string]json.RawMessage {
	obj := make(map[string]json.RawMessage, len(e.Props)+3)
	for k, v := range e.Props {
		obj[k] = v
	}
	for k, v := range map[string]any{"runCmd": e.RunCmd, "installCmd": e.InstallCmd, "envs": e.Envs} {
		if raw, err := json.Marshal(v); err == nil && string(raw) != "null" {
			obj[k] = raw
		}
	}
	return obj
}
