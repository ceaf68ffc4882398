// Package codeapi writes the merged tools as a code API on disk (SPEC §12,
// code mode): the sandbox's own code imports a typed Python or JavaScript
// function per tool instead of calling tools/call one by one, reading only
// the tools it needs (INDEX.md first) and keeping large results out of the
// model's context.
//
// It knows nothing of HTTP, servers or the registry: the merged list goes
// in as plain values (Input: per server in server order, its name and
// description line, per tool its exported name and its definition as
// tools/list gives it), and a tree of files comes out (Generate), written
// atomically under a directory (Write: a new tree beside, then one rename,
// SPEC §12.1). The runtimes it ships (runtime/_client.py, runtime/_client.mjs)
// make each call a modern tools/call to the daemon on loopback (SPEC §12.3);
// the tree holds the daemon's URL and the token file's path
// (gateway.json), never the token.
//
//	input.go    Input, Server, Tool; a definition's parts (description, schemas)
//	ident.go    identifiers from any name: the mapping and its uniqueness (SPEC §12.2)
//	schema.go   a JSON Schema read as a type, for Python and TypeScript (SPEC §12.4)
//	quote.go    string literals and comments that compile whatever the text
//	python.go   python/mcp_tools/<server>/<tool>.py and the packages
//	js.go       js/<server>/<tool>.mjs, <tool>.d.ts, index.mjs
//	index.go    INDEX.md (SPEC §12.2, §12.5)
//	tree.go     Generate: the whole tree as files in memory
//	write.go    Write: the tree on disk, replaced atomically, readable by all
//	spare.go    the daemon's Writer: a change made in a spare tree of hard links, then swapped
//	pool.go     the empty files a change is written into (a new inode costs most on a slow disk)
//	runtime/    the Python and Node runtimes, embedded as they are
package codeapi
