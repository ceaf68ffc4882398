#!/usr/bin/env node
// An MCP Streamable HTTP client on the v2 TypeScript SDK
// (@modelcontextprotocol/client 2.4.0, pinned in test/package.json), for
// tests of the gateway's 2026-07-28 front and of its legacy front through
// the new SDK.
//
//   node test/client/modern-client.mjs --url http://127.0.0.1:50005/mcp
//        (--token TOKEN | --token-file PATH) [--mode modern|legacy|auto]
//        [--list] [--call TOOL [--args 'JSON'] [--progress]]...
//        [--task TOOL [--args 'JSON'] [--listen]]...
//        [--elicit 'JSON' | --decline] [--sample TEXT] [--root URI]...
//        [--log-level LEVEL] [--timeout SECONDS]
//        [--traceparent TP [--tracestate TS] [--baggage B]] [--trace-header TP]
//        [--list-prompts] [--get-prompt NAME [--args 'JSON']]... [--list-resources]
//        [--list-templates] [--read URI]... [--complete-prompt NAME ARG VALUE [--context 'JSON']]...
//        [--complete-resource TEMPLATE ARG VALUE]... [--subscribe URI]... [--await-update URI]...
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
// --task calls TOOL as a task and follows it until it is completed, failed or
// cancelled, polling tasks/get at the task's poll interval:
//   - modern: through the tasks extension (io.modelcontextprotocol/tasks),
//     which the client then declares in its capabilities; the server decides
//     and answers a CreateTaskResult (resultType "task"), and tasks/get's
//     DetailedTask carries the result. With --listen the client first opens a
//     subscriptions/listen naming the task (notifications.taskIds) and prints
//     the notifications/tasks it gets.
//   - legacy: MCP 2025-11-25 tasks, a tools/call with "task" params
//     ({"ttl": 60000}); the result comes from tasks/result.
// The SDK 2.4.0 has no task runtime (its task types are "2025-11-25 wire
// vocabulary with no SDK runtime"). The task methods go out with
// Protocol.request's custom-method form (a result schema as second argument),
// so every message goes through the SDK client and its Streamable HTTP
// transport (headers, _meta envelope, Mcp-Name set to the taskId). The modern
// codec refuses a resultType it does not know before any schema applies, so
// TaskClient below keeps the raw CreateTaskResult in the documented
// _onresponse override before the codec refuses it.
//
// --traceparent (with --tracestate and --baggage) puts the W3C trace
// context in the _meta of every tools/call, as MCP 2026-07-28 SEP-414 has
// it; --trace-header sends it as the HTTP traceparent header of every
// request instead.
// --subscribe subscribes to a resource: resources/subscribe in legacy mode,
// a subscriptions/listen with notifications.resourceSubscriptions in modern
// mode (closed at the end); --await-update waits for a
// notifications/resources/updated of the URI (arrived before or during the
// step).
//
// Output: one JSON line per event, in order:
//   {"step":"connect","era":"modern","protocolVersion":"2026-07-28","serverInfo":{...},"capabilities":{...}}
//   {"step":"list","tools":["echo",...]}
//   {"event":"elicitation","params":{...}}      (also "sampling", "roots")
//   {"event":"progress","tool":"x","progress":1,"total":3}
//   {"event":"log","params":{...}}
//   {"step":"call","tool":"echo","result":{...CallToolResult...}}
//   {"step":"task-created","tool":"x","taskId":"…","task":{...CreateTaskResult as received...}}
//   {"event":"task-status","taskId":"…","status":"working"}   (each status tasks/get shows first)
//   {"event":"task-notification","params":{...}}              (--listen: each notifications/tasks)
//   {"step":"task","tool":"x","taskId":"…","status":"completed","statuses":[...],"result":{...}|"error":{...}}
//   {"step":"prompts","prompts":[names]}, {"step":"prompt","name":…,"result":{...}},
//   {"step":"resources","resources":[uris]}, {"step":"templates","templates":[uriTemplates]},
//   {"step":"read","uri":…,"result":{...}}, {"step":"complete","ref":{...},"result":{...}},
//   {"step":"subscribe","uri":…,"honored":{...}?}, {"step":"updated","uri":…}
// A result with isError:true is printed like any other (exit 0); a
// connection, HTTP or JSON-RPC error prints {"step":...,"error":{code,message}}
// and exits 1.

