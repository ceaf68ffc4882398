package codeapi

import (
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// maxIdent is the longest identifier made from a name (before a
// uniqueness suffix): a tool's and a server's identifier is also a file
// or directory name, and a long parameter name gains nothing past it.
const maxIdent = 64

// reserved holds the words no identifier may be (SPEC §12.2: "keywords
// get a trailing _"): Python's keywords and soft keywords, JavaScript's
// reserved words (strict mode and modules: also eval, arguments,
// await), TypeScript's type names, the names a generated module binds
// itself (the typing imports, the builtins its annotations name), and
// the file names a package holds already (__init__, index, _client), and
// the names a generated function or module uses itself: Python's locals
// (its body passes locals()), JavaScript's tool (the module's own const).
var reserved = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		False None True and as assert async await break class continue def del elif else except
		finally for from global if import in is lambda nonlocal not or pass raise return try while
		with yield match case type __debug__ __init__ __main__ annotations
		Any Dict List Literal Optional Union str int float bool object dict list
		catch const debugger default delete do enum export extends false function instanceof let new
		null static super switch this throw true typeof var void implements interface package private
		protected public eval arguments undefined NaN Infinity
		any number string boolean symbol never unknown bigint declare namespace module require
		index _client mcp_tools ToolError InputRequiredError call locals tool`) {
		m[w] = true
	}
	return m
}()

// internalNames are the names a generated Python function uses in its
// body; a parameter may not take them.
var internalNames = map[string]bool{"_mcp_client": true, "_mcp_tool": true, "_mcp_extra": true}

// Ident maps a name to an ASCII identifier, valid in Python and
// JavaScript alike: a letter with a diacritic becomes its base letter
// (é → e), every other character outside [A-Za-z0-9_] becomes "_", a
// leading digit (or an empty name) gets a "_" before it, the result is cut
// to 64 bytes, and a reserved word gets a trailing "_" (SPEC §12.2).
// ASCII only, because Python folds identifiers by NFKC and JavaScript and
// Python disagree on which letters start one.
func Ident(name string) string {
	b := make([]byte, 0, len(name)+1)
	for _, r := range name {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			b = append(b, byte(r))
		case r > 0x7f && r <= unicode.MaxRune:
			b = appendFolded(b, r)
		default:
			b = append(b, '_')
		}
		if len(b) >= maxIdent {
			break
		}
	}
	if len(b) == 0 || b[0] >= '0' && b[0] <= '9' {
		b = append([]byte{'_'}, b...)
	}
	if len(b) > maxIdent {
		b = b[:maxIdent]
	}
	s := string(b)
	if reserved[s] || internalNames[s] {
		s += "_"
	}
	return s
}

// appendFolded appends a non-ASCII letter's ASCII base letter where it has
// one (é → e: its canonical decomposition's letters, marks dropped),
// else "_".
func appendFolded(b []byte, r rune) []byte {
	n := len(b)
	for _, c := range norm.NFD.String(string(r)) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			b = append(b, byte(c))
		}
	}
	if len(b) == n {
		b = append(b, '_')
	}
	return b
}

// namer hands out unique identifiers in one namespace, deterministically:
// the first name to map to an identifier keeps it, a later one gets "_2",
// "_3", … (the first of them that is free). With fold, identifiers that
// differ only in case are one (they name files, and a file system may
// fold case).
type namer struct {
	fold  bool
	taken map[string]bool
}

func newNamer(fold bool) *namer { return &namer{fold: fold, taken: map[string]bool{}} }

// take returns name's identifier, unique among those this namer gave.
func (n *namer) take(name string) string {
	base := Ident(name)
	id := base
	for i := 2; n.taken[n.key(id)] || reserved[id] || internalNames[id]; i++ {
		id = base + "_" + strconv.Itoa(i)
	}
	n.taken[n.key(id)] = true
	return id
}

func (n *namer) key(id string) string {
	if n.fold {
		return strings.ToLower(id)
	}
	return id
}
