#!/usr/bin/env python3
"""Drive three minimcp instances behind nginx with the official Python SDK (`mcp` 2.x).

usage: driver.py --url http://127.0.0.1:PORT/mcp --instance NAME:PID:LOG [--instance ...]

Run by tests/many_instances.sh. Each instance writes access lines (`--access-log
--instance-id NAME`) to LOG; this driver reads them to prove where requests went. Phases:

1. 2026-07-28 (the SDK's Client, mode="auto"): discover, every listing followed through
   nextCursor (--page-size 2: the pages are served by several instances), tool calls, an
   elicitation round trip (input_required) whose retry is answered by another instance,
   and a subscriptions/listen stream.
2. A legacy session (mode="legacy"): handshake, listings, calls, an elicitation round trip
   on the session's event stream; every request of the session lands on one instance.
3. The instance holding a legacy session is killed: the open 2026-07-28 client's next
   requests are still answered, the session's id gets 404, and a new session works.
4. A listen stream is open when the remaining instances are killed: it ends.

Prints one line per check; exits 1 on the first failure.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import signal
import sys
import time
import urllib.parse
import warnings
from collections import Counter
from typing import Any

import anyio
import mcp.types as types
from mcp import Client

warnings.simplefilter("ignore")

# TIMESTAMP minimcp: access: INSTANCE METHOD PATH MCP-METHOD STATUS MICROSECONDSus req=N
ACCESS = re.compile(r"\S+ minimcp: access: (\S+) (\S+) (\S+) (\S+) (\d+) (\d+)us req=\S+$")


class Failed(Exception):
    pass


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise Failed(message)


def ok(message: str) -> None:
    print(f"  ok   {message}", flush=True)


def wire(model: Any) -> Any:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


class Instances:
    """The instances' access logs: where each request went."""

    def __init__(self, specs: list[str]) -> None:
        self.pids: dict[str, int] = {}
        self.logs: dict[str, str] = {}
        for spec in specs:
            name, pid, log = spec.split(":", 2)
            self.pids[name] = int(pid)
            self.logs[name] = log

    def mark(self) -> dict[str, int]:
        return {name: os.path.getsize(path) for name, path in self.logs.items()}

    def since(self, mark: dict[str, int]) -> list[tuple[str, str, str, str, int]]:
        """(instance, http method, path, mcp method, status) of each access line since `mark`.

        A line is written just after its response is sent: read until two reads 0.2 s apart
        agree (at most 5 s), so a busy machine cannot make a line look missing."""
        seen = self._read(mark)
        for _ in range(25):
            time.sleep(0.2)
            again = self._read(mark)
            if again == seen:
                break
            seen = again
        return seen

    def _read(self, mark: dict[str, int]) -> list[tuple[str, str, str, str, int]]:
        seen = []
        for name, path in self.logs.items():
            with open(path, "rb") as f:
                f.seek(mark.get(name, 0))
                for line in f.read().decode("utf-8", "replace").splitlines():
                    m = ACCESS.match(line)
                    if m and m.group(3) == "/mcp":
                        seen.append((m.group(1), m.group(2), m.group(3), m.group(4), int(m.group(5))))
        return seen


async def on_elicitation(context: Any, params: Any) -> Any:
    return types.ElicitResult.model_validate(
        {"action": "accept", "content": {"username": "ada", "email": "ada@example.org"}})


def text_of(result: Any) -> str:
    return " ".join(c.get("text", "") for c in wire(result).get("content", []))


async def list_all(client: Client, method: str, key: str) -> tuple[list[Any], int]:
    items: list[Any] = []
    cursor = None
    for pages in range(1, 100):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        result = wire(await getattr(client.session, method)(params=params))
        items.extend(result.get(key, []))
        cursor = result.get("nextCursor")
        if not cursor:
            return items, pages
    raise Failed(f"{method}: more than 100 pages")


