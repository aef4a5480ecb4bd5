#!/usr/bin/env python3
"""Drive minimcp with the official Python MCP SDK (`mcp` from PyPI), once per protocol version.

usage: python_client.py [--generic | --roots DIR | --edit DIR] [--versions V,V,...] -- SERVER_COMMAND [ARGS...]
       python_client.py [--generic] [--versions V,V,...] -- http://HOST:PORT/mcp
       python_client.py [--generic] [--versions V,V,...] -- unix:/PATH/TO.sock[:/mcp]

For each version a fresh server process is spawned over stdio and a fresh session opened:
- handshake versions (2024-11-05 ... 2025-11-25): the SDK's ClientSession, with the
  `initialize` request sent through `send_request` so the requested `protocolVersion` can be
  chosen (`ClientSession.initialize()` always asks for the newest one); 2024-10-07, a version
  minimcp does not speak, checks the counter-offer (the session then runs at 2025-11-25);
- 2026-07-28 (mcp 2.x only): the SDK's `Client` in `mode="auto"`, which probes
  `server/discover` and must settle on 2026-07-28; sampling and elicitation then go through
  the SDK's multi-round-trip (`input_required`) driver.

Without --generic the server must be `minimcp serve --profile conformance` (ideally with a
small `--page-size`, so every listing has several pages): every tool, resource, prompt,
completion, logging, progress, sampling and elicitation path is exercised and its values
checked. With --generic only what any server must do is checked (handshake, ping, listings
followed through `nextCursor`, descriptions), for other profiles. With --roots DIR the client
declares the `roots` capability and answers `roots/list` with DIR; the server (the default
profile, started without --root) must serve DIR: a listing of it, a file read by its absolute
path with the short path in the answer, and the file's RFC 8089 URI listed and read.
With --edit DIR the server must be `minimcp serve --root DIR --toolsets workspace,edit`: the
client creates a file with write_file, reads its `sha256` with read_file (checked against
hashlib over the bytes on disk), edits it with edit_file and that `expected_sha256`, reads it
back, and checks that an edit with the now stale hash is refused with isError, naming both
hashes, and leaves the disk untouched; then a dry run with the reference server's argument
names (`oldText`, `newText`, `dryRun`) returns a diff and writes nothing.

A server given as `unix:PATH` (`minimcp serve --http unix:PATH`) is reached over Streamable HTTP
on that Unix socket: the SDK's transport is handed an httpx client whose transport connects to
the socket (`uds=PATH`), with the URL http://localhost/mcp (or the path after `:/`).

Works with mcp 1.x and 2.x (wire-format dicts are compared, never model attributes). Prints a
check x version table; exits 1 if any check failed.
"""

from __future__ import annotations

import argparse
import base64
import importlib.metadata
import json
import sys
import traceback
import warnings
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, Awaitable, Callable

import anyio
import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

try:  # mcp 2.x
    from mcp.shared.exceptions import MCPError as SdkError
except ImportError:  # mcp 1.x
    from mcp.shared.exceptions import McpError as SdkError

warnings.simplefilter("ignore")  # 2.x deprecates logging/subscribe for 2026-07-28; we test them on purpose

SDK_VERSION = importlib.metadata.version("mcp")
SDK_MAJOR = int(SDK_VERSION.split(".")[0])
HANDSHAKE = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
STATELESS = "2026-07-28"
# A version minimcp does not speak (an early draft some clients still list): the server must
# answer with its newest handshake version, and the session then runs at that version.
UNSUPPORTED = "2024-10-07"
ALL_VERSIONS = [UNSUPPORTED] + HANDSHAKE + ([STATELESS] if SDK_MAJOR >= 2 else [])
PER_VERSION_TIMEOUT = 60

FIXTURE_TOOLS = {
    "echo", "test_simple_text", "test_image_content", "test_audio_content",
    "test_embedded_resource", "test_multiple_content_types", "test_tool_with_logging",
    "test_error_handling", "test_tool_with_progress", "test_reconnection", "test_sampling",
    "test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums",
    "json_schema_2020_12_tool",
}
FIXTURE_PROMPTS = {
    "test_simple_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource",
    "test_prompt_with_image", "test_input_required_result_prompt",
}
FIXTURE_RESOURCES = {"test://static-text", "test://static-binary", "test://watched-resource"}
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SAMPLED_TEXT = "This is a test response from the client"


def wire(model: Any) -> Any:
    """A pydantic model as the JSON the server sent or will receive."""
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def error_code(error: BaseException) -> int | None:
    code = getattr(error, "code", None)
    if code is None and getattr(error, "error", None) is not None:
        code = error.error.code
    return code


