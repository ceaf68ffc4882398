#!/usr/bin/env node
// Minimal MCP Streamable HTTP client built on the official TypeScript SDK.
//
//   node test/client/mcp-client.mjs --url http://127.0.0.1:50005/mcp
//        (--token TOKEN | --token-file PATH) [--header 'Name: value']...
//        [--list] [--call TOOL [--args 'JSON']]... [--pretty] [--timeout SECONDS]
//        [--list-prompts] [--get-prompt NAME [--args 'JSON']]...
//        [--list-resources] [--list-templates] [--read URI]...
//        [--complete-prompt NAME ARG VALUE [--context 'JSON']]...
//        [--complete-resource TEMPLATE ARG VALUE]... [--subscribe URI]... [--await-update URI]...
//
// Steps run in the order given. Default output is one JSON line per step:
//   {"step":"list","tools":["echo",...]}
//   {"step":"call","tool":"echo","result":{...CallToolResult...}}
//   {"step":"prompts","prompts":["name",...]}
//   {"step":"prompt","name":"p","result":{...GetPromptResult...}}
//   {"step":"resources","resources":["uri",...]}
//   {"step":"templates","templates":["uriTemplate",...]}
//   {"step":"read","uri":"u","result":{...ReadResourceResult...}}
//   {"step":"complete","ref":{...},"result":{...CompleteResult...}}
//   {"step":"subscribe","uri":"u"}
//   {"step":"updated","uri":"u"}       (--await-update: a notifications/resources/updated for u
//                                       arrived, before or during the step; the SDK's GET stream
//                                       carries it)
// A result with isError:true is printed like any other result (exit 0); a
// connection, HTTP or JSON-RPC error goes to stderr and exits 1.
// --pretty prints a short human-readable summary instead.

import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const USAGE = `usage: mcp-client.mjs --url URL (--token TOKEN | --token-file PATH)
       [--header 'Name: value']... [--list] [--call TOOL [--args JSON]]...
       [--pretty] [--timeout SECONDS (default 60)]`;

function fail(msg) {
  process.stderr.write(`mcp-client: ${msg}\n`);
  process.exit(1);
}

function parseArgv(argv) {
  const opts = { url: null, token: null, headers: {}, steps: [], pretty: false, timeout: 60 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) fail(`${flag} needs a value\n${USAGE}`);
      return argv[++i];
    };
    switch (flag) {
      case '--url': opts.url = value(); break;
      case '--token': opts.token = value(); break;
      case '--token-file': {
        const path = value();
        try { opts.token = readFileSync(path, 'utf8').trim(); } catch (e) { fail(`cannot read token file ${path}: ${e.message}`); }
        break;
      }
      case '--header': {
        const h = value();
        const colon = h.indexOf(':');
        if (colon <= 0) fail(`--header wants 'Name: value', got ${JSON.stringify(h)}`);
        opts.headers[h.slice(0, colon).trim()] = h.slice(colon + 1).trim();
        break;
      }
      case '--list': opts.steps.push({ step: 'list' }); break;
      case '--call': opts.steps.push({ step: 'call', tool: value(), args: {} }); break;
      case '--list-prompts': opts.steps.push({ step: 'prompts' }); break;
      case '--list-resources': opts.steps.push({ step: 'resources' }); break;
      case '--list-templates': opts.steps.push({ step: 'templates' }); break;
      case '--get-prompt': opts.steps.push({ step: 'prompt', name: value(), args: {} }); break;
      case '--read': opts.steps.push({ step: 'read', uri: value() }); break;
      case '--subscribe': opts.steps.push({ step: 'subscribe', uri: value() }); break;
      case '--await-update': opts.steps.push({ step: 'await', uri: value() }); break;
      case '--complete-prompt':
      case '--complete-resource': {
        const target = value();
        const ref = flag === '--complete-prompt' ? { type: 'ref/prompt', name: target } : { type: 'ref/resource', uri: target };
        opts.steps.push({ step: 'complete', ref, argument: { name: value(), value: value() } });
        break;
      }
      case '--context': {
        const last = opts.steps[opts.steps.length - 1];
        if (!last || last.step !== 'complete') fail('--context must follow --complete-prompt or --complete-resource');
        try { last.context = { arguments: JSON.parse(value()) }; } catch (e) { fail(`--context is not valid JSON: ${e.message}`); }
        break;
      }
      case '--args': {
        const last = opts.steps[opts.steps.length - 1];
        if (!last || (last.step !== 'call' && last.step !== 'prompt')) fail('--args must follow --call TOOL or --get-prompt NAME');
        const raw = value();
        try { last.args = JSON.parse(raw); } catch (e) { fail(`--args for ${last.tool} is not valid JSON: ${e.message}`); }
        if (last.args === null || typeof last.args !== 'object' || Array.isArray(last.args)) {
          fail(`--args for ${last.tool} must be a JSON object`);
        }
        break;
      }
      case '--pretty': opts.pretty = true; break;
      case '--timeout': {
        opts.timeout = Number(value());
        if (!(opts.timeout > 0)) fail('--timeout must be a positive number of seconds');
        break;
      }
      case '-h': case '--help': process.stdout.write(USAGE + '\n'); process.exit(0);
      default: fail(`unknown argument ${JSON.stringify(flag)}\n${USAGE}`);
    }
  }
  if (!opts.url) fail(`--url is required\n${USAGE}`);
  if (opts.token === null) fail(`--token or --token-file is required\n${USAGE}`);
  try { new URL(opts.url); } catch { fail(`--url is not a valid URL: ${opts.url}`); }
  return opts;
}

