// Gives Node 20 an `fs.globSync` (added in Node 22) so that
// @modelcontextprotocol/conformance, which does `import { globSync } from "fs"`,
// can start:
//
//   node --import ./test/conformance/globsync-shim.mjs test/node_modules/.bin/conformance --help
//
// Assigning fs.globSync is not enough: the ES-module view of a builtin has a
// fixed list of named exports. So this file is also a module-resolution hook:
// `import ... from "fs"` (or "node:fs") resolves to a tiny wrapper module that
// re-exports node:fs plus the globSync below. On Node >= 22 it does nothing.
//
// The CLI only calls globSync("**/checks.json", { cwd }), so only `**`, `*`
// and `?` are supported; paths are returned relative to cwd, as in Node 22.

import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';
import fs from 'node:fs';
import path from 'node:path';

function globToRegExp(pattern) {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      // "**/" matches zero or more directories; any other "**" matches anything.
      if (pattern[i + 2] === '/') { re += '(?:.*/)?'; i += 2; } else { re += '.*'; i += 1; }
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

export function globSync(patterns, options = {}) {
  const cwd = options.cwd ? String(options.cwd) : process.cwd();
  const regexps = [].concat(patterns).map(globToRegExp);
  const found = [];
  const walk = (rel) => {
    let entries;
    try { entries = fs.readdirSync(path.join(cwd, rel), { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (regexps.some((r) => r.test(p))) found.push(p);
      if (e.isDirectory()) walk(p);
    }
  };
  walk('');
  return found;
}

const WRAPPER = 'data:text/javascript,' + encodeURIComponent(
  `import fs from 'node:fs';
   import { globSync } from ${JSON.stringify(import.meta.url)};
   export * from 'node:fs';
   export { globSync };
   export default fs;`);

// Resolve hook (runs on the loader thread once registered below).
export async function resolve(specifier, context, nextResolve) {
  const parent = context.parentURL || '';
  if ((specifier === 'fs' || specifier === 'node:fs') && !parent.startsWith('data:') && parent !== import.meta.url) {
    return { url: WRAPPER, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

if (isMainThread && typeof fs.globSync !== 'function') {
  fs.globSync = globSync; // for require('fs') users
  register(import.meta.url);
}
