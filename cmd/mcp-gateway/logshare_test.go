package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLogFloodKeepsOthersLines: a server writes 50 MiB/s of stderr for 30
// s beside a quiet one (issue 25, SPEC §7.4). The flood is held to its
// share of the log and its drops are counted; the quiet server's lines
// and the gateway's start lines are all still in the log, which did not
// even rotate (the flood's share is 64 KiB/s after a 1 MiB burst: about
// 3 MiB in 30 s, under the 10 MB rotation).
func TestLogFloodKeepsOthersLines(t *testing.T) {
	const floodFor = 30 * time.Second
	e := newEnv(t)
	flood := fmt.Sprintf("MCP_FAKE_STDERR_FLOOD=50,%d", floodFor.Milliseconds())
	if code, _, errOut := e.launch(fakeConfig(map[string][]string{"flood": {flood}, "quiet": {`MCP_FAKE_TOOLS=[{"name":"say","inputSchema":{"type":"object"}}]`}}),
		"GATEWAY_ACCESS_TOKEN=t"); code != 0 {
		t.Fatal(errOut)
	}
	s := openSession(t, e.url(), "t")
	end := time.Now().Add(floodFor + time.Second)
	var said []string
	tick := time.NewTicker(500 * time.Millisecond) // the quiet server's pace
	defer tick.Stop()
	for i := 0; time.Now().Before(end); i++ {
		line := fmt.Sprintf("quiet line %d", i)
		if res, err := s.call("say", fmt.Sprintf(`{"text":%q}`, line)); err != nil || !strings.Contains(res, "said") {
			t.Fatalf("quiet server: %v %s", err, res)
		}
		said = append(said, line)
		<-tick.C
	}
	// The flood has ended; a stop reports the count not yet reported.
	pid := e.daemonPID()
	_ = syscall.Kill(pid, syscall.SIGTERM)
	if !waitExit(t, pid, 15*time.Second) {
		t.Fatal("the daemon did not stop")
	}
	log := readLogs(t, e)
	defer func() {
		if t.Failed() {
			t.Logf("log tail: %s", tailOf(log, 3000))
		}
	}()
	for _, want := range []string{"msg=\"starting servers\"", "msg=ready"} {
		if !strings.Contains(log, want) {
			t.Errorf("the gateway's start line %s is gone from the log", want)
		}
	}
	for _, line := range said {
		if !strings.Contains(log, "[quiet] "+line+"\n") {
			t.Errorf("the quiet server's %q is gone from the log", line)
		}
	}
	var dropped int64
	for _, m := range regexp.MustCompile(`lines? from flood" server="flood" bytes=(\d+)`).FindAllStringSubmatch(log, -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		dropped += n
	}
	kept := int64(strings.Count(log, "[flood] ")) * 4 << 10
	t.Logf("flood: %d MiB dropped, %d KiB kept; log %d KiB", dropped>>20, kept>>10, len(log)>>10)
	if dropped < 100<<20 {
		t.Errorf("only %d MiB of the flood reported dropped: did it flood?", dropped>>20)
	}
	if kept > 4<<20 {
		t.Errorf("the flood kept %d KiB of the log, past its share (about 3 MiB in 30 s)", kept>>10)
	}
	if old, _ := filepath.Glob(e.path("gateway-*.log")); len(old) > 0 {
		t.Errorf("the log rotated during the flood: %v", old)
	}
}

// readLogs returns the log file and its rotated backups, oldest first.
func readLogs(t *testing.T, e *env) string {
	t.Helper()
	old, _ := filepath.Glob(e.path("gateway-*.log"))
	var b strings.Builder
	for _, p := range append(old, e.path("gateway.log")) {
		data, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

func tailOf(s string, n int) string { return s[max(0, len(s)-n):] }