import { readFileSync } from 'node:fs';
import { Client, SdkErrorCode, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const MODERN = '2026-07-28';
const TASKS_EXT = 'io.modelcontextprotocol/tasks';
const TERMINAL = ['completed', 'failed', 'cancelled'];
const USAGE = `usage: modern-client.mjs --url URL (--token TOKEN | --token-file PATH) [--mode modern|legacy|auto]
       [--list] [--call TOOL [--args JSON] [--progress]]... [--task TOOL [--args JSON] [--listen]]...
       [--elicit JSON | --decline]
       [--sample TEXT] [--root URI]... [--log-level LEVEL] [--timeout SECONDS (default 60)]
       [--traceparent TP [--tracestate TS] [--baggage B]] [--trace-header TP]`;

const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');

function fail(msg) {
    process.stderr.write(`modern-client: ${msg}\n`);
    process.exit(2);
}

function parseArgv(argv) {
    const o = {
        url: null, token: null, mode: 'modern', steps: [], timeout: 60,
        elicit: { name: 'modern-client' }, decline: false, sample: 'sampled by modern-client', roots: [], logLevel: null,
        trace: {}, traceHeader: null,
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
            case '--list-prompts': o.steps.push({ step: 'prompts' }); break;
            case '--list-resources': o.steps.push({ step: 'resources' }); break;
            case '--list-templates': o.steps.push({ step: 'templates' }); break;
            case '--get-prompt': o.steps.push({ step: 'prompt', tool: value(), args: {} }); break;
            case '--read': o.steps.push({ step: 'read', uri: value() }); break;
            case '--subscribe': o.steps.push({ step: 'subscribe', uri: value() }); break;
            case '--await-update': o.steps.push({ step: 'await', uri: value() }); break;
            case '--complete-prompt':
            case '--complete-resource': {
                const target = value();
                const ref = flag === '--complete-prompt' ? { type: 'ref/prompt', name: target } : { type: 'ref/resource', uri: target };
                o.steps.push({ step: 'complete', ref, argument: { name: value(), value: value() } });
                break;
            }
            case '--context': {
                const last = o.steps.at(-1);
                if (!last || last.step !== 'complete') fail('--context must follow --complete-prompt or --complete-resource');
                last.context = { arguments: json('--context', value()) };
                break;
            }
            case '--call': o.steps.push({ step: 'call', tool: value(), args: {}, progress: false }); break;
            case '--task': o.steps.push({ step: 'task', tool: value(), args: {}, listen: false }); break;
            case '--args':
            case '--progress':
            case '--listen': {
                const last = o.steps.at(-1);
                const want = flag === '--progress' ? ['call'] : flag === '--listen' ? ['task'] : ['call', 'task', 'prompt'];
                if (!last || !want.includes(last.step)) fail(`${flag} must follow ${want.map((w) => `--${w} TOOL`).join(' or ')}`);
                if (flag === '--args') last.args = json(`--args for ${last.tool}`, value());
                else last[flag.slice(2)] = true;
                break;
            }
            case '--elicit': o.elicit = json('--elicit', value()); break;
            case '--decline': o.decline = true; break;
            case '--sample': o.sample = value(); break;
            case '--root': o.roots.push(value()); break;
            case '--log-level': o.logLevel = value(); break;
            case '--timeout': o.timeout = Number(value()); break;
            case '--traceparent': o.trace.traceparent = value(); break;
            case '--tracestate': o.trace.tracestate = value(); break;
            case '--baggage': o.trace.baggage = value(); break;
            case '--trace-header': o.traceHeader = value(); break;
            case '-h': case '--help': process.stdout.write(USAGE + '\n'); process.exit(0);
            default: fail(`unknown argument ${JSON.stringify(flag)}\n${USAGE}`);
        }
    }
    if (!o.url) fail(`--url is required\n${USAGE}`);
    if (!['modern', 'legacy', 'auto'].includes(o.mode)) fail(`--mode must be modern, legacy or auto, not ${JSON.stringify(o.mode)}`);
    if (!(o.timeout > 0)) fail('--timeout must be a positive number of seconds');
    if (o.steps.some((s) => s.listen) && o.mode !== 'modern') fail('--listen needs --mode modern (subscriptions/listen is 2026-07-28)');
    if (o.steps.length === 0) o.steps.push({ step: 'list' });
    return o;
}

function errorJSON(e) {
    return { code: typeof e?.code === 'number' ? e.code : undefined, message: String(e?.message ?? e), data: e?.data };
}

