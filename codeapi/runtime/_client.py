"""The runtime of the gateway's tools as code (SPEC §12.3).

Each call is one MCP 2026-07-28 tools/call to the gateway on loopback,
whose URL and token file the code dir's gateway.json names. The token is
read at each call: MCP_GATEWAY_TOKEN if set, else the token file.
Standard library only, Python 3.8 or later.
"""

import base64
import http.client
import itertools
import json
import os
import re
import threading
import urllib.parse

__all__ = ["ToolError", "InputRequiredError", "Tool", "call", "TIMEOUT"]

PROTOCOL_VERSION = "2026-07-28"
_CONF = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "gateway.json")
_META = {
    "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "mcp-gateway-code", "version": "1"},
}
_ids = itertools.count(1)
_lock = threading.Lock()

# Seconds a call may take before it fails (None: no limit).
TIMEOUT = None


class ToolError(Exception):
    """A tool call that failed.

    message: the result's text (isError) or the JSON-RPC error's message;
    code: the JSON-RPC error code, or None for a result with isError;
    data: the JSON-RPC error's data; result: the CallToolResult of an isError.
    """

    def __init__(self, message, code=None, data=None, result=None):
        super().__init__(message if code is None else "%s (code %s)" % (message, code))
        self.message, self.code, self.data, self.result = message, code, data, result


class InputRequiredError(ToolError):
    """The tool asked for input (elicitation, sampling or roots): code
    cannot answer it; call the tool through an MCP client instead."""


class Tool:
    """What a generated function knows of its tool: its exported name,
    whether it declares an outputSchema, the Python names of arguments
    that differ from theirs, and its Mcp-Param headers."""

    __slots__ = ("name", "structured", "renames", "headers")

    def __init__(self, name, structured, renames, headers):
        self.name, self.structured, self.renames, self.headers = name, structured, renames, headers


def call(tool, params):
    """Calls tool with a generated function's locals(): None values are
    left out, extra keyword arguments are passed as they are."""
    extra = params.pop("_mcp_extra", None) or {}
    arguments = {}
    for key, value in params.items():
        if value is not None:
            arguments[tool.renames.get(key, key)] = value
    arguments.update(extra)
    return call_tool(tool.name, arguments, tool.structured, tool.headers)


def call_tool(name, arguments, structured=False, headers=()):
    """Calls the exported tool name with arguments (a dict) and returns
    its structuredContent (structured), else the text of a text-only
    result, else the content list. Raises ToolError."""
    with open(_CONF, encoding="utf-8") as f:
        conf = json.load(f)
    token = os.environ.get("MCP_GATEWAY_TOKEN") or _read_token(conf.get("tokenFile") or "")
    if not _TOKEN_CHARS.fullmatch(token):
        # Never in the message: it would reach the model.
        raise ToolError("call %s: the token (MCP_GATEWAY_TOKEN, else the token file %s) holds characters an HTTP header cannot carry, "
                        "such as a line break; it was not sent" % (name, conf.get("tokenFile")))
    with _lock:
        rid = next(_ids)
    body = json.dumps({
        "jsonrpc": "2.0", "id": rid, "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": _META},
    }, ensure_ascii=False).encode("utf-8")
    h = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "Authorization": "Bearer " + token,
        "MCP-Protocol-Version": PROTOCOL_VERSION,
        "Mcp-Method": "tools/call",
        "Mcp-Name": _header_value(name),
    }
    for header, path in headers:
        if not _NAME_CHARS.fullmatch(header):
            raise ToolError("call %s: its x-mcp-header name %r is not an HTTP header name" % (name, header))
        value = _value_at(arguments, path)
        if value is not None:
            text = _header_text(value)
            if text is not None:
                h["Mcp-Param-" + header] = _header_value(text)
    url = urllib.parse.urlsplit(conf["url"])
    conn = http.client.HTTPConnection(url.hostname, url.port or 80, timeout=TIMEOUT)
    try:
        conn.request("POST", url.path or "/", body, h)
        resp = conn.getresponse()
        message = _answer(resp, rid)
    except (OSError, http.client.HTTPException) as e:
        raise ToolError("call %s: the gateway at %s: %s" % (name, conf["url"], e)) from e
    finally:
        conn.close()
    return _outcome(name, message, structured)