def ver_ge(version: str, other: str) -> bool:
    return version >= other  # ISO dates order as strings


class Failed(Exception):
    pass


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise Failed(message)


class Peer:
    """What the client side saw: callbacks invoked, notifications received."""

    def __init__(self, roots: list[str] | None = None) -> None:
        self.roots = roots
        self.logs: list[dict[str, Any]] = []
        self.sampling: list[dict[str, Any]] = []
        self.elicitations: list[dict[str, Any]] = []

    async def on_log(self, params: Any) -> None:
        self.logs.append(wire(params))

    async def on_roots(self, context: Any) -> Any:
        return types.ListRootsResult.model_validate({"roots": [{"uri": file_uri(r)} for r in self.roots or []]})

    async def on_sampling(self, context: Any, params: Any) -> Any:
        self.sampling.append(wire(params))
        return types.CreateMessageResult.model_validate({
            "role": "assistant",
            "content": {"type": "text", "text": SAMPLED_TEXT},
            "model": "test-model",
            "stopReason": "endTurn",
        })

    async def on_elicitation(self, context: Any, params: Any) -> Any:
        request = wire(params)
        self.elicitations.append(request)
        return types.ElicitResult.model_validate({"action": "accept", "content": answer_form(request)})


def file_uri(path: str) -> str:
    """The RFC 8089 URI of an absolute path, as minimcp spells it."""
    from urllib.parse import quote
    return "file://" + quote(path, safe="/-._~")


def answer_form(request: dict[str, Any]) -> dict[str, Any]:
    """A valid answer to a form: defaults where given, else the first allowed value."""
    answer: dict[str, Any] = {}
    for name, prop in request.get("requestedSchema", {}).get("properties", {}).items():
        if "default" in prop:
            answer[name] = prop["default"]
        elif "enum" in prop:
            answer[name] = prop["enum"][0]
        elif "oneOf" in prop:
            answer[name] = prop["oneOf"][0]["const"]
        elif prop.get("type") == "array":
            items = prop.get("items", {})
            answer[name] = items["enum"][:2] if "enum" in items else [o["const"] for o in items.get("anyOf", [])[:2]]
        elif prop.get("format") == "email":
            answer[name] = "test@example.com"
        elif prop.get("type") in ("integer", "number"):
            answer[name] = 1
        elif prop.get("type") == "boolean":
            answer[name] = True
        else:
            answer[name] = "testuser"
    return answer


class Conn:
    """One session: the SDK's ClientSession, and for 2026-07-28 its high-level Client."""

    def __init__(self, offered: str, version: str, session: Any, client: Any = None) -> None:
        self.offered = offered  # the version asked for
        self.version = version  # the version the server chose
        self.session = session
        self.client = client
        self.init: dict[str, Any] = {}

    @property
    def stateless(self) -> bool:
        return self.client is not None

    async def call(self, name: str, arguments: dict[str, Any] | None = None, progress: Any = None) -> dict[str, Any]:
        target = self.client or self.session
        return wire(await target.call_tool(name, arguments, progress_callback=progress))

    async def read(self, uri: str) -> dict[str, Any]:
        return wire(await (self.client or self.session).read_resource(uri))

    async def prompt(self, name: str, arguments: dict[str, str] | None = None) -> dict[str, Any]:
        return wire(await (self.client or self.session).get_prompt(name, arguments))

    async def list_all(self, method: str, key: str) -> tuple[list[dict[str, Any]], int]:
        """Every item of a listing, following nextCursor; and the number of pages."""
        items: list[dict[str, Any]] = []
        cursor = None
        for pages in range(1, 200):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            result = wire(await getattr(self.session, method)(params=params))
            items.extend(result.get(key, []))
            cursor = result.get("nextCursor")
            if not cursor:
                return items, pages
        raise Failed(f"{method}: more than 200 pages")

    async def complete(self, ref: dict[str, Any], name: str, value: str) -> list[str]:
        reference_type = types.PromptReference if ref["type"] == "ref/prompt" else types.ResourceTemplateReference
        result = await self.session.complete(reference_type.model_validate(ref), {"name": name, "value": value})
        return wire(result)["completion"]["values"]


def is_url(command: list[str]) -> bool:
    """A server given as `http://…/mcp` or `unix:PATH` is reached over Streamable HTTP, not spawned."""
    return command[0].startswith(("http://", "https://", "unix:"))


