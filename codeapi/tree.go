package codeapi

import (
	_ "embed"
	"encoding/json"
	"runtime"
	"sync"
)

// File is one file of the tree: its path under the code dir (slashes) and
// its bytes.
type File struct {
	Path string
	Data []byte
}

//go:embed runtime/_client.py
var pyRuntime []byte

//go:embed runtime/_client.mjs
var jsRuntime []byte

// serverOut is one server as the generator lays it out.
type serverOut struct {
	name, ident, description string
	tools                    []*tool
}

// Generate lays out the whole tree for in (SPEC §12.2): INDEX.md,
// gateway.json (the URL and the token file's path, for the runtimes),
// python/mcp_tools/… and js/…, in a deterministic order. dir is where the
// tree will be (INDEX.md names it in its import lines). It never fails:
// a definition it cannot read gives a tool with no description that takes
// any arguments.
func Generate(in Input, dir string) []File {
	servers := layout(in.Servers)
	files := make([]File, 0, 8+4*len(servers))
	conf, _ := json.MarshalIndent(struct {
		URL             string `json:"url"`
		TokenFile       string `json:"tokenFile"`
		ProtocolVersion string `json:"protocolVersion"`
	}{in.URL, in.TokenFile, ProtocolVersion}, "", "  ")
	files = append(files,
		File{"INDEX.md", index(dir, servers)},
		File{"gateway.json", append(conf, '\n')},
		File{"python/mcp_tools/__init__.py", []byte(pyPackage)},
		File{"python/mcp_tools/_client.py", pyRuntime},
		File{"js/_client.mjs", jsRuntime},
	)
	var all []*tool
	for _, s := range servers {
		all = append(all, s.tools...)
	}
	rendered := renderAll(all)
	i := 0
	for _, s := range servers {
		py, js := "python/mcp_tools/"+s.ident+"/", "js/"+s.ident+"/"
		files = append(files, File{py + "__init__.py", pyServer(s)}, File{js + "index.mjs", jsServer(s)})
		for _, t := range s.tools {
			r := rendered[i]
			i++
			files = append(files,
				File{py + t.file + ".py", r.py},
				File{js + t.file + ".mjs", r.mjs},
				File{js + t.file + ".d.ts", r.ts})
		}
	}
	return files
}

// toolOut is one tool's three files.
type toolOut struct{ py, mjs, ts []byte }

// renderAll writes every tool's files, on as many goroutines as there
// are processors (each waited for here).
func renderAll(tools []*tool) []toolOut {
	out := make([]toolOut, len(tools))
	workers := min(runtime.GOMAXPROCS(0), 1+len(tools)/64)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(tools); i += workers {
				py, ts := toolFiles(tools[i])
				out[i] = toolOut{py: py, mjs: jsTool(tools[i]), ts: ts}
			}
		}()
	}
	wg.Wait()
	return out
}

// ProtocolVersion is the MCP version the runtimes speak (SPEC §12.3).
const ProtocolVersion = "2026-07-28"

// layout reads every definition and names every server and tool: a
// server's identifier is unique among servers, a tool's among its
// server's tools, case folded (they name directories and files).
func layout(in []Server) []*serverOut {
	servers := make([]*serverOut, 0, len(in))
	sn := newNamer(true)
	for _, s := range in {
		so := &serverOut{name: s.Name, ident: sn.take(s.Name), description: s.Description, tools: make([]*tool, 0, len(s.Tools))}
		tn := newNamer(true)
		for _, t := range s.Tools {
			rt := readTool(t)
			rt.file, rt.serverName = tn.take(t.Name), s.Name
			so.tools = append(so.tools, &rt)
		}
		servers = append(servers, so)
	}
	return servers
}

// toolFiles writes a tool's Python module and TypeScript declarations,
// each with as much detail as keeps it within its definition's bytes plus
// 1.5 KB (SPEC §12.5).
func toolFiles(t *tool) (py, ts []byte) {
	tp := &typer{}
	ps := params(tp, t.input)
	var out *typ = anyType
	if t.hasOutput {
		out = tp.typeOf(t.output)
	}
	limit := t.size + sizeSlack
	for d := detailFull; d <= detailPlain; d++ {
		if py == nil || len(py) > limit {
			py = pyTool(t, ps, out, d)
		}
		if ts == nil || len(ts) > limit {
			ts = tsTool(t, ps, out, d)
		}
	}
	return py, ts
}
