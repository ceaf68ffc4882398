package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/mcp-gateway/mcp-gateway/codeapi"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// CodeDirEnv is the gateway's code API directory setting (SPEC §12.1):
// off in every gateway the benchmark launches but phase code's.
const CodeDirEnv = "MCP_GATEWAY_CODE_DIR"

// codeCallScript runs in one python3 process (so that process start is
// not counted): a call through the generated runtime (mcp_tools.echo.echo)
// and the same tools/call as a plain urllib POST, in alternating blocks,
// after a warm-up; it prints the two p50s in µs. argv: the code dir and
// the number of calls of each.
const codeCallScript = `import json, sys, time, urllib.request
sys.path.insert(0, sys.argv[1] + "/python")
from mcp_tools import echo as server
from mcp_tools import _client
n = int(sys.argv[2])
with open(sys.argv[1] + "/gateway.json") as f:
    conf = json.load(f)
with open(conf["tokenFile"]) as f:
    token = f.read().strip()
body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "echo", "arguments": {"message": "hello"}, "_meta": _client._META}}).encode()
headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
           "Authorization": "Bearer " + token, "MCP-Protocol-Version": _client.PROTOCOL_VERSION,
           "Mcp-Method": "tools/call", "Mcp-Name": "echo"}
def plain():
    req = urllib.request.Request(conf["url"], data=body, headers=headers, method="POST")
    with urllib.request.urlopen(req) as r:
        res = json.loads(r.read())
    if "hello" not in json.dumps(res["result"]):
        raise SystemExit("plain: %r" % res)
def code():
    out = server.echo(message="hello")
    if "hello" not in json.dumps(out):
        raise SystemExit("code: %r" % out)
for _ in range(20):
    plain(); code()
times = {plain: [], code: []}
block = 10
for i in range(max(1, n // block)):
    for f in ((plain, code) if i % 2 == 0 else (code, plain)):
        for _ in range(block):
            t0 = time.perf_counter()
            f()
            times[f].append(time.perf_counter() - t0)
p50 = lambda v: sorted(v)[len(v) // 2] * 1e6
print(json.dumps({"plain": p50(times[plain]), "code": p50(times[code])}))
`

// code is the code API's figure (SPEC §12, issue 35): a call through the
// generated Python runtime against a plain urllib POST of the same
// tools/call to the same gateway (the Go echo's tool), p50 of each in one
// python3 process; and the time to regenerate the tree of 1,000 tools on
// disk (codeapi.Writer, as the daemon does). Without python3 the call
// figure is skipped.
func (r *runner) code(ctx context.Context) error {
	if err := r.codeRegen(); err != nil {
		return err
	}
	if _, err := exec.LookPath("python3"); err != nil {
		r.logf("code: python3 not found; the call figure is skipped")
		return nil
	}
	parent, err := os.MkdirTemp(r.cfg.TempDir, "code-gw-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(parent)
	dir := filepath.Join(parent, "code")
	gw, err := r.startGatewayWith(ctx, config(r.echoServer()), LaunchOptions{Env: []string{CodeDirEnv + "=" + dir}})
	if err != nil {
		return err
	}
	defer gw.close()
	if !testwait.Until(10*time.Second, func() bool {
		_, err := os.Stat(filepath.Join(dir, "python/mcp_tools/echo/echo.py"))
		return err == nil
	}) {
		return fmt.Errorf("code: no code API in %s after 10 s:\n%s", dir, tailFile(filepath.Join(gw.proc.Dir, "gateway.log")))
	}
	n := max(20, r.cfg.Calls/5)
	cmd := exec.CommandContext(ctx, "python3", "-B", "-c", codeCallScript, dir, strconv.Itoa(n))
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("code: python3: %v\n%s%s", err, out, errOut.String())
	}
	var p50 struct{ Plain, Code float64 }
	if err := json.Unmarshal(out, &p50); err != nil {
		return fmt.Errorf("code: python3 printed %q: %w", out, err)
	}
	r.add("code.call", "direct", p50.Plain)
	r.add("code.call", "gateway", p50.Code)
	return gw.close()
}

// regenTools is the size of the regeneration figure.
const regenTools = 1000

