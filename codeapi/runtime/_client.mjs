// The runtime of the gateway's tools as code (SPEC §12.3), for Node 18 or
// later: each call is one MCP 2026-07-28 tools/call to the gateway on
// loopback, whose URL and token file the code dir's gateway.json names.
// The token is read at each call: MCP_GATEWAY_TOKEN if set, else the
// token file.

import { readFileSync } from "node:fs";

export const PROTOCOL_VERSION = "2026-07-28";
const CONF = new URL("../gateway.json", import.meta.url);
const META = {
  "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "mcp-gateway-code", version: "1" },
};
let nextId = 1;

/** A tool call that failed: message is the result's text (isError) or the
 * JSON-RPC error's message; code the JSON-RPC error code (undefined for
 * isError); data the error's data; result the CallToolResult of an isError. */
export class ToolError extends Error {
  constructor(message, { code, data, result } = {}) {
    super(code === undefined ? message : `${message} (code ${code})`);
    this.name = "ToolError";
    this.toolMessage = message;
    this.code = code;
    this.data = data;
    this.result = result;
  }
}

/** The tool asked for input (elicitation, sampling or roots), which code
 * cannot answer: call it through an MCP client instead. */
export class InputRequiredError extends ToolError {
  constructor(message, opts) {
    super(message, opts);
    this.name = "InputRequiredError";
  }
}

/** Calls tool ({name, structured, headers}) with one object of arguments
 * and returns its structuredContent (structured), else the text of a
 * text-only result, else the content list. Throws ToolError. */
export async function call(tool, args = {}) {
  return callTool(tool.name, args, tool.structured, tool.headers);
}

// A header name (an RFC 9110 §5.6.2 token), and what a bearer token may
// hold here: visible ASCII, no space or line break.
const NAME_CHARS = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const TOKEN_CHARS = /^[!-~]+$/;

export async function callTool(name, args = {}, structured = false, headers = []) {
  const conf = JSON.parse(readFileSync(CONF, "utf8"));
  let token = process.env.MCP_GATEWAY_TOKEN;
  if (!token) {
    try {
      token = readFileSync(conf.tokenFile || "", "utf8").trim();
    } catch (e) {
      throw new ToolError(`no token: MCP_GATEWAY_TOKEN is not set and the token file ${JSON.stringify(conf.tokenFile)} cannot be read (${e.code})`);
    }
  }
  if (!TOKEN_CHARS.test(token)) {
    // Never in the message: it would reach the model.
    throw new ToolError(`call ${name}: the token (MCP_GATEWAY_TOKEN, else the token file ${conf.tokenFile}) holds characters an HTTP header cannot carry, such as a line break; it was not sent`);
  }
  const id = nextId++;
  const h = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    Authorization: `Bearer ${token}`,
    "MCP-Protocol-Version": PROTOCOL_VERSION,
    "Mcp-Method": "tools/call",
    "Mcp-Name": headerValue(name),
  };
  for (const [header, path] of headers) {
    if (!NAME_CHARS.test(header)) throw new ToolError(`call ${name}: its x-mcp-header name ${JSON.stringify(header)} is not an HTTP header name`);
    const text = headerText(valueAt(args, path));
    if (text !== undefined) h[`Mcp-Param-${header}`] = headerValue(text);
  }
  const body = JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, _meta: META } });
  let msg;
  try {
    const res = await fetch(conf.url, { method: "POST", headers: h, body });
    msg = await answer(res, id);
  } catch (e) {
    if (e instanceof ToolError) throw e;
    throw new ToolError(`call ${name}: the gateway at ${conf.url}: ${e.cause?.message ?? e.message}`);
  }
  return outcome(name, msg, structured);
}

// answer reads the response to its end: one JSON body, or an SSE stream
// whose events may carry notifications before the response to id.
async function answer(res, id) {
  const ctype = (res.headers.get("content-type") || "").split(";")[0].trim().toLowerCase();
  if (ctype === "text/event-stream") {
    let found;
    const take = (data) => {
      const msg = JSON.parse(data.join("\n"));
      if (msg && msg.id === id && ("result" in msg || "error" in msg)) found = msg;
    };
    const decoder = new TextDecoder();
    let buf = "";
    let data = [];
    const lines = (final) => {
      let i;
      while ((i = buf.indexOf("\n")) >= 0 || (final && buf.length > 0)) {
        if (i < 0) i = buf.length;
        const line = buf.slice(0, i).replace(/\r$/, "");
        buf = buf.slice(i + 1);
        if (line.startsWith("data:")) data.push(line.slice(line[5] === " " ? 6 : 5));
        else if (line === "" && data.length) {
          take(data);
          data = [];
        }
      }
    };
    for await (const chunk of res.body) {
      buf += decoder.decode(chunk, { stream: true });
      lines(false);
    }
    buf += decoder.decode();
    lines(true);
    if (data.length) take(data);
    if (!found) throw new ToolError(`the gateway's stream ended without a response (HTTP ${res.status})`);
    return found;
  }
  const text = await res.text();
  if (res.status === 401) throw new ToolError("the gateway refused the token (HTTP 401): set MCP_GATEWAY_TOKEN to the gateway's token");
  let msg;
  try {
    msg = JSON.parse(text);
  } catch {
    throw new ToolError(`HTTP ${res.status} from the gateway: ${text.slice(0, 200)}`);
  }
  if (!msg || typeof msg !== "object" || !("result" in msg || "error" in msg)) {
    throw new ToolError(`HTTP ${res.status} from the gateway: ${text.slice(0, 200)}`);
  }
  return msg;
}

function outcome(name, msg, structured) {
  if ("error" in msg) {
    const e = msg.error || {};
    throw new ToolError(e.message ?? "error", { code: e.code, data: e.data });
  }
  const result = msg.result;
  if (!result || typeof result !== "object") throw new ToolError(`call ${name}: the result is not an object`);
  const kind = result.resultType ?? "complete";
  if (kind === "input_required") {
    const reqs = result.inputRequests || {};
    const asks = [...new Set(Object.values(reqs).map((r) => r?.method ?? "?"))].sort().join(", ");
    throw new InputRequiredError(`tool ${name} asked for input (${asks || "input"}), which code cannot answer: call it through an MCP client`, { result });
  }
  if (kind !== "complete") throw new ToolError(`tool ${name} gave a result of type ${JSON.stringify(kind)}, which code cannot follow`, { result });
  const content = Array.isArray(result.content) ? result.content : [];
  if (result.isError) throw new ToolError(text(content) || `tool ${name} failed`, { result });
  if (structured && "structuredContent" in result) return result.structuredContent;
  if (content.every((c) => c && c.type === "text")) return text(content);
  return content;
}

const text = (content) => content.filter((c) => c && c.type === "text").map((c) => c.text ?? "").join("\n");

function valueAt(v, path) {
  for (const k of path) {
    if (!v || typeof v !== "object" || Array.isArray(v) || !(k in v)) return undefined;
    v = v[k];
  }
  return v;
}

function headerText(v) {
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isFinite(v)) return JSON.stringify(v);
  return undefined;
}

// headerValue writes a header value as MCP 2026-07-28 does: plain visible
// ASCII, or the Base64 sentinel of its UTF-8 bytes.
function headerValue(s) {
  if (s === s.trim() && /^[\x20-\x7e]*$/.test(s) && !(s.startsWith("=?base64?") && s.endsWith("?="))) return s;
  return `=?base64?${Buffer.from(s, "utf8").toString("base64")}?=`;
}
