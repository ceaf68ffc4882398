package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/mcp-gateway/mcp-gateway/catalog"
)

// runCatalog is `mcp-gateway catalog` (SPEC §6.4).
func runCatalog(args []string, stdout, stderr io.Writer) int {
	s, asJSON, code, ok := parseJSONCommand(args, stderr, "catalog", "Usage: mcp-gateway catalog [--json] [--catalog-file FILE]\n\nLists every catalog server: description, properties, and whether it is built in or from the template's file.", "print JSON")
	if !ok {
		return code
	}
	cat, err := catalog.Load(s.CatalogFile)
	if err != nil {
		fmt.Fprintln(stderr, "mcp-gateway:", err)
		return 1
	}
	if asJSON {
		type item struct {
			Name string `json:"name"`
			*catalog.Entry
			Source catalog.Source `json:"source"`
		}
		var out []item
		for _, n := range cat.Names() {
			e, _ := cat.Lookup(n)
			out = append(out, item{Name: n, Entry: e, Source: e.Source})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(out)
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tPROPERTIES\tDESCRIPTION")
	for _, n := range cat.Names() {
		e, _ := cat.Lookup(n)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", n, e.Source, describeProps(e.Properties), e.Description)
	}
	tw.Flush()
	return 0
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