// anyResult is a Standard Schema that accepts any value: the result schema of
// the custom-method form of Client.request, for tasks/get, whose result the
// SDK has no schema for.
const anyResult = { '~standard': { version: 1, vendor: 'mcp-gateway-test', validate: (value) => ({ value }) } };

// TaskClient is the SDK client plus what the tasks extension needs of it: the
// raw CreateTaskResult of a call, which the SDK's modern codec rejects as an
// unsupported resultType after _onresponse has seen it.
class TaskClient extends Client {
    #created = new Map(); // JSON-RPC id -> CreateTaskResult

    _onresponse(response) {
        if (response?.result?.resultType === 'task') this.#created.set(response.id, response.result);
        super._onresponse(response);
    }

    // callToolAsTask calls a tool and returns the CreateTaskResult the server
    // answered, or {complete: CallToolResult} if it made no task. Steps run
    // one at a time, so the one kept CreateTaskResult is this call's.
    async callToolAsTask(params, options) {
        this.#created.clear();
        try {
            return { complete: await this.callTool(params, options) };
        } catch (e) {
            if (e?.code !== SdkErrorCode.UnsupportedResultType || e?.data?.resultType !== 'task' || this.#created.size !== 1) throw e;
            const [task] = this.#created.values();
            this.#created.clear();
            return { task };
        }
    }

    #ended = new Set(); // task ids a notifications/tasks said ended
    #wake = () => {};

    noted(params) {
        if (!TERMINAL.includes(params?.status)) return;
        this.#ended.add(params.taskId);
        this.#wake();
    }

    // notedEnd waits until a notifications/tasks has said that taskId ended,
    // or until deadline (ms since the epoch).
    async notedEnd(taskId, deadline) {
        while (!this.#ended.has(taskId) && Date.now() < deadline) {
            await new Promise((resolve) => {
                const t = setTimeout(resolve, deadline - Date.now());
                this.#wake = () => {
                    clearTimeout(t);
                    resolve();
                };
            });
        }
    }

    getTask(taskId, options) {
        return this.request({ method: 'tasks/get', params: { taskId } }, anyResult, options);
    }
}

// withMeta adds the --traceparent trace context to tools/call params.
function withMeta(params, trace) {
    if (Object.keys(trace).length === 0) return params;
    return { ...params, _meta: { ...(params._meta ?? {}), ...trace } };
}

// createTask calls s.tool as a task and returns the CreateTaskResult as
// received and its task id.
async function createTask(client, s, timeout, trace) {
    if (client.getProtocolEra() === 'modern') {
        const created = await client.callToolAsTask(withMeta({ name: s.tool, arguments: s.args }, trace), { timeout });
        if (created.complete) throw new Error(`${s.tool} answered without a task: ${JSON.stringify(created.complete)}`);
        return { task: created.task, taskId: created.task.taskId };
    }
    const params = withMeta({ name: s.tool, arguments: s.args, task: { ttl: 60000 } }, trace);
    const task = await client.request({ method: 'tools/call', params }, anyResult, { timeout });
    if (typeof task?.task?.taskId !== 'string') throw new Error(`${s.tool} answered without a task: ${JSON.stringify(task)}`);
    return { task, taskId: task.task.taskId };
}

// runTask runs one --task step: the call, an optional listen, then tasks/get
// until the task ends, then (legacy) tasks/result.
async function runTask(client, s, timeout, trace) {
    const modern = client.getProtocolEra() === 'modern';
    const { task, taskId } = await createTask(client, s, timeout, trace);
    out({ step: 'task-created', tool: s.tool, taskId, task });
    const sub = s.listen ? await client.listen({ taskIds: [taskId] }, { timeout }) : undefined;
    const statuses = [];
    const deadline = Date.now() + timeout;
    let got;
    for (;;) {
        got = await client.getTask(taskId, { timeout });
        if (statuses.at(-1) !== got.status) {
            statuses.push(got.status);
            out({ event: 'task-status', taskId: got.taskId, status: got.status });
        }
        if (TERMINAL.includes(got.status)) break;
        if (Date.now() > deadline) throw new Error(`task ${taskId} still ${got.status} after ${timeout} ms`);
        const every = Number(modern ? got.pollIntervalMs : got.pollInterval) || 500;
        await new Promise((r) => setTimeout(r, Math.max(50, every)));
    }
    if (sub) {
        // The poll saw the end; the notification of it may still be on its way.
        await client.notedEnd(taskId, deadline);
        await sub.close();
    }
    let outcome = got.error ? { error: got.error } : { result: got.result };
    if (!modern) {
        try {
            outcome = { result: await client.request({ method: 'tasks/result', params: { taskId } }, anyResult, { timeout }) };
        } catch (e) {
            outcome = { error: errorJSON(e) };
        }
    }
    out({ step: 'task', tool: s.tool, taskId: got.taskId, status: got.status, statuses, ...outcome });
}

