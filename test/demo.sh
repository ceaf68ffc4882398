#!/bin/sh
# `make run`: start the gateway on a default config of real npm servers
# (memory, filesystem on a scratch directory, everything), then list the
# tools and call some through the official TypeScript SDK client.
# Everything lives under .run/ in the repo; `bin/mcp-gateway stop`-free:
# the script leaves the gateway running and prints how to stop it.
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

flags="--port $port --token-file $run/token --log-file $run/gateway.log --run-dir $run/run --catalog-file $run/catalog.json --servers-dir $run/servers"

# Stop a gateway left by an earlier `make run`.
if [ -f "$run/run/mcp-gateway.pid" ]; then
	pid=$(cat "$run/run/mcp-gateway.pid")
	kill -TERM "$pid" 2>/dev/null && while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done || true
fi

# shellcheck disable=SC2086
"$bin" --config "$config" $flags

echo "endpoint:   http://127.0.0.1:$port/mcp"
echo "token file: $run/token"
echo "log file:   $run/gateway.log"
echo
node "$root/test/client/mcp-client.mjs" --url "http://127.0.0.1:$port/mcp" --token-file "$run/token" --pretty \
	--list \
	--call echo --args '{"message":"hello through mcp-gateway"}' \
	--call list_directory --args "{\"path\":\"$run/data\"}"
echo
echo "The gateway keeps running. Stop it with: kill -TERM \$(cat $run/run/mcp-gateway.pid)"
