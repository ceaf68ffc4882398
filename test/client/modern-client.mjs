#!/usr/bin/env node
// An MCP Streamable HTTP client on the v2 TypeScript SDK
// (@modelcontextprotocol/client 2.4.0, pinned in test/package.json), for
// tests of the gateway's 2026-07-28 front and of its legacy front through
// the new SDK.
//
//   node test/client/modern-client.mjs --url http://127.0.0.1:50005/mcp
//        (--token TOKEN | --token-file PATH) [--mode modern|legacy|auto]
//        [--list] [--call TOOL [--args 'JSON'] [--progress]]...
//        [--elicit 'JSON' | --decline] [--sample TEXT] [--root URI]...
//        [--log-level LEVEL] [--timeout SECONDS]
//
// --mode modern (the default) pins the connection to 2026-07-28: no
// initialize, no session, server/discover at connect and a per-request _meta
// envelope; it fails if the server does not offer 2026-07-28. --mode legacy
// runs the 2025 initialize handshake; --mode auto probes and falls back.
//
// The client declares elicitation, sampling and roots. What the server asks
// for during a call (a 2025 server-to-client request, or a 2026
// InputRequiredResult, which the SDK answers through the same handlers and
// retries with inputResponses and requestState) is answered with --elicit's
// content (default {"name":"modern-client"}) or a decline (--decline), a
// sampling result whose text is --sample, and the --root URIs.
//
// Output: one JSON line per event, in order:
//   {"step":"connect","era":"modern","protocolVersion":"2026-07-28","serverInfo":{...},"capabilities":{...}}
//   {"step":"list","tools":["echo",...]}
//   {"event":"elicitation","params":{...}}      (also "sampling", "roots")
//   {"event":"progress","tool":"x","progress":1,"total":3}
//   {"event":"log","params":{...}}
//   {"step":"call","tool":"echo","result":{...CallToolResult...}}
// A result with isError:true is printed like any other (exit 0); a
// connection, HTTP or JSON-RPC error prints {"step":...,"error":{code,message}}
// and exits 1.

import { readFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const MODERN = '2026-07-28';
const USAGE = `usage: modern-client.mjs --url URL (--token TOKEN | --token-file PATH) [--mode modern|legacy|auto]
       [--list] [--call TOOL [--args JSON] [--progress]]... [--elicit JSON | --decline]
       [--sample TEXT] [--root URI]... [--log-level LEVEL] [--timeout SECONDS (default 60)]`;

const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');

function fail(msg) {
    process.stderr.write(`modern-client: ${msg}\n`);
    process.exit(2);
}

function parseArgv(argv) {
    const o = {
        url: null, token: null, mode: 'modern', steps: [], timeout: 60,
        elicit: { name: 'modern-client' }, decline: false, sample: 'sampled by modern-client', roots: [], logLevel: null,
    };
    for (let i = 0; i < argv.length; i++) {
        const flag = argv[i];
        const value = () => {
            if (i + 1 >= argv.length) fail(`${flag} needs a value\n${USAGE}`);
            return argv[++i];
        };
        const json = (what, raw) => {
            try {
                const v = JSON.parse(raw);
                if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('not a JSON object');
                return v;
            } catch (e) {
                fail(`${what} must be a JSON object: ${e.message}`);
            }
        };
        switch (flag) {
            case '--url': o.url = value(); break;
            case '--token': o.token = value(); break;
            case '--token-file': {
                const path = value();
                try {
                    o.token = readFileSync(path, 'utf8').trim();
                } catch (e) {
                    fail(`cannot read token file ${path}: ${e.message}`);
                }
                break;
            }
            case '--mode': o.mode = value(); break;
            case '--list': o.steps.push({ step: 'list' }); break;
            case '--call': o.steps.push({ step: 'call', tool: value(), args: {}, progress: false }); break;
            case '--args':
            case '--progress': {
                const last = o.steps.at(-1);
                if (!last || last.step !== 'call') fail(`${flag} must follow --call TOOL`);
                if (flag === '--args') last.args = json(`--args for ${last.tool}`, value());
                else last.progress = true;
                break;
            }
            case '--elicit': o.elicit = json('--elicit', value()); break;
            case '--decline': o.decline = true; break;
            case '--sample': o.sample = value(); break;
            case '--root': o.roots.push(value()); break;
            case '--log-level': o.logLevel = value(); break;
            case '--timeout': o.timeout = Number(value()); break;
            case '-h': case '--help': process.stdout.write(USAGE + '\n'); process.exit(0);
            default: fail(`unknown argument ${JSON.stringify(flag)}\n${USAGE}`);
        }
    }
    if (!o.url) fail(`--url is required\n${USAGE}`);
    if (!['modern', 'legacy', 'auto'].includes(o.mode)) fail(`--mode must be modern, legacy or auto, not ${JSON.stringify(o.mode)}`);
    if (!(o.timeout > 0)) fail('--timeout must be a positive number of seconds');
    if (o.steps.length === 0) o.steps.push({ step: 'list' });
    return o;
}

function errorJSON(e) {
    return { code: typeof e?.code === 'number' ? e.code : undefined, message: String(e?.message ?? e), data: e?.data };
}

async function main() {
    const o = parseArgv(process.argv.slice(2));
    const headers = o.token ? { Authorization: `Bearer ${o.token}` } : {};
    const transport = new StreamableHTTPClientTransport(new URL(o.url), { requestInit: { headers } });
    const client = new Client(
        { name: 'mcp-gateway-modern-client', version: '1.0.0' },
        {
            capabilities: { elicitation: {}, sampling: {}, roots: { listChanged: false } },
            versionNegotiation: { mode: o.mode === 'modern' ? { pin: MODERN } : o.mode },
        },
    );
    client.setRequestHandler('elicitation/create', async (req) => {
        out({ event: 'elicitation', params: req.params });
        return o.decline ? { action: 'decline' } : { action: 'accept', content: o.elicit };
    });
    client.setRequestHandler('sampling/createMessage', async (req) => {
        out({ event: 'sampling', params: req.params });
        return { role: 'assistant', content: { type: 'text', text: o.sample }, model: 'modern-client', stopReason: 'endTurn' };
    });
    client.setRequestHandler('roots/list', async (req) => {
        out({ event: 'roots', params: req.params ?? {} });
        return { roots: o.roots.map((uri) => ({ uri, name: uri })) };
    });
    client.setNotificationHandler('notifications/message', (n) => out({ event: 'log', params: n.params }));

    const timeout = o.timeout * 1000;
    let step = 'connect';
    try {
        await client.connect(transport, { timeout });
        out({
            step: 'connect',
            era: client.getProtocolEra(),
            protocolVersion: client.getNegotiatedProtocolVersion(),
            serverInfo: client.getServerVersion(),
            capabilities: client.getServerCapabilities(),
        });
        if (o.logLevel && client.getProtocolEra() === 'legacy') {
            step = 'setLevel';
            await client.setLoggingLevel(o.logLevel, { timeout });
        }
        for (const s of o.steps) {
            step = s.step;
            if (s.step === 'list') {
                const r = await client.listTools(undefined, { timeout });
                out({ step: 'list', tools: r.tools.map((t) => t.name) });
                continue;
            }
            const params = { name: s.tool, arguments: s.args };
            if (o.logLevel && client.getProtocolEra() === 'modern') {
                params._meta = { 'io.modelcontextprotocol/logLevel': o.logLevel };
            }
            const options = { timeout };
            if (s.progress) {
                options.onprogress = (p) => out({ event: 'progress', tool: s.tool, ...p });
                options.resetTimeoutOnProgress = true;
            }
            const result = await client.callTool(params, options);
            out({ step: 'call', tool: s.tool, result });
        }
    } catch (e) {
        out({ step, error: errorJSON(e) });
        await client.close().catch(() => {});
        process.exit(1);
    }
    await client.close();
}

main().catch((e) => {
    process.stderr.write(`modern-client: ${e?.stack ?? e}\n`);
    process.exit(1);
});
