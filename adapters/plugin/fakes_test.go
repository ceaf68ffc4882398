package plugin

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/mcp-gateway/mcp-gateway/adapters"
)

// Fake adapters are this test binary, started through a symbolic link
// named after the behaviour (STYLE 7): TestMain runs fakes[base name of
// argv[0]] when the handshake cookie is set.
var fakes = map[string]func(){
	// Well-behaved: "fake/<anything>" runs <anything>; "fake/bad" is invalid.
	"fake": func() {
		fmt.Fprintln(os.Stderr, "fake adapter starting") // before Serve: the real stderr
		Serve(fakeAdapter{prefixes: []string{"fake/"}})
	},
	// Prints the environment it was given as argv.
	"env": func() { Serve(envAdapter{}) },
	// Dies before the handshake.
	"crash": func() {
		fmt.Fprintln(os.Stderr, "adapter crash: boom")
		os.Exit(3)
	},
	// Never makes its handshake.
	"hang": func() { time.Sleep(time.Hour) }, // a hang, not a wait
	// Prints something that is not a handshake, then waits.
	"garbage": func() {
		fmt.Println("hello, I am not an adapter")
		time.Sleep(time.Hour) // a hang, not a wait
	},
	// A go-plugin program expecting another cookie: it refuses to run.
	"badcookie": func() {
		goplugin.Serve(&goplugin.ServeConfig{
			HandshakeConfig: goplugin.HandshakeConfig{ProtocolVersion: 1, MagicCookieKey: "OTHER_PLUGIN", MagicCookieValue: "x"},
			Plugins:         goplugin.PluginSet{pluginName: &grpcPlugin{impl: fakeAdapter{prefixes: []string{"x/"}}}},
			GRPCServer:      goplugin.DefaultGRPCServer,
		})
	},
	// Speaks a future protocol version.
	"v2": func() {
		hs := Handshake
		hs.ProtocolVersion = 2
		goplugin.Serve(&goplugin.ServeConfig{
			HandshakeConfig: hs,
			Plugins:         goplugin.PluginSet{pluginName: &grpcPlugin{impl: fakeAdapter{prefixes: []string{"v2/"}}}},
			GRPCServer:      goplugin.DefaultGRPCServer,
		})
	},
	"dup-a":    func() { Serve(fakeAdapter{prefixes: []string{"npm/"}}) },
	"dup-b":    func() { Serve(fakeAdapter{prefixes: []string{"npm/"}}) },
	"nested":   func() { Serve(fakeAdapter{prefixes: []string{"npm/@corp/"}}) },
	"github":   func() { Serve(fakeAdapter{prefixes: []string{"github/acme/"}}) },
	"noprefix": func() { Serve(fakeAdapter{}) },
	"badpre":   func() { Serve(fakeAdapter{prefixes: []string{"no slash"}}) },
	// Fail in Resolve, after a good handshake.
	"crash-resolve": func() { Serve(fakeAdapter{prefixes: []string{"cr/"}, resolve: func() { os.Exit(2) }}) },
	"hang-resolve":  func() { Serve(fakeAdapter{prefixes: []string{"hr/"}, resolve: func() { time.Sleep(time.Hour) }}) }, // a hang, not a wait
	"badspec": func() {
		Serve(fakeAdapter{prefixes: []string{"bs/"}, spec: &adapters.LaunchSpec{Dir: "relative", Env: map[string]string{"BAD NAME": "x"}}})
	},
	"nonjson": func() { serveRaw([]string{"nj/"}, []byte("<html>not json")) },
	// A handshake line carrying a server certificate, though the gateway
	// asked for no TLS.
	"certline": func() {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotAfter: time.Now().Add(time.Hour)}
		der, _ := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		fmt.Printf("1|1|unix|/nonexistent.sock|grpc|%s\n", base64.RawStdEncoding.EncodeToString(der))
		time.Sleep(time.Hour) // a hang, not a wait
	},
	// Makes its handshake, then accepts connections and never speaks.
	"mute": func() {
		sock := filepath.Join(os.Getenv("PLUGIN_UNIX_SOCKET_DIR"), "adapter.sock")
		ln, err := net.Listen("unix", sock)
		if err != nil {
			os.Exit(1)
		}
		fmt.Printf("1|1|unix|%s|grpc\n", sock)
		var conns []net.Conn
		for {
			c, err := ln.Accept()
			if err != nil {
				os.Exit(1)
			}
			conns = append(conns, c)
		}
	},
	// Follows only the documented protocol, without go-plugin, as an
	// adapter in another language would.
	"foreign": serveForeign,
	"describe-garbage": func() {
		goplugin.Serve(&goplugin.ServeConfig{
			HandshakeConfig: Handshake,
			Plugins:         goplugin.PluginSet{pluginName: rawPlugin{describe: []byte(`{"protocol":"one"}`)}},
			GRPCServer:      goplugin.DefaultGRPCServer,
		})
	},
}

