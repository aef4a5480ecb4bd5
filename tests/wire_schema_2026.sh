#!/usr/bin/env bash
# Every message `minimcp serve --profile conformance` sends on the 2026-07-28 wire, checked
# against the specification's own JSON schema (../shared/spec/2026-07-28/schema.json) by an
# independent validator (Python `jsonschema`), the way the official suite's
# `wire-schema-valid` check does it (CONFORMANCE-FIXTURES §6.1): a result by its method's
# `…Result` definition (or `InputRequiredResult`), an error by its code's definition, a
# notification by its method's definition, then the envelope.
#
#   tests/wire_schema_2026.sh     # from anywhere
#
# The calls are the ones the suite makes at that wire: discover, every listing, every
# resource and prompt, every tool with the suite's arguments (answering input_required rounds
# with the suite's mock answers until complete), progress, per-request logging, a listen
# stream, and the error paths (-32602, -32021, -32601). Exits non-zero on any violation.
# `jsonschema` comes from the system Python if present, else it is pip-installed into a
# scratch directory (PyPI only). Environment: MINIMCP_SHARED (default ../shared beside the
# project), MINIMCP_BIN (default target/release/minimcp, built here).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SHARED="${MINIMCP_SHARED:-$ROOT/../shared}"
SCHEMA="$SHARED/spec/2026-07-28/schema.json"
[ -f "$SCHEMA" ] || { echo "wire_schema_2026: FAILED: no schema at $SCHEMA (set MINIMCP_SHARED)" >&2; exit 1; }

if [ -z "${MINIMCP_BIN:-}" ]; then
  (cd "$ROOT" && cargo build --release --quiet)
  MINIMCP_BIN="$ROOT/target/release/minimcp"
fi

. "$ROOT/tests/lib/jsonschema.sh"
ensure_jsonschema wire_schema_2026

exec python3 - "$MINIMCP_BIN" "$SCHEMA" <<'PYTHON'
import json
import subprocess
import sys

import jsonschema

binary, schema_path = sys.argv[1], sys.argv[2]
with open(schema_path) as f:
    DEFS = json.load(f)["$defs"]

# Which definition checks what, derived from the schema as the suite derives it.
METHOD_DEFS, RESULT_DEFS, ERROR_DEFS = {}, {}, {}
for name, d in DEFS.items():
    props = d.get("properties", {})
    method = props.get("method", {}).get("const")
    if isinstance(method, str):
        METHOD_DEFS[method] = name
        if name.endswith("Request") and name[:-7] + "Result" in DEFS:
            RESULT_DEFS[method] = name[:-7] + "Result"
    for part in props.get("error", {}).get("allOf", []):
        code = part.get("properties", {}).get("code", {}).get("const")
        if isinstance(code, int):
            ERROR_DEFS[code] = name

VALIDATORS = {}


def problems(defname, value):
    if defname not in VALIDATORS:
        VALIDATORS[defname] = jsonschema.Draft202012Validator(
            {"$ref": "#/$defs/" + defname, "$defs": DEFS}
        )
    return [f"{defname}{'/'.join(map(str, e.absolute_path)) and ' at ' + '/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in VALIDATORS[defname].iter_errors(value)]


# The validator must reject what the suite rejects, or a pass means nothing.
assert problems("CallToolResult", {"content": []}), "a result without resultType passed"
assert problems("ListToolsResult", {"tools": [], "resultType": "complete"}), "a listing without ttlMs passed"


def check(message, method):
    if "method" in message:
        return problems(METHOD_DEFS.get(message["method"], "JSONRPCNotification"), message)
    if message.get("error") is not None:
        return problems(ERROR_DEFS.get(message["error"].get("code"), "JSONRPCErrorResponse"), message)
    result = message.get("result")
    found = []
    if isinstance(result, dict) and result.get("resultType") == "input_required":
        found += problems("InputRequiredResult", result)
    elif method in RESULT_DEFS:
        found += problems(RESULT_DEFS[method], result)
    return found + problems("JSONRPCResultResponse", message)


server = subprocess.Popen([binary, "serve", "--profile", "conformance"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
ALL = {"sampling": {}, "elicitation": {}, "roots": {"listChanged": True}}
next_id = 0
checked = 0
violations = []
methods_seen = set()


def meta(capabilities=None, **extra):
    m = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
         "io.modelcontextprotocol/clientInfo": {"name": "wire-schema", "version": "1"},
         "io.modelcontextprotocol/clientCapabilities": ALL if capabilities is None else capabilities}
    m.update(extra)
    return m


def read_message(method, context):
    global checked
    line = server.stdout.readline()
    if not line:
        raise SystemExit(f"wire_schema_2026: FAILED: the server closed stdout during {context}")
    message = json.loads(line)
    checked += 1
    methods_seen.add(message.get("method") or method)
    for p in check(message, method):
        violations.append(f"{context}: {p}\n    message: {line.strip()[:400]}")
    return message


def send(method, params, context=None, until_response=True):
    """Sends one request; returns its response (notifications before it are checked too)."""
    global next_id
    next_id += 1
    rid = next_id
    params = dict(params)
    params.setdefault("_meta", meta())
    server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}) + "\n")
    server.stdin.flush()
    context = context or f"{method} {params.get('name') or params.get('uri') or ''}".strip()
    if not until_response:
        return read_message(method, context)
    while True:
        message = read_message(method, context)
        if message.get("id") == rid and "method" not in message:
            return message


