package pulled

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/boundedfile"
)

// RecordName is the record's file name in a package's directory.
const RecordName = "pulled.json"

// maxRecordBytes bounds a record file.
const maxRecordBytes = 1 << 20

// Record is what pull installed for one package spec, as pulled.json
// holds it:
//
//	{"manager": "npm", "spec": "@modelcontextprotocol/server-memory",
//	 "package": "@modelcontextprotocol/server-memory", "version": "2026.8.31",
//	 "bins": {"mcp-server-memory": "node_modules/.bin/mcp-server-memory"},
//	 "pulledAt": "2026-12-01T10:00:00Z"}
//
// Bins maps each executable the package provides to its path, relative
// to the package's directory; that path is what a start runs, with the
// command's arguments.
type Record struct {
	Manager  Manager           `json:"manager"`
	Spec     string            `json:"spec"`
	Package  string            `json:"package"`
	Version  string            `json:"version"`
	Bins     map[string]string `json:"bins"`
	PulledAt time.Time         `json:"pulledAt"`
}

// Store is the pulled packages under a servers dir (SPEC §10).
type Store struct {
	Dir string // the servers dir; "" stores nothing and finds nothing
}

// Pulled is a package run found in the store.
type Pulled struct {
	Record     Record
	Executable string // the absolute path of the executable the run names
}

// PackageDir is where the package of spec, for manager m, is installed.
func (s Store) PackageDir(m Manager, spec string) string {
	return filepath.Join(s.Dir, string(m), url.PathEscape(spec))
}

// Lookup returns what pull installed for r, if it did: the record, and
// the executable r names (r.Bin, or the package's own). An interrupted
// install, a record that cannot be read, or an executable that is missing
// on disk is not pulled.
func (s Store) Lookup(r Run) (Pulled, bool) {
	if s.Dir == "" {
		return Pulled{}, false
	}
	rec, err := s.read(r)
	if err != nil {
		return Pulled{}, false
	}
	bin, err := rec.choose(r.Bin)
	if err != nil {
		return Pulled{}, false
	}
	exec := filepath.Join(s.PackageDir(r.Manager, r.Spec), rec.Bins[bin])
	if fi, err := os.Stat(exec); err != nil || fi.IsDir() {
		return Pulled{}, false
	}
	return Pulled{Record: rec, Executable: exec}, true
}

// read reads r's record.
func (s Store) read(r Run) (Record, error) {
	path := filepath.Join(s.PackageDir(r.Manager, r.Spec), RecordName)
	b, err := boundedfile.Read(path, maxRecordBytes)
	if err != nil {
		return Record{}, fmt.Errorf("read pull record: %w", err)
	}
	var rec Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return Record{}, fmt.Errorf("decode pull record %s: %w", path, err)
	}
	if rec.Manager != r.Manager || rec.Spec != r.Spec {
		return Record{}, fmt.Errorf("pull record %s is for %s %s", path, rec.Manager, rec.Spec)
	}
	return rec, nil
}

// write writes rec into dir atomically (a temporary file, then rename),
// so that a record on disk is always whole.
func write(dir string, rec Record) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("encode pull record: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".pulled-*")
	if err != nil {
		return fmt.Errorf("write pull record: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("write pull record: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write pull record: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, RecordName)); err != nil {
		return fmt.Errorf("write pull record: %w", err)
	}
	return nil
}

// choose names the executable a run starts: bin if it names one, else
// the package's own, chosen as npx and uvx do: for npm the only one, or
// the one named after the package (without its scope); for uv the one
// named after the package.
func (rec Record) choose(bin string) (string, error) {
	names := slices.Sorted(maps.Keys(rec.Bins))
	if bin != "" {
		if _, ok := rec.Bins[bin]; !ok {
			return "", fmt.Errorf("%s %s provides no executable %q (it provides %s)", rec.Package, rec.Version, bin, orNone(names))
		}
		return bin, nil
	}
	if rec.Manager == NPM && len(names) == 1 {
		return names[0], nil
	}
	own := rec.Package[strings.LastIndexByte(rec.Package, '/')+1:]
	if _, ok := rec.Bins[own]; ok {
		return own, nil
	}
	return "", fmt.Errorf("%s %s provides %s, none named %q: name the executable in the catalog command", rec.Package, rec.Version, orNone(names), own)
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "no executable"
	}
	return strings.Join(names, ", ")
}