type fakeAdapter struct {
	prefixes []string
	resolve  func()               // runs first in Resolve
	spec     *adapters.LaunchSpec // returned as is
}

func (a fakeAdapter) Prefixes() []string { return a.prefixes }

func (a fakeAdapter) Resolve(key string, e adapters.Entry) (adapters.LaunchSpec, []string, error) {
	if a.resolve != nil {
		a.resolve()
	}
	if a.spec != nil {
		return *a.spec, nil, nil
	}
	fmt.Fprintf(os.Stderr, "resolving %s\n", key) // after Serve: the gRPC stdio stream
	rest := strings.TrimPrefix(key, "fake/")
	if rest == "bad" {
		return adapters.LaunchSpec{}, []string{"a warning"}, errors.Join(errors.New("first problem"), errors.New("second problem, token "+e.Envs["TOKEN"]))
	}
	var warns []string
	for k := range e.Props {
		warns = append(warns, "saw property "+k)
	}
	if e.RunCmd != nil {
		warns = append(warns, "saw runCmd "+*e.RunCmd)
	}
	if v, ok := e.Envs["TOKEN"]; ok {
		warns = append(warns, "saw token "+v)
	}
	return adapters.LaunchSpec{
		Argv:    []string{rest, "arg"},
		Env:     map[string]string{"FROM_ADAPTER": "1", "TOKEN": "adapter's"},
		Dir:     "/tmp",
		Install: [][]string{{"true", rest}},
	}, warns, nil
}

type envAdapter struct{}

func (envAdapter) Prefixes() []string { return []string{"env/"} }
func (envAdapter) Resolve(string, adapters.Entry) (adapters.LaunchSpec, []string, error) {
	return adapters.LaunchSpec{Argv: append([]string{"env"}, os.Environ()...)}, nil, nil
}

// rawPlugin serves fixed bytes as the JSON of both methods.
type rawPlugin struct {
	goplugin.NetRPCUnsupportedPlugin
	describe, resolve []byte
}

func (p rawPlugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	s.RegisterService(&serviceDesc, p)
	return nil
}

func (p rawPlugin) GRPCClient(context.Context, *goplugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("adapter side only")
}

func (p rawPlugin) handle(method string, _ []byte) ([]byte, error) {
	if method == "Describe" {
		return p.describe, nil
	}
	return p.resolve, nil
}

func serveRaw(prefixes []string, resolve []byte) {
	desc := fmt.Appendf(nil, `{"protocol":1,"prefixes":[%q]}`, prefixes[0])
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig: Handshake,
		Plugins:         goplugin.PluginSet{pluginName: rawPlugin{describe: desc, resolve: resolve}},
		GRPCServer:      goplugin.DefaultGRPCServer,
	})
}

// serveForeign is a minimal adapter without go-plugin: check the cookie,
// serve the service on a Unix socket, print the handshake line. It serves
// neither go-plugin's controller nor its stdio stream.
func serveForeign() {
	if os.Getenv(Handshake.MagicCookieKey) != Handshake.MagicCookieValue {
		os.Exit(1)
	}
	// The gateway makes this private dir and removes it afterwards.
	sock := filepath.Join(os.Getenv("PLUGIN_UNIX_SOCKET_DIR"), "adapter.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		os.Exit(1)
	}
	s := grpc.NewServer()
	s.RegisterService(&grpc.ServiceDesc{
		ServiceName: "mcpgateway.adapter.v1.Adapter",
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{
			{MethodName: "Describe", Handler: foreignHandler(func([]byte) string { return `{"protocol":1,"prefixes":["py/"],"help":"\"py/<module>\""}` })},
			{MethodName: "Resolve", Handler: foreignHandler(func(in []byte) string {
				var req struct {
					Key   string         `json:"key"`
					Entry map[string]any `json:"entry"`
				}
				json.Unmarshal(in, &req)
				return fmt.Sprintf(`{"argv":["uvx",%q],"warnings":["entry has %d fields"]}`, strings.TrimPrefix(req.Key, "py/"), len(req.Entry))
			})},
		},
	}, struct{}{})
	fmt.Printf("1|1|unix|%s|grpc\n", sock)
	s.Serve(ln)
}

func foreignHandler(f func([]byte) string) func(any, context.Context, func(any) error, grpc.UnaryServerInterceptor) (any, error) {
	return func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
		in := new(wrapperspb.BytesValue)
		if err := dec(in); err != nil {
			return nil, err
		}
		return wrapperspb.Bytes([]byte(f(in.Value))), nil
	}
}