def unix_target(target: str) -> tuple[str, str]:
    """`unix:/run/m.sock` -> ("/run/m.sock", "http://localhost/mcp"); `unix:/run/m.sock:/other`
    names another endpoint path. The host part of the URL only fills the Host header."""
    path, _, endpoint = target.removeprefix("unix:").partition(":")
    return path, "http://localhost" + (endpoint or "/mcp")


def http_transport(target: str):
    """The SDK's Streamable HTTP transport for `target`: a URL, or `unix:PATH`."""
    try:  # mcp 2.x, and 1.x from 1.2x on
        from mcp.client.streamable_http import streamable_http_client as connect
    except ImportError:  # older mcp 1.x
        from mcp.client.streamable_http import streamablehttp_client as connect
    if not target.startswith("unix:"):
        return connect(target)
    path, url = unix_target(target)
    # mcp 2.x builds on httpx2 (an httpx fork with the same API), 1.x on httpx: use the one
    # the SDK's transport imports. It takes a ready client (`http_client=`), left to its owner
    # to close; the SDK's own timeouts are kept.
    import mcp.client.streamable_http as sdk_transport
    from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT
    httpx_module = getattr(sdk_transport, "httpx2", None) or sdk_transport.httpx

    @asynccontextmanager
    async def over_socket():
        async with httpx_module.AsyncClient(
            transport=httpx_module.AsyncHTTPTransport(uds=path),
            timeout=httpx_module.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
        ) as client:
            async with connect(url, http_client=client) as streams:
                yield streams
    return over_socket()


async def open_handshake(stack: AsyncExitStack, command: list[str], version: str, peer: Peer) -> Conn:
    if is_url(command):
        streams = await stack.enter_async_context(http_transport(command[0]))
        read, write = streams[0], streams[1]  # 1.x also yields a session-id getter
    else:
        params = StdioServerParameters(command=command[0], args=command[1:])
        read, write = await stack.enter_async_context(stdio_client(params))
    session = await stack.enter_async_context(ClientSession(
        read, write,
        list_roots_callback=peer.on_roots if peer.roots else None,
        sampling_callback=peer.on_sampling,
        elicitation_callback=peer.on_elicitation,
        logging_callback=peer.on_log,
    ))
    # ClientSession.initialize() always requests the SDK's newest version; send the same
    # request by hand with the version under test.
    capabilities: dict[str, Any] = {"sampling": {}, "elicitation": {"form": {}}}
    if peer.roots:
        capabilities["roots"] = {"listChanged": True}
    request = types.InitializeRequest(params=types.InitializeRequestParams.model_validate({
        "protocolVersion": version,
        "capabilities": capabilities,
        "clientInfo": {"name": "minimcp-python-client-test", "version": SDK_VERSION},
    }))
    initialized = types.InitializedNotification()
    if SDK_MAJOR < 2:
        request = types.ClientRequest(request)
        initialized = types.ClientNotification(initialized)
    result = await session.send_request(request, types.InitializeResult)
    if SDK_MAJOR >= 2:
        session.adopt(result)  # what initialize() does after the request
    await session.send_notification(initialized)
    conn = Conn(version, wire(result)["protocolVersion"], session)
    conn.init = wire(result)
    return conn


async def open_stateless(stack: AsyncExitStack, command: list[str], peer: Peer) -> Conn:
    from mcp import Client

    if command[0].startswith("unix:"):
        server: Any = http_transport(command[0])  # a Transport: Client takes it as it is
    elif is_url(command):
        server = command[0]
    else:
        server = StdioServerParameters(command=command[0], args=command[1:])
    client = await stack.enter_async_context(Client(
        server,
        mode="auto",  # probe server/discover; fall back to initialize only if the server lacks it
        sampling_callback=peer.on_sampling,
        elicitation_callback=peer.on_elicitation,
        logging_callback=peer.on_log,
        log_level="debug",
        cache=None,
    ))
    conn = Conn(STATELESS, client.protocol_version, client.session, client)
    conn.init = {
        "protocolVersion": client.protocol_version,
        "capabilities": wire(client.server_capabilities),
        "serverInfo": wire(client.server_info) if client.server_info else {},
    }
    return conn


# ---- checks ---------------------------------------------------------------------------------
# Each takes (conn, peer) and raises on failure; returning a string adds a note.

Check = Callable[[Conn, Peer], Awaitable[Any]]


async def check_handshake(conn: Conn, peer: Peer) -> str:
    wanted = conn.offered if conn.offered in HANDSHAKE + [STATELESS] else HANDSHAKE[-1]
    expect(conn.version == wanted,
           f"asked for {conn.offered}, the server answered {conn.version}; expected {wanted}")
    if not conn.stateless:
        expect(conn.init.get("serverInfo", {}).get("name") == "minimcp", f"serverInfo: {conn.init.get('serverInfo')}")
    return f"negotiated {conn.init['protocolVersion']}"


