#!/usr/bin/env node
// Three clients on one resource, for the gateway's subscription fan-out test
// (SPEC §4.8): two legacy sessions (the TypeScript SDK v1 client, and the v2
// client in legacy mode) subscribe with resources/subscribe, and a modern
// client (v2 at 2026-07-28) opens a subscriptions/listen naming the URI.
//
//   node test/client/fanout.mjs --url URL --token TOKEN --uri URI
//        --trigger TOOL [--trigger-args JSON] [--timeout SECONDS]
//
// It runs step by step, printing one JSON line per step and waiting for a
// line on stdin before the next, so that a test can look at the gateway
// between them:
//
//   {"step":"subscribed"}                        all three subscribed
//   {"step":"updated","clients":["a","b","c"]}   TOOL called (by a); each got
//                                                notifications/resources/updated
//   {"step":"left","client":"a","how":"unsubscribe"}
//   {"step":"left","client":"b","how":"end session"}
//   {"step":"left","client":"c","how":"close listen"}
//
// An error prints {"step":…,"error":"…"} and exits 1.

import { createInterface } from 'node:readline';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');

function parseArgv(argv) {
    const o = { url: null, token: null, uri: null, trigger: null, triggerArgs: {}, timeout: 30 };
    for (let i = 0; i < argv.length; i++) {
        const v = () => argv[++i];
        switch (argv[i]) {
            case '--url': o.url = v(); break;
            case '--token': o.token = v(); break;
            case '--uri': o.uri = v(); break;
            case '--trigger': o.trigger = v(); break;
            case '--trigger-args': o.triggerArgs = JSON.parse(v()); break;
            case '--timeout': o.timeout = Number(v()); break;
            default: throw new Error(`unknown argument ${argv[i]}`);
        }
    }
    if (!o.url || !o.token || !o.uri || !o.trigger) throw new Error('--url, --token, --uri and --trigger are required');
    return o;
}

async function main() {
    const o = parseArgv(process.argv.slice(2));
    const timeout = o.timeout * 1000;
    const headers = { Authorization: `Bearer ${o.token}` };
    const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
    const next = async () => { await lines.next(); };
    const got = new Set();
    let wake = () => {};
    const note = (who) => (n) => {
        if (n.params.uri === o.uri) got.add(who);
        wake();
    };

    let step = 'connect';
    try {
        const ta = new TransportV1(new URL(o.url), { requestInit: { headers } });
        const a = new ClientV1({ name: 'fanout-a', version: '1' });
        a.setNotificationHandler(ResourceUpdatedNotificationSchema, note('a'));
        await a.connect(ta, { timeout });
        const tb = new StreamableHTTPClientTransport(new URL(o.url), { requestInit: { headers } });
        const b = new Client({ name: 'fanout-b', version: '1' }, { versionNegotiation: { mode: 'legacy' } });
        b.setNotificationHandler('notifications/resources/updated', note('b'));
        await b.connect(tb, { timeout });
        const c = new Client({ name: 'fanout-c', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
        c.setNotificationHandler('notifications/resources/updated', note('c'));
        await c.connect(new StreamableHTTPClientTransport(new URL(o.url), { requestInit: { headers } }), { timeout });

        step = 'subscribe';
        await a.subscribeResource({ uri: o.uri }, { timeout });
        await b.subscribeResource({ uri: o.uri }, { timeout });
        const sub = await c.listen({ resourceSubscriptions: [o.uri] }, { timeout });
        if (!sub.honoredFilter.resourceSubscriptions?.includes(o.uri)) throw new Error(`the listen was acknowledged with ${JSON.stringify(sub.honoredFilter)}`);
        out({ step: 'subscribed' });
        await next();

        step = 'updated';
        await a.callTool({ name: o.trigger, arguments: o.triggerArgs }, undefined, { timeout });
        const deadline = Date.now() + timeout;
        while (got.size < 3) {
            if (Date.now() >= deadline) throw new Error(`updates reached only ${[...got]}`);
            await new Promise((resolve) => {
                const t = setTimeout(resolve, deadline - Date.now());
                wake = () => { clearTimeout(t); resolve(); };
            });
        }
        out({ step: 'updated', clients: [...got].sort() });
        await next();

        step = 'leave';
        await a.unsubscribeResource({ uri: o.uri }, { timeout });
        out({ step: 'left', client: 'a', how: 'unsubscribe' });
        await next();
        await tb.terminateSession();
        await b.close();
        out({ step: 'left', client: 'b', how: 'end session' });
        await next();
        await sub.close();
        out({ step: 'left', client: 'c', how: 'close listen' });
        await ta.terminateSession();
        await a.close();
        await c.close();
    } catch (e) {
        out({ step, error: String(e?.message ?? e) });
        process.exit(1);
    }
    process.exit(0);
}

main().catch((e) => {
    out({ step: 'main', error: String(e?.stack ?? e) });
    process.exit(1);
});