def answer(request):
    """The suite's mock answer to one input request (CONFORMANCE-FIXTURES §6.3)."""
    method = request["method"]
    if method == "sampling/createMessage":
        return {"role": "assistant", "content": {"type": "text", "text": "Hello there!"},
                "model": "test-model", "stopReason": "endTurn"}
    if method == "roots/list":
        return {"roots": [{"uri": "file:///test/root", "name": "Test Root"}]}
    fields = request["params"]["requestedSchema"].get("properties", {})
    sample = {"string": "Alice", "boolean": True, "integer": 1, "number": 1.5}
    return {"action": "accept",
            "content": {k: sample.get(v.get("type"), "x") for k, v in fields.items()
                        if v.get("type") in sample}}


def until_complete(method, params):
    """Calls, answering input_required rounds like the suite, at most four rounds."""
    response = send(method, params)
    for _ in range(4):
        result = response.get("result") or {}
        if result.get("resultType") != "input_required":
            return response
        retry = dict(params)
        retry["inputResponses"] = {k: answer(r) for k, r in result.get("inputRequests", {}).items()}
        if "requestState" in result:
            retry["requestState"] = result["requestState"]
        response = send(method, retry)
    return response


send("server/discover", {})
tools = send("tools/list", {})["result"]["tools"]
prompts = send("prompts/list", {})["result"]["prompts"]
resources = send("resources/list", {})["result"]["resources"]
send("resources/templates/list", {})
for r in resources:
    send("resources/read", {"uri": r["uri"]})
send("resources/read", {"uri": "test://template/123/data"})
send("resources/read", {"uri": "test://nonexistent-resource-for-conformance-testing"})
send("completion/complete", {"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
                             "argument": {"name": "arg1", "value": "test"}})

ARGUMENTS = {"test_sampling": {"prompt": "Test prompt for sampling"},
             "test_elicitation": {"message": "Please provide your information"},
             "echo": {"text": "hello"}, "json_schema_2020_12_tool": {"name": "n", "email": "a@b.c"},
             "test_x_mcp_header": {"region": "Hello"}}
for t in tools:
    until_complete("tools/call", {"name": t["name"], "arguments": ARGUMENTS.get(t["name"], {})})
# Arguments that do not fit: a tool error in 2026-07-28.
send("tools/call", {"name": "echo", "arguments": {}})
send("tools/call", {"name": "test_tool_with_progress", "arguments": {},
                    "_meta": meta(progressToken="progress-test-1")})
send("tools/call", {"name": "test_logging_tool", "arguments": {},
                    "_meta": meta(**{"io.modelcontextprotocol/logLevel": "debug"})})
send("tools/call", {"name": "test_missing_capability", "arguments": {}, "_meta": meta({})})
send("tools/call", {"name": "no_such_tool", "arguments": {}})
PROMPT_ARGUMENTS = {"test_prompt_with_arguments": {"arg1": "testValue1", "arg2": "testValue2"},
                    "test_prompt_with_embedded_resource": {"resourceUri": "test://example-resource"}}
for p in prompts:
    params = {"name": p["name"]}
    if p["name"] in PROMPT_ARGUMENTS:
        params["arguments"] = PROMPT_ARGUMENTS[p["name"]]
    until_complete("prompts/get", params)
send("ping", {})  # removed in 2026-07-28: -32601
send("tools/call", {"name": "test_simple_text", "_meta": {"io.modelcontextprotocol/protocolVersion": "v999.0.0",
                                                          "io.modelcontextprotocol/clientCapabilities": {}}})
send("server/discover", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}})
# A listen stream: its acknowledgement is the only message until it is cancelled.
send("subscriptions/listen", {"notifications": {"toolsListChanged": True, "resourceSubscriptions": ["test://watched-resource"]}},
     until_response=False)

server.stdin.close()
for line in server.stdout:
    checked += 1
    for p in check(json.loads(line), None):
        violations.append(f"after end of input: {p}\n    message: {line.strip()[:400]}")
server.wait(timeout=10)

print(f"wire_schema_2026: {checked} messages validated against {schema_path}")
print(f"  methods and notifications seen: {', '.join(sorted(methods_seen))}")
if violations:
    print(f"wire_schema_2026: FAILED: {len(violations)} violation(s):")
    for v in violations:
        print("  " + v)
    sys.exit(1)
print("wire_schema_2026: OK: no violations")
PYTHON