async def check_capabilities(conn: Conn, peer: Peer) -> None:
    caps = conn.init.get("capabilities", {})
    for key in ("tools", "prompts", "resources"):
        expect(key in caps, f"capability {key} missing: {caps}")
    if not conn.stateless:
        expect(caps["resources"].get("subscribe") is True, f"resources.subscribe: {caps['resources']}")
        expect("logging" in caps, f"logging missing: {caps}")
    expect(("completions" in caps) == ver_ge(conn.version, "2025-03-26"),
           f"completions is declared from 2025-03-26 only: {caps}")


async def check_ping(conn: Conn, peer: Peer) -> None:
    expect(wire(await conn.session.send_ping()) in ({}, None), "ping result not empty")


async def check_tools_list(conn: Conn, peer: Peer) -> str:
    tools, pages = await conn.list_all("list_tools", "tools")
    names = [t["name"] for t in tools]
    expect(len(names) == len(set(names)), f"a tool is listed twice across pages: {names}")
    expect(FIXTURE_TOOLS <= set(names), f"missing tools: {FIXTURE_TOOLS - set(names)}")
    for tool in tools:
        expect(bool(tool.get("description")), f"{tool['name']} has no description")
        expect(tool["inputSchema"].get("type") == "object", f"{tool['name']}: inputSchema root not an object")
    schema = next(t for t in tools if t["name"] == "json_schema_2020_12_tool")["inputSchema"]
    expect(schema.get("$schema") == "https://json-schema.org/draft/2020-12/schema" and "$defs" in schema,
           f"2020-12 schema not kept verbatim: {schema}")
    return f"{len(tools)} tools in {pages} pages"


async def check_tools_call(conn: Conn, peer: Peer) -> None:
    echoed = await conn.call("echo", {"text": "hello from python"})
    expect(echoed["content"] == [{"type": "text", "text": "hello from python"}], f"echo: {echoed}")
    text = await conn.call("test_simple_text")
    expect(text["content"][0]["text"] == "This is a simple text response for testing.", f"simple text: {text}")
    image = (await conn.call("test_image_content", {}))["content"][0]
    expect(image["type"] == "image" and base64.b64decode(image["data"]).startswith(PNG_SIGNATURE), f"image: {image}")
    audio = (await conn.call("test_audio_content", {}))["content"][0]
    if ver_ge(conn.version, "2025-03-26"):
        expect(audio["type"] == "audio" and audio["mimeType"] == "audio/wav"
               and base64.b64decode(audio["data"])[:4] == b"RIFF", f"audio: {str(audio)[:200]}")
    else:
        expect(audio["type"] == "text", f"{conn.version} has no audio content; got {audio['type']}")
    embedded = (await conn.call("test_embedded_resource", {}))["content"][0]
    expect(embedded["type"] == "resource" and embedded["resource"]["uri"] == "test://embedded-resource", f"{embedded}")
    mixed = [c["type"] for c in (await conn.call("test_multiple_content_types", {}))["content"]]
    expect(mixed == ["text", "image", "resource"], f"mixed content: {mixed}")
    error = await conn.call("test_error_handling", {})
    expect(error.get("isError") is True and error["content"][0]["text"], f"tool error: {error}")


async def check_tool_input_validation(conn: Conn, peer: Peer) -> str:
    ok = await conn.call("json_schema_2020_12_tool", {"name": "n", "email": "n@example.com", "address": {"street": "s", "city": "c"}})
    expect(not ok.get("isError"), f"valid 2020-12 arguments refused: {ok}")
    try:
        bad = await conn.call("json_schema_2020_12_tool", {"name": "n", "unexpected": 1})
    except SdkError as e:
        expect(not ver_ge(conn.version, "2025-11-25"), f"from 2025-11-25 a bad argument is a tool error, got {e}")
        expect(error_code(e) == -32602, f"expected -32602, got {error_code(e)}")
        return "-32602 (protocol error)"
    expect(ver_ge(conn.version, "2025-11-25"), f"before 2025-11-25 a bad argument is error -32602, got {bad}")
    expect(bad.get("isError") is True, f"bad arguments accepted: {bad}")
    return "isError result"


