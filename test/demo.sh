#!/bin/sh
# `make run`: start the gateway on a default config of real npm servers
# (memory, filesystem on a scratch directory, everything), then list the
# tools and call some through the official TypeScript SDK client.
# Everything lives under .run/ in the repo. The script leaves the gateway
# running and prints how to inspect and stop it.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
run="$root/.run"
bin="$root/bin/mcp-gateway"
nm="$root/test/node_modules/.bin"
port=${MCP_GATEWAY_PORT:-50005}

mkdir -p "$run/data"
echo "hello from the demo" > "$run/data/hello.txt"

# A template's catalog override: the built-in memory and filesystem
# entries, pointed at the pinned local installs instead of `npx -y`.
cat > "$run/catalog.json" <<JSON
{
  "memory": {
    "description": "Knowledge-graph memory (pinned local install).",
    "command": [["node", "$nm/mcp-server-memory"]],
    "env": {"MEMORY_FILE_PATH": "$run/memory.jsonl"}
  },
  "filesystem": {
    "description": "Files under the given paths (pinned local install).",
    "command": [["node", "$nm/mcp-server-filesystem"], ["{{paths}}"]],
    "properties": {"paths": {"type": "array", "required": true}}
  }
}
JSON

config=$(cat <<JSON
{"memory": {},
 "filesystem": {"paths": ["$run/data"]},
 "everything": {"runCmd": "exec node $nm/mcp-server-everything"}}
JSON
)

flags="--port $port --token-file $run/token --log-file $run/gateway.log --run-dir $run/run --catalog-file $run/catalog.json --servers-dir $run/servers --code-dir $run/code"

# Stop a gateway left by an earlier `make run`.
"$bin" stop --run-dir "$run/run" >/dev/null 2>&1 || true

# shellcheck disable=SC2086
"$bin" --config "$config" $flags

echo "endpoint:   http://127.0.0.1:$port/mcp"
echo "token file: $run/token"
echo "log file:   $run/gateway.log"
echo "code API:   $run/code (INDEX.md; PYTHONPATH=$run/code/python)"
echo
node "$root/test/client/mcp-client.mjs" --url "http://127.0.0.1:$port/mcp" --token-file "$run/token" --pretty \
	--list \
	--call echo --args '{"message":"hello through mcp-gateway"}' \
	--call list_directory --args "{\"path\":\"$run/data\"}"
echo
echo "The gateway keeps running. Its state: $bin status --run-dir $run/run"
echo "Stop it with:                         $bin stop --run-dir $run/run"