function describeError(e) {
  // McpError: "MCP error -32602: ..."; StreamableHTTPError carries the HTTP status in .code.
  let msg = e?.message || String(e);
  if (e instanceof StreamableHTTPError && e.code !== undefined) msg = `HTTP ${e.code}: ${msg}`;
  if (e?.cause?.message) msg += ` (${e.cause.code || e.cause.message})`;
  if (e?.data !== undefined) msg += ` data=${JSON.stringify(e.data)}`;
  return msg;
}

function textOf(result) {
  return (result.content || [])
    .map((c) => (c.type === 'text' ? c.text : `[${c.type} content]`))
    .join('\n');
}

async function listAllTools(client, reqOpts) {
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, reqOpts);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

// surfaceStep runs one step of the surface beyond tools and returns its line.
async function surfaceStep(client, s, reqOpts, updated, setWake, deadline) {
  switch (s.step) {
    case 'prompts': return { step: 'prompts', prompts: (await client.listPrompts(undefined, reqOpts())).prompts.map((p) => p.name) };
    case 'resources': return { step: 'resources', resources: (await client.listResources(undefined, reqOpts())).resources.map((r) => r.uri) };
    case 'templates': return { step: 'templates', templates: (await client.listResourceTemplates(undefined, reqOpts())).resourceTemplates.map((t) => t.uriTemplate) };
    case 'prompt': return { step: 'prompt', name: s.name, result: await client.getPrompt({ name: s.name, arguments: s.args }, reqOpts()) };
    case 'read': return { step: 'read', uri: s.uri, result: await client.readResource({ uri: s.uri }, reqOpts()) };
    case 'complete': {
      const params = { ref: s.ref, argument: s.argument, ...(s.context ? { context: s.context } : {}) };
      return { step: 'complete', ref: s.ref, result: await client.complete(params, reqOpts()) };
    }
    case 'subscribe':
      await client.subscribeResource({ uri: s.uri }, reqOpts());
      return { step: 'subscribe', uri: s.uri };
    case 'await':
      while (!updated.has(s.uri)) {
        if (Date.now() >= deadline) throw new Error(`no notifications/resources/updated for ${s.uri}`);
        await new Promise((resolve) => {
          const t = setTimeout(resolve, deadline - Date.now());
          setWake(() => { clearTimeout(t); resolve(); });
        });
      }
      return { step: 'updated', uri: s.uri };
  }
  throw new Error(`unknown step ${s.step}`);
}

async function main() {
  const opts = parseArgv(process.argv.slice(2));
  const deadline = Date.now() + opts.timeout * 1000;
  const timer = setTimeout(() => fail(`timed out after ${opts.timeout}s`), opts.timeout * 1000);

  const transport = new StreamableHTTPClientTransport(new URL(opts.url), {
    requestInit: { headers: { ...opts.headers, Authorization: `Bearer ${opts.token}` } },
  });
  const client = new Client({ name: 'mcp-gateway-test-client', version: '0.0.0' });
  const reqOpts = () => ({ timeout: Math.max(1, deadline - Date.now()) });
  const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
  const updated = new Set(); // URIs a notifications/resources/updated named
  let wake = () => {};
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updated.add(n.params.uri);
    wake();
  });

  let stage = `connect to ${opts.url}`;
  let error = null;
  try {
    await client.connect(transport, reqOpts());
    for (const s of opts.steps) {
      if (s.step !== 'list' && s.step !== 'call') {
        stage = s.step;
        out(await surfaceStep(client, s, reqOpts, updated, (f) => { wake = f; }, deadline));
        continue;
      }
      if (s.step === 'list') {
        stage = 'tools/list';
        const tools = await listAllTools(client, reqOpts());
        const names = tools.map((t) => t.name);
        if (opts.pretty) {
          console.log(`${names.length} tools${names.length > 20 ? ' (first 20)' : ''}: ${names.slice(0, 20).join(', ')}`);
        } else {
          out({ step: 'list', tools: names });
        }
      } else {
        stage = `tools/call ${s.tool}`;
        const result = await client.callTool({ name: s.tool, arguments: s.args }, undefined, reqOpts());
        if (opts.pretty) {
          console.log(`${s.tool}${result.isError ? ' (isError)' : ''}: ${textOf(result)}`);
        } else {
          out({ step: 'call', tool: s.tool, result });
        }
      }
    }
  } catch (e) {
    error = `${stage} failed: ${describeError(e)}`;
  }

  // Always end the session (DELETE /mcp) and close the transport, even after an error.
  try {
    await transport.terminateSession();
  } catch (e) {
    error ??= `terminate session failed: ${describeError(e)}`;
  }
  await client.close().catch(() => {});
  clearTimeout(timer);
  if (error) fail(error);
}

main().catch((e) => fail(describeError(e)));