async def check_logging(conn: Conn, peer: Peer) -> str:
    if not conn.stateless:
        expect(wire(await conn.session.set_logging_level("debug")) in ({}, None), "setLevel result not empty")
    before = len(peer.logs)
    await conn.call("test_tool_with_logging", {})
    with anyio.move_on_after(2):
        while len(peer.logs) < before + 3:
            await anyio.sleep(0.01)
    got = [entry.get("data") for entry in peer.logs[before:]]
    expect(got == ["Tool execution started", "Tool processing data", "Tool execution completed"], f"logs: {got}")
    if conn.stateless:
        return "3 messages (level via _meta)"
    await conn.session.set_logging_level("error")
    quiet = len(peer.logs)
    await conn.call("test_tool_with_logging", {})
    await anyio.sleep(0.2)
    expect(len(peer.logs) == quiet, f"info messages sent at level error: {peer.logs[quiet:]}")
    return "3 messages; none at level error"


async def check_progress(conn: Conn, peer: Peer) -> None:
    seen: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total))

    await conn.call("test_tool_with_progress", {}, progress=on_progress)
    with anyio.move_on_after(2):
        while len(seen) < 3:
            await anyio.sleep(0.01)
    expect(seen == [(0, 100), (50, 100), (100, 100)], f"progress: {seen}")


async def check_resources(conn: Conn, peer: Peer) -> str:
    resources, pages = await conn.list_all("list_resources", "resources")
    uris = {r["uri"] for r in resources}
    expect(uris == FIXTURE_RESOURCES, f"resources: {uris}")
    expect(all(r.get("name") for r in resources), "a resource has no name")
    templates, _ = await conn.list_all("list_resource_templates", "resourceTemplates")
    expect([t["uriTemplate"] for t in templates] == ["test://template/{id}/data"], f"templates: {templates}")
    text = (await conn.read("test://static-text"))["contents"][0]
    expect(text == {"uri": "test://static-text", "mimeType": "text/plain",
                    "text": "This is the content of the static text resource."}, f"static text: {text}")
    blob = (await conn.read("test://static-binary"))["contents"][0]
    expect(base64.b64decode(blob["blob"]).startswith(PNG_SIGNATURE), f"static binary: {str(blob)[:200]}")
    data = (await conn.read("test://template/42/data"))["contents"][0]
    expect(json.loads(data["text"]) == {"id": "42", "templateTest": True, "data": "Data for ID: 42"}, f"{data}")
    try:
        await conn.read("test://no-such-resource")
        raise Failed("reading an unknown resource succeeded")
    except SdkError as e:
        wanted = -32602 if conn.stateless else -32002
        expect(error_code(e) == wanted, f"unknown resource: expected {wanted}, got {error_code(e)}")
    return f"{len(resources)} resources in {pages} pages"


async def check_subscribe(conn: Conn, peer: Peer) -> str:
    if conn.stateless:
        async with conn.client.listen(resource_subscriptions=["test://watched-resource"]) as sub:
            honored = wire(sub.honored) if hasattr(sub.honored, "model_dump") else sub.honored
            expect("test://watched-resource" in json.dumps(honored), f"listen honoured: {honored}")
        return "subscriptions/listen acknowledged"
    expect(wire(await conn.session.subscribe_resource("test://watched-resource")) in ({}, None), "subscribe")
    expect(wire(await conn.session.unsubscribe_resource("test://watched-resource")) in ({}, None), "unsubscribe")
    return "subscribe + unsubscribe"


async def check_prompts(conn: Conn, peer: Peer) -> str:
    prompts, pages = await conn.list_all("list_prompts", "prompts")
    names = {p["name"] for p in prompts}
    expect(names == FIXTURE_PROMPTS, f"prompts: {names}")
    expect(all(p.get("description") for p in prompts), "a prompt has no description")
    simple = await conn.prompt("test_simple_prompt")
    expect(simple["messages"] == [{"role": "user", "content": {"type": "text",
                                   "text": "This is a simple prompt for testing."}}], f"{simple}")
    args = await conn.prompt("test_prompt_with_arguments", {"arg1": "first", "arg2": "second"})
    expect(args["messages"][0]["content"]["text"] == "Prompt with arguments: arg1='first', arg2='second'", f"{args}")
    embedded = await conn.prompt("test_prompt_with_embedded_resource", {"resourceUri": "test://example-resource"})
    expect(embedded["messages"][0]["content"]["resource"]["uri"] == "test://example-resource", f"{embedded}")
    image = await conn.prompt("test_prompt_with_image")
    expect(base64.b64decode(image["messages"][0]["content"]["data"]).startswith(PNG_SIGNATURE), "prompt image")
    try:
        await conn.prompt("test_prompt_with_arguments", {"arg1": "only one"})
        raise Failed("a missing required prompt argument was accepted")
    except SdkError as e:
        expect(error_code(e) == -32602, f"missing argument: expected -32602, got {error_code(e)}")
    return f"{len(prompts)} prompts in {pages} pages"