// surfaceStep runs one step of the surface beyond tools and returns its
// line; subs collects the listens it opens, updated the URIs updates named.
async function surfaceStep(client, s, timeout, subs, updated) {
    const modern = client.getProtocolEra() === 'modern';
    switch (s.step) {
        case 'prompts': return { step: 'prompts', prompts: (await client.listPrompts(undefined, { timeout })).prompts.map((p) => p.name) };
        case 'resources': return { step: 'resources', resources: (await client.listResources(undefined, { timeout })).resources.map((r) => r.uri) };
        case 'templates': return { step: 'templates', templates: (await client.listResourceTemplates(undefined, { timeout })).resourceTemplates.map((t) => t.uriTemplate) };
        case 'prompt': return { step: 'prompt', name: s.tool, result: await client.getPrompt({ name: s.tool, arguments: s.args }, { timeout }) };
        case 'read': return { step: 'read', uri: s.uri, result: await client.readResource({ uri: s.uri }, { timeout }) };
        case 'complete': {
            const params = { ref: s.ref, argument: s.argument, ...(s.context ? { context: s.context } : {}) };
            return { step: 'complete', ref: s.ref, result: await client.complete(params, { timeout }) };
        }
        case 'subscribe': {
            if (!modern) {
                await client.subscribeResource({ uri: s.uri }, { timeout });
                return { step: 'subscribe', uri: s.uri };
            }
            const sub = await client.listen({ resourceSubscriptions: [s.uri] }, { timeout });
            subs.push(sub);
            return { step: 'subscribe', uri: s.uri, honored: sub.honoredFilter };
        }
        case 'await': {
            const deadline = Date.now() + timeout;
            while (!updated.has(s.uri)) {
                if (Date.now() >= deadline) throw new Error(`no notifications/resources/updated for ${s.uri} within ${timeout} ms`);
                await new Promise((resolve) => {
                    const t = setTimeout(resolve, deadline - Date.now());
                    updated.wake = () => { clearTimeout(t); resolve(); };
                });
            }
            return { step: 'updated', uri: s.uri };
        }
    }
    throw new Error(`unknown step ${s.step}`);
}

async function main() {
    const o = parseArgv(process.argv.slice(2));
    const headers = o.token ? { Authorization: `Bearer ${o.token}` } : {};
    if (o.traceHeader) headers.traceparent = o.traceHeader;
    const transport = new StreamableHTTPClientTransport(new URL(o.url), { requestInit: { headers } });
    const tasks = o.steps.some((s) => s.step === 'task');
    const client = new TaskClient(
        { name: 'mcp-gateway-modern-client', version: '1.0.0' },
        {
            capabilities: {
                elicitation: {}, sampling: {}, roots: { listChanged: false },
                ...(tasks ? { extensions: { [TASKS_EXT]: {} } } : {}),
            },
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
    const updated = new Set();
    updated.wake = () => {};
    client.setNotificationHandler('notifications/resources/updated', (n) => {
        updated.add(n.params.uri);
        updated.wake();
    });
    const subs = [];
    client.setNotificationHandler('notifications/tasks', { params: anyResult }, (params) => {
        out({ event: 'task-notification', params });
        client.noted(params);
    });

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
            if (s.step === 'task') {
                await runTask(client, s, timeout, o.trace);
                continue;
            }
            if (s.step !== 'list' && s.step !== 'call') {
                out(await surfaceStep(client, s, timeout, subs, updated));
                continue;
            }
            if (s.step === 'list') {
                const r = await client.listTools(undefined, { timeout });
                out({ step: 'list', tools: r.tools.map((t) => t.name) });
                continue;
            }
            let params = { name: s.tool, arguments: s.args };
            if (o.logLevel && client.getProtocolEra() === 'modern') {
                params._meta = { 'io.modelcontextprotocol/logLevel': o.logLevel };
            }
            params = withMeta(params, o.trace);
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
    for (const sub of subs) await sub.close();
    await client.close();
}

main().catch((e) => {
    process.stderr.write(`modern-client: ${e?.stack ?? e}\n`);
    process.exit(1);
});