async def listings(client: Client, instances: Instances, era: str) -> Counter[str]:
    mark = instances.mark()
    tools, tool_pages = await list_all(client, "list_tools", "tools")
    prompts, prompt_pages = await list_all(client, "list_prompts", "prompts")
    resources, _ = await list_all(client, "list_resources", "resources")
    names = [t["name"] for t in tools]
    expect(len(names) == len(set(names)), f"{era}: a tool listed twice across pages: {names}")
    expect(tool_pages >= 2 and "test_elicitation" in names, f"{era}: {tool_pages} pages: {names}")
    expect(len(prompts) >= 2 and len(resources) >= 2, f"{era}: prompts {prompts}, resources {resources}")
    served = Counter(i for i, _, _, m, _ in instances.since(mark) if m.endswith("/list"))
    ok(f"{era}: {len(tools)} tools in {tool_pages} pages, {len(prompts)} prompts in {prompt_pages} pages, "
       f"{len(resources)} resources; list pages served by {dict(sorted(served.items()))}")
    return served


async def stateless(client: Client, instances: Instances) -> None:
    expect(client.protocol_version == "2026-07-28", f"negotiated {client.protocol_version}")
    ok("2026-07-28: server/discover settled on 2026-07-28")
    served = await listings(client, instances, "2026-07-28")
    expect(len(served) >= 2, f"2026-07-28: every page from one instance: {served}")

    mark = instances.mark()
    for n in range(9):
        result = await client.call_tool("echo", {"text": f"hello {n}"})
        expect(f"hello {n}" in text_of(result), f"echo {n}: {wire(result)}")
    calls = Counter(i for i, _, _, m, _ in instances.since(mark) if m == "tools/call")
    expect(sum(calls.values()) == 9 and len(calls) >= 2, f"echo calls served by {calls}")
    ok(f"2026-07-28: 9 tools/call answered, by {dict(sorted(calls.items()))}")

    for attempt in range(1, 16):
        mark = instances.mark()
        result = await client.call_tool("test_elicitation", {"message": "Who are you?"})
        expect("ada@example.org" in text_of(result), f"elicitation result: {wire(result)}")
        rounds = [(i, s) for i, _, _, m, s in instances.since(mark) if m == "tools/call"]
        expect(len(rounds) == 2, f"expected the call and its retry in the access logs, saw {rounds}")
        # nginx spreads stateless requests at random: retry until the two rounds differ.
        if len({i for i, _ in rounds}) == 2:
            break
    by_instance = [i for i, _ in rounds]
    expect(len(set(by_instance)) == 2,
           f"in 15 round trips the retry always reached the first round's instance: {rounds}")
    ok(f"2026-07-28: elicitation round trip (input_required): the two rounds were answered by instances "
       f"{by_instance[0]} and {by_instance[1]} (attempt {attempt}), sharing --state-key-file")

    async with client.listen(tools_list_changed=True, resource_subscriptions=["test://watched-resource"]) as sub:
        honored = json.dumps(wire(sub.honored) if hasattr(sub.honored, "model_dump") else sub.honored)
        expect("test://watched-resource" in honored, f"listen honoured {honored}")
        # While the stream is open, other requests are answered as usual.
        result = await client.call_tool("echo", {"text": "during listen"})
        expect("during listen" in text_of(result), "echo during listen")
    ok("2026-07-28: subscriptions/listen acknowledged through nginx; calls answered while it was open")


