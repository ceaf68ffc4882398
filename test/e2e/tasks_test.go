package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// gatewayTaskID is the shape of a gateway task id: 128 random bits,
// base64url. The fixtures' own ids differ: the modern fixture's are UUIDs,
// the legacy fixture's 32 hex digits.
var gatewayTaskID = regexp.MustCompile(`^[A-Za-z0-9_-]{22}$`)

// TestTypeScriptClientTasks runs the TypeScript SDK v2 client
// (@modelcontextprotocol/client 2.4.0, test/client/modern-client.mjs --task)
// through the gateway against servers that make their own tasks (issue 14):
//
//   - modern: the modern fixture (@modelcontextprotocol/server 2.4.0 and its
//     tasks engine) makes the task of start_task; the client, at 2026-07-28
//     with the tasks extension, gets resultType "task", listens for the task
//     and polls tasks/get until completed;
//   - legacy: the legacy Go fixture makes the task of slow_compute for a
//     2025-11-25 task-augmented call; the client polls tasks/get, then takes
//     tasks/result.
//
// and across eras, where the gateway makes the task in the caller's era
// and follows the server's (aggregator/taskfollow.go):
//
//   - legacy→modern: the client in legacy mode (its initialize declares
//     the tasks extension) asks a 2025-11-25 task of the modern fixture's
//     start_task; the gateway makes it and follows the fixture's own task;
//   - modern→legacy: the client at 2026-07-28 calls the legacy fixture's
//     failing_job, marked taskSupport "required"; the gateway adds "task"
//     params, follows the fixture's task and shows a gateway-made one.
//
// Each time the task goes working → completed with the tool's own output,
// and every task id the client sees is the gateway's, never the server's.
func TestTypeScriptClientTasks(t *testing.T) {
	needNPM(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH")
	}
	t.Run("modern", func(t *testing.T) {
		fixture := filepath.Join(root, "test", "fixtures", "modern-server.mjs")
		g := launch(t, t.TempDir(), fmt.Sprintf(`{"modern": {"runCmd": "exec node %s"}}`, fixture))
		lines := runTSClient(t, node, g, "--mode", "modern", "--task", "start_task", "--args", `{"seconds":2}`, "--listen")
		id := checkTask(t, lines, "task finished")
		var notes []map[string]any
		for _, l := range lines {
			if l["event"] == "task-notification" {
				notes = append(notes, l["params"].(map[string]any))
			}
		}
		if len(notes) != 1 || notes[0]["taskId"] != id || notes[0]["status"] != "completed" || !strings.Contains(fmt.Sprint(notes[0]["result"]), "task finished") {
			t.Errorf("want one notifications/tasks of task %s, completed with its result; got %v", id, notes)
		}
	})
	t.Run("legacy-to-modern", func(t *testing.T) {
		fixture := filepath.Join(root, "test", "fixtures", "modern-server.mjs")
		g := launch(t, t.TempDir(), fmt.Sprintf(`{"modern": {"runCmd": "exec node %s"}}`, fixture))
		lines := runTSClient(t, node, g, "--mode", "legacy", "--task", "start_task", "--args", `{"seconds":2}`)
		checkTask(t, lines, "task finished")
	})
	t.Run("modern-to-legacy", func(t *testing.T) {
		dir := t.TempDir()
		g := launch(t, dir, fmt.Sprintf(`{"legacy": {"runCmd": "exec %s"}}`, buildLegacyFixture(t, dir)))
		lines := runTSClient(t, node, g, "--mode", "modern", "--task", "failing_job")
		checkTask(t, lines, "failing_job failed on purpose")
	})
	t.Run("legacy", func(t *testing.T) {
		dir := t.TempDir()
		g := launch(t, dir, fmt.Sprintf(`{"legacy": {"runCmd": "exec %s"}}`, buildLegacyFixture(t, dir)))
		lines := runTSClient(t, node, g, "--mode", "legacy", "--task", "slow_compute", "--args", `{"seconds":1}`)
		id := checkTask(t, lines, "computed after 1s")
		final := lines[len(lines)-1]
		res, _ := final["result"].(map[string]any)
		related := fmt.Sprint(res["_meta"])
		if !strings.Contains(related, "taskId:"+id) {
			t.Errorf("tasks/result's related-task _meta %s, want task %s", related, id)
		}
	})
}

// buildLegacyFixture builds the legacy Go fixture (test/conformance/
// fixture) into dir and returns its path.
func buildLegacyFixture(t *testing.T, dir string) string {
	t.Helper()
	fixture := filepath.Join(dir, "conformance-fixture")
	build := exec.Command("go", "build", "-o", fixture, "./test/conformance/fixture")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the legacy fixture: %v\n%s", err, out)
	}
	return fixture
}

// checkTask checks the lines of one --task step: created working, polled
// working then completed, the final result holding want, one gateway task
// id throughout. It returns that id.
func checkTask(t *testing.T, lines []map[string]any, want string) string {
	t.Helper()
	dump, _ := json.MarshalIndent(lines, "", "  ")
	var created, final map[string]any
	var statuses []string
	ids := map[any]bool{}
	for _, l := range lines {
		switch {
		case l["step"] == "task-created":
			created = l
			ids[l["taskId"]] = true
		case l["event"] == "task-status":
			statuses = append(statuses, fmt.Sprint(l["status"]))
			ids[l["taskId"]] = true
		case l["step"] == "task":
			final = l
			ids[l["taskId"]] = true
		}
	}
	if created == nil || final == nil {
		t.Fatalf("no task-created or final task line:\n%s", dump)
	}
	id, _ := created["taskId"].(string)
	if !gatewayTaskID.MatchString(id) || len(ids) != 1 {
		t.Errorf("task ids %v, want one gateway id (22 base64url characters), not the server's:\n%s", ids, dump)
	}
	if task := fmt.Sprint(created["task"]); !strings.Contains(task, "status:working") {
		t.Errorf("CreateTaskResult %s, want status working", task)
	}
	if !slices.Equal(statuses, []string{"working", "completed"}) || final["status"] != "completed" {
		t.Errorf("statuses %v then %v, want working → completed:\n%s", statuses, final["status"], dump)
	}
	if res := fmt.Sprint(final["result"]); !strings.Contains(res, want) {
		t.Errorf("final result %s, want the tool's output %q", res, want)
	}
	return id
}

// runTSClient runs test/client/modern-client.mjs against g and returns its
// JSON lines; a non-zero exit fails the test.
func runTSClient(t *testing.T, node string, g *gateway, args ...string) []map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	argv := append([]string{filepath.Join(root, "test", "client", "modern-client.mjs"), "--url", g.url, "--token", g.token, "--timeout", "30"}, args...)
	cmd := exec.CommandContext(ctx, node, argv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("modern-client %v: %v\n--- stdout ---\n%s\n--- stderr ---\n%s", args, err, stdout.String(), stderr.String())
	}
	var lines []map[string]any
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("modern-client printed a non-JSON line %q", sc.Text())
		}
		lines = append(lines, m)
	}
	return lines
}
