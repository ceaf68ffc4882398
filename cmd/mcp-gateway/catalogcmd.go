package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/mcp-gateway/mcp-gateway/catalog"
	"github.com/mcp-gateway/mcp-gateway/catalog/pulled"
)

// runCatalog is `mcp-gateway catalog` (SPEC §6.4).
func runCatalog(args []string, stdout, stderr io.Writer) int {
	s, asJSON, code, ok := parseJSONCommand(args, stderr, "catalog", "Usage: mcp-gateway catalog [--json] [--catalog-file FILE] [--servers-dir DIR]\n\nLists every catalog server: description, properties, whether it is built in or from the template's file, and whether `mcp-gateway pull` installed its package (the version it pulled, \"no\", or \"-\" for an entry that runs no package).", "print JSON")
	if !ok {
		return code
	}
	cat, err := catalog.Load(s.CatalogFile)
	if err != nil {
		fmt.Fprintln(stderr, "mcp-gateway:", err)
		return 1
	}
	store := pulled.Store{Dir: s.ServersDir}
	if asJSON {
		type item struct {
			Name string `json:"name"`
			*catalog.Entry
			Source  catalog.Source `json:"source"`
			Package *packageState  `json:"package,omitempty"`
		}
		var out []item
		for _, n := range cat.Names() {
			e, _ := cat.Lookup(n)
			out = append(out, item{Name: n, Entry: e, Source: e.Source, Package: packageOf(e, store)})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(out)
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tPULLED\tPROPERTIES\tDESCRIPTION")
	for _, n := range cat.Names() {
		e, _ := cat.Lookup(n)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", n, e.Source, packageOf(e, store).column(), describeProps(e.Properties), e.Description)
	}
	tw.Flush()
	return 0
}

// packageState is the package an entry's command runs, and whether pull
// installed it (SPEC §6.5).
type packageState struct {
	Manager pulled.Manager `json:"manager"`
	Spec    string         `json:"spec"`
	Pulled  bool           `json:"pulled"`
	Version string         `json:"version,omitempty"` // the version pulled
	Exec    string         `json:"exec,omitempty"`    // what a start runs
}

// packageOf returns the package e's command runs through a package
// runner, nil if it runs none.
func packageOf(e *catalog.Entry, store pulled.Store) *packageState {
	run, ok := pulled.Parse(e.FixedArgv())
	if !ok {
		return nil
	}
	st := &packageState{Manager: run.Manager, Spec: run.Spec}
	if p, ok := store.Lookup(run); ok {
		st.Pulled, st.Version, st.Exec = true, p.Record.Version, p.Executable
	}
	return st
}

// column is the PULLED column: the version, "no", or "-" for no package.
func (p *packageState) column() string {
	switch {
	case p == nil:
		return "-"
	case p.Pulled:
		return p.Version
	}
	return "no"
}

func describeProps(props map[string]catalog.Property) string {
	if len(props) == 0 {
		return "-"
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		p := props[n]
		s := n + " (" + p.Type
		if p.Required {
			s += ", required"
		}
		if len(p.Default) > 0 {
			s += ", default " + string(p.Default)
		}
		parts = append(parts, s+")")
	}
	return strings.Join(parts, "; ")
}