async def check_completion(conn: Conn, peer: Peer) -> None:
    values = await conn.complete({"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "arg1", "test")
    expect(values == ["testValue1", "testValue2", "testValue3"], f"prompt completion: {values}")
    values = await conn.complete({"type": "ref/resource", "uri": "test://template/{id}/data"}, "id", "4")
    expect(values == ["456"], f"template completion: {values}")


async def check_sampling(conn: Conn, peer: Peer) -> None:
    result = await conn.call("test_sampling", {"prompt": "Test prompt for sampling"})
    expect(len(peer.sampling) == 1, f"sampling callback ran {len(peer.sampling)} times")
    request = peer.sampling[0]
    expect(request["maxTokens"] == 100 and request["messages"][0]["content"]["text"] == "Test prompt for sampling",
           f"sampling request: {request}")
    expect(result["content"][0]["text"] == f"LLM response: {SAMPLED_TEXT}", f"sampling result: {result}")


async def check_elicitation(conn: Conn, peer: Peer) -> str:
    result = await conn.call("test_elicitation", {"message": "Please provide your information"})
    if not ver_ge(conn.version, "2025-06-18"):
        expect(result.get("isError") is True and not peer.elicitations,
               f"{conn.version} has no elicitation; expected a tool error, got {result}")
        return "n/a in this version: tool error, no request sent"
    expect(len(peer.elicitations) == 1, f"elicitation callback ran {len(peer.elicitations)} times")
    expect(peer.elicitations[0]["message"] == "Please provide your information", f"{peer.elicitations[0]}")
    text = result["content"][0]["text"]
    expect("action=accept" in text and "test@example.com" in text, f"elicitation result: {text}")
    if not ver_ge(conn.version, "2025-11-25"):
        return "form"
    await conn.call("test_elicitation_sep1034_defaults", {})
    defaults = peer.elicitations[-1]["requestedSchema"]["properties"]
    expect({k: v.get("default") for k, v in defaults.items()} ==
           {"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": True}, f"{defaults}")
    enums = await conn.call("test_elicitation_sep1330_enums", {})
    props = peer.elicitations[-1]["requestedSchema"]["properties"]
    expect(set(props) == {"untitledSingle", "titledSingle", "legacyEnum", "untitledMulti", "titledMulti"}, f"{props}")
    expect("value1" in enums["content"][0]["text"], f"enum answer not returned: {enums}")
    return "form + SEP-1034 defaults + SEP-1330 enums"


FIXTURE_CHECKS: list[tuple[str, Check]] = [
    ("handshake", check_handshake),
    ("capabilities", check_capabilities),
    ("ping", check_ping),
    ("tools/list (paged)", check_tools_list),
    ("tools/call content", check_tools_call),
    ("tool input errors", check_tool_input_validation),
    ("logging", check_logging),
    ("progress", check_progress),
    ("resources list/read", check_resources),
    ("resources subscribe", check_subscribe),
    ("prompts list/get", check_prompts),
    ("completion", check_completion),
    ("sampling round trip", check_sampling),
    ("elicitation round trip", check_elicitation),
]


async def check_generic_listings(conn: Conn, peer: Peer) -> str:
    caps = conn.init.get("capabilities", {})
    notes = []
    for cap, method, key in (("tools", "list_tools", "tools"), ("prompts", "list_prompts", "prompts"),
                             ("resources", "list_resources", "resources")):
        if cap not in caps:
            continue
        items, pages = await conn.list_all(method, key)
        names = [i.get("name") or i.get("uri") for i in items]
        expect(len(names) == len(set(names)), f"{key}: an item is listed twice")
        if key != "resources":
            expect(all(i.get("description") for i in items), f"{key}: an item has no description")
        notes.append(f"{len(items)} {key}/{pages}p")
    return ", ".join(notes) or "nothing listed"


async def check_generic_logging(conn: Conn, peer: Peer) -> None:
    if not conn.stateless:
        expect(wire(await conn.session.set_logging_level("info")) in ({}, None), "setLevel result not empty")


GENERIC_CHECKS: list[tuple[str, Check]] = [
    ("handshake", check_handshake),
    ("ping", check_ping),
    ("listings (paged)", check_generic_listings),
    ("logging/setLevel", check_generic_logging),
]

async def check_roots_listing(conn: Conn, peer: Peer) -> str:
    listed = await conn.call("list_directory", {})
    expect(not listed.get("isError"), f"list_directory: {listed}")
    # Before 2025-06-18 there is no structuredContent: the text names the entries too.
    text = listed["content"][0]["text"]
    expect("\nrun.sh  (" in text, f"the client's root is not what is listed: {text[:300]}")
    return f"{text.count(chr(10))} entries of the client's root"


async def check_absolute_path(conn: Conn, peer: Peer) -> None:
    root = (peer.roots or [""])[0]
    read = await conn.call("read_file", {"path": f"{root}/run.sh", "limit": 1})
    expect(not read.get("isError"), f"read_file by absolute path: {read}")
    text = read["content"][0]["text"]
    expect(text.startswith("`run.sh` lines 1-1 of "), f"not the short path: {text[:200]}")


async def check_file_uris(conn: Conn, peer: Peer) -> None:
    root = (peer.roots or [""])[0]
    uri = file_uri(f"{root}/run.sh")
    items, _ = await conn.list_all("list_resources", "resources")
    expect(uri in [i["uri"] for i in items], f"{uri} is not listed: {[i['uri'] for i in items][:5]}")
    contents = (await conn.read(uri))["contents"]
    expect(contents[0]["text"].startswith("#!/usr/bin/env bash"), "run.sh read through its URI")


ROOTS_CHECKS: list[tuple[str, Check]] = [
    ("handshake", check_handshake),
    ("roots from the client", check_roots_listing),
    ("absolute path", check_absolute_path),
    ("file URIs", check_file_uris),
]

EDIT_DIR = ""  # --edit DIR: the server's root, read directly to check what the tools wrote


def sha_in(result: dict[str, Any]) -> str | None:
    """The `sha256` a read_file result reports: structured, or in the text before 2025-06-18."""
    import re
    structured = result.get("structuredContent") or {}
    if isinstance(structured.get("sha256"), str):
        return structured["sha256"]
    found = re.search(r"\b[0-9a-f]{64}\b", result["content"][0]["text"])
    return found.group(0) if found else None


async def check_edit_round_trip(conn: Conn, peer: Peer) -> str:
    import hashlib
    import os
    name = f"edit-{conn.offered}.txt"
    disk = os.path.join(EDIT_DIR, name)
    original = "alpha\nbeta\ngamma\n"
    written = await conn.call("write_file", {"path": name, "content": original})
    expect(not written.get("isError"), f"write_file: {written}")
    with open(disk, "rb") as f:
        expect(f.read() == original.encode(), "write_file: the bytes on disk differ")
    read = await conn.call("read_file", {"path": name})
    expect(not read.get("isError"), f"read_file: {read}")
    first = sha_in(read)
    note = ""
    if first is None and not ver_ge(conn.version, "2025-06-18"):
        # No structuredContent before 2025-06-18, and the text does not show the hash: the
        # client computes it (a model there relies on the session's memory of its reads).
        first, note = hashlib.sha256(original.encode()).hexdigest(), " (no sha256 in the text: hashed by the client)"
    expect(first == hashlib.sha256(original.encode()).hexdigest(),
           f"read_file sha256 {first} is not the SHA-256 of the file")
    edited = await conn.call("edit_file", {"path": name, "edits": [{"old_text": "beta", "new_text": "BETA"}],
                                            "expected_sha256": first})
    expect(not edited.get("isError"), f"edit_file: {edited}")
    diff = edited["content"][0]["text"]
    expect("-beta" in diff and "+BETA" in diff, f"edit_file's diff: {diff[:300]}")
    changed = "alpha\nBETA\ngamma\n"
    with open(disk, "rb") as f:
        expect(f.read() == changed.encode(), "edit_file: the bytes on disk differ")
    again = await conn.call("read_file", {"path": name})
    second = sha_in(again)
    expect(second == hashlib.sha256(changed.encode()).hexdigest() or (second is None and note),
           f"sha256 after the edit: {second}")
    expect("BETA" in again["content"][0]["text"], f"read back: {again['content'][0]['text'][:200]}")
    return f"{first[:12]}… -> {(second or '?')[:12]}…{note}"


async def check_edit_stale_hash(conn: Conn, peer: Peer) -> str:
    import hashlib
    import os
    name = f"edit-{conn.offered}.txt"
    disk = os.path.join(EDIT_DIR, name)
    with open(disk, "rb") as f:
        before = f.read()
    stale = hashlib.sha256(b"alpha\nbeta\ngamma\n").hexdigest()
    current = hashlib.sha256(before).hexdigest()
    expect(stale != current, "the round trip did not change the file")
    refused = await conn.call("edit_file", {"path": name, "edits": [{"old_text": "BETA", "new_text": "stale"}],
                                             "expected_sha256": stale})
    expect(refused.get("isError") is True, f"an edit with a stale expected_sha256 was not refused: {refused}")
    message = refused["content"][0]["text"]
    expect(stale[:8] in message and current[:8] in message, f"the refusal does not name both hashes: {message}")
    with open(disk, "rb") as f:
        expect(f.read() == before, "the refused edit changed the file")
    dry = await conn.call("edit_file", {"path": name, "edits": [{"oldText": "gamma", "newText": "GAMMA"}],
                                        "dryRun": True, "expected_sha256": current})
    expect(not dry.get("isError") and "+GAMMA" in dry["content"][0]["text"], f"dry run: {dry}")
    with open(disk, "rb") as f:
        expect(f.read() == before, "the dry run wrote the file")
    return "isError naming both hashes; dry run wrote nothing"


EDIT_CHECKS: list[tuple[str, Check]] = [
    ("handshake", check_handshake),
    ("edit round trip", check_edit_round_trip),
    ("stale hash refused", check_edit_stale_hash),
]

NOT_STATELESS = {"ping"}  # removed in 2026-07-28


async def run_version(command: list[str], version: str, checks: list[tuple[str, Check]],
                      roots: list[str] | None = None) -> dict[str, tuple[str, str]]:
    results: dict[str, tuple[str, str]] = {}
    peer = Peer(roots)
    try:
        with anyio.fail_after(PER_VERSION_TIMEOUT):
            async with AsyncExitStack() as stack:
                if version == STATELESS:
                    conn = await open_stateless(stack, command, peer)
                else:
                    conn = await open_handshake(stack, command, version, peer)
                for name, check in checks:
                    if conn.stateless and name in NOT_STATELESS:
                        results[name] = ("n/a", "removed in 2026-07-28")
                        continue
                    try:
                        note = await check(conn, peer)
                        results[name] = ("PASS", note or "")
                    except Exception as e:  # noqa: BLE001 - every failure is reported, none ends the run
                        detail = str(e) if isinstance(e, Failed) else f"{type(e).__name__}: {e}"
                        results[name] = ("FAIL", detail)
    except Exception as e:  # noqa: BLE001
        trace = "".join(traceback.format_exception(e))[-600:]
        results.setdefault("handshake", ("FAIL", f"session failed: {type(e).__name__}: {e} {trace}"))
    for name, _ in checks:
        results.setdefault(name, ("FAIL", "not reached: the session ended"))
    return results


def print_table(title: str, versions: list[str], checks: list[tuple[str, Check]],
                results: dict[str, dict[str, tuple[str, str]]]) -> int:
    width = max(len(name) for name, _ in checks) + 2
    print(title)
    print("".ljust(width) + "".join(v.ljust(12) for v in versions))
    failures = 0
    for name, _ in checks:
        row = name.ljust(width)
        for v in versions:
            status = results[v][name][0]
            failures += status == "FAIL"
            row += status.ljust(12)
        print(row)
    for v in versions:
        for name, _ in checks:
            status, note = results[v][name]
            if status == "FAIL" or note:
                print(f"  [{v}] {name}: {status}{' - ' + note if note else ''}")
    return failures


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--generic", action="store_true", help="only checks any server must pass")
    parser.add_argument("--roots", help="declare roots and answer roots/list with this directory")
    parser.add_argument("--edit", help="the server's root (edit toolset): run the edit scenario")
    parser.add_argument("--versions", default=",".join(ALL_VERSIONS))
    parser.add_argument("command", nargs="+", help="the server command (after --)")
    args = parser.parse_args()
    versions = [v for v in args.versions.split(",") if v]
    unknown = [v for v in versions if v not in ALL_VERSIONS]
    if unknown:
        print(f"python_client: mcp {SDK_VERSION} cannot speak {unknown}; it can: {ALL_VERSIONS}", file=sys.stderr)
        return 2
    global EDIT_DIR
    EDIT_DIR = args.edit or ""
    checks = (EDIT_CHECKS if args.edit else ROOTS_CHECKS if args.roots
              else GENERIC_CHECKS if args.generic else FIXTURE_CHECKS)
    roots = [args.roots] if args.roots else None
    results = {v: await run_version(args.command, v, checks, roots) for v in versions}
    title = f"Python SDK mcp {SDK_VERSION} -> {' '.join(args.command)}"
    failures = print_table(title, versions, checks, results)
    passed = sum(r[0] == "PASS" for v in versions for r in results[v].values())
    print(f"python mcp {SDK_VERSION}: {passed} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
