package chaos

import (
	"os"
	"testing"

	"github.com/mcp-gateway/mcp-gateway/internal/testbin"
)

var gatewayBin string // built once for every test here

func TestMain(m *testing.M) {
	os.Exit(testbin.Main(m, "mcp-gateway-chaos-test-", &gatewayBin))
}

// needNPM returns test/node_modules, or skips without it (fails in CI).
func needNPM(t *testing.T) string { return testbin.NodeModules(t) }