// codeRegen times codeapi.Writer on regenTools synthetic tools over ten
// servers in a directory on the run's disk: the first write (every file
// new), a write where one server's tools changed (a reload), and one
// where nothing changed; the medians of 5 of the last two.
func (r *runner) codeRegen() error {
	parent, err := os.MkdirTemp(r.cfg.TempDir, "code-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(parent)
	in, changed := syntheticTools(regenTools, false), syntheticTools(regenTools, true)
	w := &codeapi.Writer{Dir: filepath.Join(parent, "code"), Spare: true}
	defer w.Close()
	// Until the new tree is in place; the work after it (the old tree
	// made the spare, the pool refilled) runs on the Writer's goroutine,
	// waited for here and timed apart.
	var afters []float64
	timed := func(in codeapi.Input) (float64, error) {
		start := time.Now()
		err := w.Write(in)
		ms := millis(time.Since(start))
		start = time.Now()
		err = errors.Join(err, w.Wait())
		afters = append(afters, millis(time.Since(start)))
		return ms, err
	}
	fresh, err := timed(in)
	if err != nil {
		return err
	}
	var one, after, same []float64
	for i := range 5 {
		next := changed
		if i%2 == 1 {
			next = in
		}
		ms, err := timed(next)
		if err != nil {
			return err
		}
		one = append(one, ms)
		after = append(after, afters[len(afters)-1])
		ms, err = timed(next)
		if err != nil {
			return err
		}
		same = append(same, ms)
	}
	r.add("code.regen.fresh", "gateway", fresh)
	r.add("code.regen.one", "gateway", median(one))
	r.add("code.regen.same", "gateway", median(same))
	r.add("code.regen.after", "gateway", median(after))
	return nil
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// syntheticTools is n tools over n/100 servers, each definition shaped
// like a reference server's (a paragraph of description, four
// parameters, two required, an enum, an array, a nested object; about
// 900 bytes); changed rewords the first server's descriptions.
func syntheticTools(n int, changed bool) codeapi.Input {
	in := codeapi.Input{URL: "http://127.0.0.1:50005/mcp", TokenFile: "/etc/mcp-gateway/.token"}
	for i := range n {
		if i%100 == 0 {
			in.Servers = append(in.Servers, codeapi.Server{Name: fmt.Sprintf("server-%d", i/100)})
		}
		verb := "Read the"
		if changed && i < 100 {
			verb = "Read a"
		}
		name := fmt.Sprintf("tool_%d_read_thing", i)
		def := fmt.Sprintf(`{"name":%q,"description":"%s complete contents of a thing from the store. Handles various encodings and provides detailed error messages if the thing cannot be read. Use this tool when you need to examine the contents of a single thing. Only works within allowed directories.","inputSchema":{"type":"object","properties":{"path":{"type":"string","description":"The path of the thing."},"encoding":{"type":"string","enum":["utf-8","latin-1","base64"],"description":"How to decode it."},"lines":{"type":"array","items":{"type":"integer"},"description":"Line numbers to return."},"options":{"type":"object","properties":{"follow":{"type":"boolean"},"limit":{"type":"integer"}}}},"required":["path","encoding"],"additionalProperties":false},"annotations":{"readOnlyHint":true}}`, name, verb)
		s := &in.Servers[len(in.Servers)-1]
		s.Tools = append(s.Tools, codeapi.Tool{Name: name, Definition: json.RawMessage(def)})
	}
	return in
}

func (cfg Config) codeDefs() []figDef {
	return []figDef{
		{"code.call", "A tools/call through the code API's Python runtime (SPEC §12.3), p50", "µs",
			[]target{{on: "ratio", max: true, limit: 1.2, text: "≤ 1.2× urllib"}},
			"one python3 process: direct: a plain urllib POST of the tools/call to the gateway; gateway: the generated function (mcp_tools.echo.echo), which reads gateway.json and the token file at each call; the Go echo's tool, alternating blocks of 10 after 20 of each untimed"},
		{"code.regen.one", "Regenerating the code API of 1,000 tools, one server of ten changed", "ms",
			[]target{{on: "gateway", max: true, limit: 50, text: "≤ 50 ms"}},
			"codeapi.Writer (Spare, as the daemon's) on the run's disk at a change of the merged list: render the changed server's tools, write their files into empty files of the pool in the spare tree (hard links to the live tree's files), swap: until the new tree is in place; median of 5"},
		{"code.regen.same", "Regenerating the code API of 1,000 tools, nothing changed", "ms",
			[]target{{on: "gateway", max: true, limit: 50, text: "≤ 50 ms"}}, "the same list again: nothing rendered, nothing written; median of 5"},
		{"code.regen.fresh", "Writing the code API of 1,000 tools, every file new", "ms", nil, "the first write (at ready): 3,025 files, until in place"},
		{"code.regen.after", "The work after a regeneration, off its way", "ms", nil, "after code.regen.one, on the Writer's goroutine, no call waiting: the replaced tree changed by hard links into the next spare, the pool of empty files refilled; median of 5"},
	}
}
