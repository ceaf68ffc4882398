package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// A sandbox without egress is a network namespace with only loopback
// (the brief's definition; CI runs as root). `unshare -n` makes one with
// loopback down; this test binary, run inside it with netnsEnv set,
// brings lo up and execs the command after it (netnsMain, from TestMain),
// so that no iproute2 is needed.
const netnsEnv = "MCP_E2E_NETNS_EXEC"

// netnsMain is the helper's entry point: lo up, then exec os.Args[1:].
func netnsMain() int {
	if err := loUp(); err != nil {
		fmt.Fprintln(os.Stderr, "netns helper: bring lo up:", err)
		return 111
	}
	argv := os.Args[1:]
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "netns helper:", err)
		return 127
	}
	env := []string{}
	for _, kv := range os.Environ() {
		if len(kv) < len(netnsEnv) || kv[:len(netnsEnv)] != netnsEnv {
			env = append(env, kv)
		}
	}
	err = syscall.Exec(path, argv, env)
	fmt.Fprintln(os.Stderr, "netns helper: exec:", err)
	return 126
}

func loUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("ifreq: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("get flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("set flags: %w", err)
	}
	return nil
}

// offline returns a command that runs argv in a new network namespace
// with only loopback. It skips the test where that cannot be made,
// except under CI=true, where it fails.
func offline(t *testing.T, argv ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("unshare", "-n", "true").CombinedOutput(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("unshare -n fails in CI: %v %s", err, out)
		}
		t.Skipf("no network namespace here (unshare -n: %v %s)", err, out)
	}
	cmd := exec.Command("unshare", append([]string{"-n", self}, argv...)...)
	cmd.Env = append(os.Environ(), netnsEnv+"=1")
	return cmd
}

// inNetnsOf returns a command that runs argv in the network namespace
// of process pid (a daemon started offline), to reach its loopback.
func inNetnsOf(t *testing.T, pid int, argv ...string) *exec.Cmd {
	t.Helper()
	if _, err := exec.LookPath("nsenter"); err != nil {
		t.Fatalf("nsenter (util-linux, as unshare) is missing: %v", err)
	}
	return exec.Command("nsenter", append([]string{"--net=/proc/" + strconv.Itoa(pid) + "/ns/net", "--"}, argv...)...)
}