def _read_token(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except OSError as e:
        raise ToolError("no token: MCP_GATEWAY_TOKEN is not set and the token file %r cannot be read (%s)" % (path, e.strerror)) from None


def _answer(resp, rid):
    """Reads the response to its end: one JSON body, or an SSE stream whose
    events may carry notifications before the response to rid."""
    ctype = (resp.getheader("Content-Type") or "").split(";")[0].strip().lower()
    if ctype == "text/event-stream":
        found, data = None, []
        for raw in resp:
            line = raw.decode("utf-8").rstrip("\r\n")
            if line.startswith("data:"):
                data.append(line[5:][1:] if line[5:6] == " " else line[5:])
            elif line == "" and data:
                msg = json.loads("\n".join(data))
                data = []
                if isinstance(msg, dict) and msg.get("id") == rid and ("result" in msg or "error" in msg):
                    found = msg
        if data:
            msg = json.loads("\n".join(data))
            if isinstance(msg, dict) and msg.get("id") == rid:
                found = msg
        if found is None:
            raise ToolError("the gateway's stream ended without a response (HTTP %d)" % resp.status)
        return found
    raw = resp.read()
    if resp.status == 401:
        raise ToolError("the gateway refused the token (HTTP 401): set MCP_GATEWAY_TOKEN to the gateway's token")
    try:
        msg = json.loads(raw)
    except ValueError:
        raise ToolError("HTTP %d from the gateway: %s" % (resp.status, raw[:200].decode("utf-8", "replace"))) from None
    if not isinstance(msg, dict) or ("result" not in msg and "error" not in msg):
        raise ToolError("HTTP %d from the gateway: %s" % (resp.status, raw[:200].decode("utf-8", "replace")))
    return msg


def _outcome(name, msg, structured):
    if "error" in msg:
        err = msg["error"] if isinstance(msg["error"], dict) else {}
        raise ToolError(err.get("message", "error"), err.get("code"), err.get("data"))
    result = msg["result"]
    if not isinstance(result, dict):
        raise ToolError("call %s: the result is not an object" % name)
    kind = result.get("resultType", "complete")
    if kind == "input_required":
        raise InputRequiredError("tool %s asked for input (%s), which code cannot answer: call it through an MCP client"
                                 % (name, ", ".join(_asks(result)) or "input"), result=result)
    if kind != "complete":
        raise ToolError("tool %s gave a result of type %r, which code cannot follow" % (name, kind), result=result)
    content = result.get("content") or []
    if result.get("isError"):
        raise ToolError(_text(content) or "tool %s failed" % name, result=result)
    if structured and "structuredContent" in result:
        return result["structuredContent"]
    if all(isinstance(c, dict) and c.get("type") == "text" for c in content):
        return _text(content)
    return content


def _asks(result):
    reqs = result.get("inputRequests") or {}
    items = reqs.values() if isinstance(reqs, dict) else reqs
    return sorted({r.get("method", "?") for r in items if isinstance(r, dict)})


def _text(content):
    return "\n".join(c.get("text", "") for c in content if isinstance(c, dict) and c.get("type") == "text")


def _value_at(arguments, path):
    v = arguments
    for k in path:
        if not isinstance(v, dict) or k not in v:
            return None
        v = v[k]
    return v


# A header name (an RFC 9110 §5.6.2 token), and what a bearer token may
# hold here: visible ASCII, no space or line break.
_NAME_CHARS = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_TOKEN_CHARS = re.compile(r"[!-~]+")


def _header_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return v
    if isinstance(v, (int, float)):
        return json.dumps(v)
    return None


def _header_value(s):
    """A header value as MCP 2026-07-28 writes it: plain visible ASCII, or
    the Base64 sentinel of its UTF-8 bytes."""
    if s == s.strip() and all(" " <= c <= "~" for c in s) and not (s.startswith("=?base64?") and s.endswith("?=")):
        return s
    return "=?base64?" + base64.b64encode(s.encode("utf-8")).decode("ascii") + "?="
