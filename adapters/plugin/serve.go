package plugin

import (
	"os"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
)

// Serve is an adapter's main: it makes the handshake and serves impl until
// the gateway is done with it. Started by hand, without the handshake
// cookie, it prints that it is an adapter and exits 1.
//
//	func main() { plugin.Serve(npmAdapter{}) }
func Serve(impl Adapter) {
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig: Handshake,
		Plugins:         goplugin.PluginSet{pluginName: &grpcPlugin{impl: impl}},
		GRPCServer:      goplugin.DefaultGRPCServer,
		// go-plugin's own chatter at debug level would fill the gateway
		// log at every start; its warnings and errors still go there.
		Logger: hclog.New(&hclog.LoggerOptions{Name: "go-plugin", Level: hclog.Warn, Output: os.Stderr}),
	})
}
