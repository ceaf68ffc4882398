package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
)

// Prepare builds the binaries into tmp, sets cfg.Bin and cfg.TempDir,
// points cfg.Everything at test/node_modules' server-everything if it and
// node are installed (`make npm`), and sets cfg.Pulled if node and npm
// are (the pulled figures then pull from the registry); it returns a note
// when they are not.
func Prepare(ctx context.Context, cfg *Config, tmp string) (note string, err error) {
	bin, err := Build(ctx, tmp)
	if err != nil {
		return "", err
	}
	cfg.Bin, cfg.TempDir = bin, tmp
	Subreaper()
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	script := filepath.Join(root, "test", "node_modules", ".bin", "mcp-server-everything")
	node, nodeErr := exec.LookPath("node")
	_, npmErr := exec.LookPath("npm")
	cfg.Pulled = nodeErr == nil && npmErr == nil
	if _, err := os.Stat(script); err != nil || nodeErr != nil {
		return "server-everything figures skipped: run `make npm` (needs node and test/node_modules)", nil
	}
	cfg.Everything = []string{node, script}
	return "", nil
}
