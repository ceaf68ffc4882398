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

// Generate lays out the whole tree for in (SPEC §12.2): INDEX.md,
// gateway.json (the URL and the token file's path, for the runtimes),
// python/mcp_tools/… and js/…, in a deterministic order. dir is where the
// tree will be (INDEX.md names it in its import lines). It never fails:
// a definition it cannot read gives a tool with no description that takes
// any arguments.
func Generate(in Input, dir string) []File {
	files, _ := generate(in, dir, nil)
	return files
}

// rendered is one tool as a generation read and rendered it, kept by a
// Writer for the next generation: a tool whose server, file name,
// exported name and definition are the same again is neither read nor
// rendered again (a change of one server's tools renders that server's).
type rendered struct {
	t   tool
	out toolOut
}

// renderCache maps renderKey to a tool rendered last time.
type renderCache map[string]*rendered

// renderKey is what a tool's files are made of: its server's config key,
// its file's name, its exported name and its definition.
func renderKey(server, file string, t Tool) string {
	return server + "\x00" + file + "\x00" + t.Name + "\x00" + string(t.Definition)
}

// generate is Generate reusing prev's renderings, and returns this
// generation's for the next.
func generate(in Input, dir string, prev renderCache) ([]File, renderCache) {
	servers, outs := layout(in.Servers, prev)
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
	var missed []int
	var all []*tool
	for _, s := range servers {
		for _, t := range s.tools {
			if outs[len(all)] == nil {
				missed = append(missed, len(all))
			}
			all = append(all, t)
		}
	}
	renderAll(all, missed, outs)
	next := make(renderCache, len(all))
	i := 0
	for _, s := range servers {
		py, js := "python/mcp_tools/"+s.ident+"/", "js/"+s.ident+"/"
		files = append(files, File{py + "__init__.py", pyServer(s)}, File{js + "index.mjs", jsServer(s)})
		for _, t := range s.tools {
			r := outs[i]
			i++
			next[t.key] = &rendered{t: *t, out: *r}
			files = append(files,
				File{py + t.file + ".py", r.py},
				File{js + t.file + ".mjs", r.mjs},
				File{js + t.file + ".d.ts", r.ts})
		}
	}
	return files, next
}

// toolOut is one tool's three files.
type toolOut struct{ py, mjs, ts []byte }

// renderAll renders the tools at the indexes missed into outs, on as many
// goroutines as there are processors (each waited for here).
func renderAll(tools []*tool, missed []int, outs []*toolOut) {
	workers := min(runtime.GOMAXPROCS(0), 1+len(missed)/64)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := w; j < len(missed); j += workers {
				t := tools[missed[j]]
				py, ts := toolFiles(t)
				outs[missed[j]] = &toolOut{py: py, mjs: jsTool(t), ts: ts}
			}
		}()
	}
	wg.Wait()
}

// ProtocolVersion is the MCP version the runtimes speak (SPEC §12.3).
const ProtocolVersion = "2026-07-28"

// layout reads every definition and names every server and tool: a
// server's identifier is unique among servers, a tool's among its
// server's tools, case folded (they name directories and files). A tool
// that prev holds is taken from there, read already, with its files
// (outs, in tool order; nil for a tool to render).
func layout(in []Server, prev renderCache) ([]*serverOut, []*toolOut) {
	servers := make([]*serverOut, 0, len(in))
	var outs []*toolOut
	sn := newNamer(true)
	for _, s := range in {
		so := &serverOut{name: s.Name, ident: sn.take(s.Name), description: s.Description, tools: make([]*tool, 0, len(s.Tools))}
		tn := newNamer(true)
		for _, t := range s.Tools {
			file := tn.take(t.Name)
			key := renderKey(s.Name, file, t)
			if c, ok := prev[key]; ok {
				rt := c.t
				so.tools = append(so.tools, &rt)
				outs = append(outs, &c.out)
				continue
			}
			rt := readTool(t)
			rt.file, rt.serverName, rt.key = file, s.Name, key
			so.tools = append(so.tools, &rt)
			outs = append(outs, nil)
		}
		servers = append(servers, so)
	}
	return servers, outs
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
