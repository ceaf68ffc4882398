// Package adapters turns the --config document into launch specs
// (SPEC §5, §9). It owns the config's shape and validation, the Adapter
// contract, and the built-in adapters:
//
//   - catalog: a name from the catalog ("time": {}), SPEC §5.2;
//   - github: "github/<owner>/<repo>" with runCmd, cloned with go-git, SPEC §5.3;
//   - http: any key but a github/ one with url, an MCP server reached over
//     HTTP, with headers (secrets, like envs) and optionally the runCmd
//     that serves it, SPEC §5.6 (http.go);
//   - command: any other key with runCmd, run as /bin/sh -c runCmd, SPEC §5.4.
//
// Every kind takes "tools" and "prompts", the choice of what the server
// exports (SPEC §4.9, package choice); the spec carries it to the registry.
//
// A new kind of entry is one new Adapter.
package adapters