def raw(url: str, method: str, body: dict[str, Any] | None, session: str | None = None) -> tuple[int, dict[str, str], bytes]:
    """One plain HTTP request through nginx (the SDK hides the session id)."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "MCP-Protocol-Version": "2025-11-25"}
    if session:
        headers["Mcp-Session-Id"] = session
    conn.request(method, parts.path, json.dumps(body) if body is not None else None, headers)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, data


def raw_session(url: str) -> str:
    status, headers, body = raw(url, "POST", {
        "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "nginx-driver", "version": "1"}}})
    expect(status == 200, f"initialize: {status} {body[:200]!r}")
    session = headers.get("mcp-session-id", "")
    expect(re.fullmatch(r"[0-9a-f]{32}\.[0-9a-f]{32}", session) is not None,
           f"session id {session!r} does not start with nginx's routing key")
    status, _, _ = raw(url, "POST", {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    expect(status == 202, f"initialized: {status}")
    return session


async def legacy(url: str, instances: Instances) -> tuple[str, str]:
    mark = instances.mark()
    async with Client(url, mode="legacy", elicitation_callback=on_elicitation, cache=None) as client:
        expect(client.protocol_version < "2026", f"legacy negotiated {client.protocol_version}")
        await listings(client, instances, f"legacy {client.protocol_version}")
        for n in range(5):
            result = await client.call_tool("echo", {"text": f"legacy {n}"})
            expect(f"legacy {n}" in text_of(result), f"legacy echo {n}")
        result = await client.call_tool("test_elicitation", {"message": "Who are you?"})
        expect("ada@example.org" in text_of(result), f"legacy elicitation: {wire(result)}")
    # The earlier phase's listen stream is logged whenever its connection finally closes
    # (through nginx and the SDK's pool, 5-20 s later): it is not this session's.
    lines = [l for l in instances.since(mark) if l[3] != "subscriptions/listen"]
    where = Counter(i for i, *_ in lines)
    expect(len(where) == 1 and sum(where.values()) >= 10, f"the legacy session's requests went to {where}")
    ok(f"legacy session (SDK): handshake, listings, 5 calls, an elicitation on the session's stream; "
       f"all {sum(where.values())} requests answered by instance {next(iter(where))}")

    # The same with a session id we can see: nginx's key, then the instance's random part.
    mark = instances.mark()
    session = raw_session(url)
    for n in range(8):
        status, _, body = raw(url, "POST", {"jsonrpc": "2.0", "id": n + 1, "method": "tools/list"}, session)
        expect(status == 200, f"tools/list in the session: {status} {body[:200]!r}")
    where = Counter(i for i, *_ in instances.since(mark))
    expect(len(where) == 1, f"the raw session's requests went to {where}")
    holder = next(iter(where))
    ok(f"legacy session {session[:8]}…: id = <nginx key>.<random>; its 10 requests all on instance {holder}")
    return session, holder


async def kill_one(url: str, client: Client, instances: Instances, session: str, holder: str) -> None:
    os.kill(instances.pids[holder], signal.SIGKILL)
    time.sleep(0.3)
    ok(f"killed instance {holder} (SIGKILL), which held the legacy session")
    mark = instances.mark()
    for n in range(12):
        result = await client.call_tool("echo", {"text": f"after {n}"})
        expect(f"after {n}" in text_of(result), f"echo after the kill {n}: {wire(result)}")
    tools, pages = await list_all(client, "list_tools", "tools")
    expect("echo" in [t["name"] for t in tools], "tools/list after the kill")
    where = Counter(i for i, *_ in instances.since(mark))
    expect(holder not in where, f"the dead instance answered? {where}")
    ok(f"2026-07-28: the open client's next 12 calls and {pages} list pages all answered, "
       f"by {dict(sorted(where.items()))}")
    status, _, body = raw(url, "POST", {"jsonrpc": "2.0", "id": 99, "method": "tools/list"}, session)
    expect(status == 404, f"the dead instance's session: {status} {body[:200]!r}")
    ok("legacy: the lost session's next request got 404 (the client initializes again)")
    async with Client(url, mode="legacy", cache=None) as again:
        result = await again.call_tool("echo", {"text": "new session"})
        expect("new session" in text_of(result), "echo in the new session")
    ok("legacy: a new session on the surviving instances works")


async def listen_ends(client: Client, instances: Instances, killed: str) -> None:
    """Last: a listen stream open while the remaining instances die ends, it does not hang."""
    async with client.listen(tools_list_changed=True) as sub:
        for name, pid in instances.pids.items():
            if name != killed:
                os.kill(pid, signal.SIGKILL)
        how = "ended"
        try:
            with anyio.fail_after(10):
                async for _ in sub:
                    pass
        except TimeoutError:
            raise Failed("the listen stream was still open 10 s after its instance died")
        except Exception as e:  # SubscriptionLost: the abrupt end the SDK reports
            how = f"ended with {type(e).__name__}"
    ok(f"2026-07-28: a listen stream open when its instance died {how} (every instance now killed)")


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--instance", action="append", required=True)
    args = parser.parse_args()
    instances = Instances(args.instance)
    try:
        async with Client(args.url, mode="auto", elicitation_callback=on_elicitation, cache=None) as client:
            await stateless(client, instances)
            session, holder = await legacy(args.url, instances)
            await kill_one(args.url, client, instances, session, holder)
            await listen_ends(client, instances, holder)
    except Failed as e:
        print(f"  FAIL {e}", flush=True)
        return 1
    print("driver: every check passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
