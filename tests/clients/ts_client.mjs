#!/usr/bin/env node
// Drive minimcp with the official TypeScript MCP SDK (@modelcontextprotocol/sdk), once per
// protocol version.
//
//   node ts_client.mjs [--generic | --roots DIR | --edit DIR] [--versions V,V,...] -- SERVER_COMMAND [ARGS...]
//
// Run from a directory whose node_modules holds the SDK (tests/clients/run.sh copies this file
// into its scratch install). For each version a fresh server process is spawned over stdio.
// The SDK's Client.connect() always asks for its newest protocol version; to offer an older one
// the transport's send() is wrapped so the outgoing `initialize` request carries the version
// under test (the SDK accepts any answer in its SUPPORTED_PROTOCOL_VERSIONS). Every message the
// server sends is also recorded, so ordering (notifications before the response) is checked on
// the wire, not through the SDK's callbacks.
//
// Without --generic the server must be `minimcp serve --profile conformance` (ideally with a
// small --page-size); every tool, resource, prompt, completion, logging, progress, sampling and
// elicitation path is checked. With --generic only what any server must do is checked. With
// --roots DIR the client declares `roots` and answers `roots/list` with DIR, and the server
// (default profile, no --root) must serve DIR: listed, read by absolute path, by file URI.
// With --edit DIR the server must be `minimcp serve --root DIR --toolsets workspace,edit`: a
// file is created with write_file, its `sha256` from read_file checked against node:crypto over
// the bytes on disk, edited with edit_file and that `expected_sha256`, read back; an edit with
// the stale hash must be refused with isError naming both hashes and leave the disk untouched,
// and a dry run with the reference server's names (oldText, newText, dryRun) writes nothing.
// Prints a check x version table; exits 1 if any check failed.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ListRootsRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";

const SDK_VERSION = JSON.parse(
  readFileSync(new URL("./node_modules/@modelcontextprotocol/sdk/package.json", import.meta.url), "utf8"),
).version;
const HANDSHAKE = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
// A version minimcp does not speak but the SDK accepts (an early draft): the server must answer
// with its newest version, and the session then runs at that version.
const UNSUPPORTED = "2024-10-07";
const ALL_VERSIONS = [UNSUPPORTED, ...HANDSHAKE];
const PER_VERSION_TIMEOUT_MS = 60_000;
const PNG_SIGNATURE = "89504e470d0a1a0a";
const SAMPLED_TEXT = "This is a test response from the client";
const FIXTURE_TOOLS = [
  "echo", "test_simple_text", "test_image_content", "test_audio_content",
  "test_embedded_resource", "test_multiple_content_types", "test_tool_with_logging",
  "test_error_handling", "test_tool_with_progress", "test_reconnection", "test_sampling",
  "test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums",
  "json_schema_2020_12_tool",
];
const FIXTURE_PROMPTS = [
  "test_input_required_result_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource", "test_prompt_with_image",
  "test_simple_prompt",
];
const FIXTURE_RESOURCES = ["test://static-binary", "test://static-text", "test://watched-resource"];

class Failed extends Error {}
const expect = (condition, message) => {
  if (!condition) throw new Failed(message);
};
const atLeast = (version, other) => version >= other; // ISO dates order as strings
/** JSON equality, ignoring the order of object keys. */
const canonical = (v) =>
  Array.isArray(v) ? v.map(canonical)
    : v && typeof v === "object" ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])]))
      : v;
const same = (a, b) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
const isPng = (b64) => Buffer.from(b64, "base64").subarray(0, 8).toString("hex") === PNG_SIGNATURE;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function waitFor(predicate, ms = 2000) {
  const end = Date.now() + ms;
  while (!predicate() && Date.now() < end) await sleep(10);
}

/** A valid answer to a form: defaults where given, else the first allowed value. */
function answerForm(schema) {
  const answer = {};
  for (const [name, prop] of Object.entries(schema?.properties ?? {})) {
    if ("default" in prop) answer[name] = prop.default;
    else if (prop.enum) answer[name] = prop.enum[0];
    else if (prop.oneOf) answer[name] = prop.oneOf[0].const;
    else if (prop.type === "array") {
      answer[name] = prop.items?.enum ? prop.items.enum.slice(0, 2) : (prop.items?.anyOf ?? []).slice(0, 2).map((o) => o.const);
    } else if (prop.format === "email") answer[name] = "test@example.com";
    else if (prop.type === "integer" || prop.type === "number") answer[name] = 1;
    else if (prop.type === "boolean") answer[name] = true;
    else answer[name] = "testuser";
  }
  return answer;
}

/** Spawns the server, connects asking for `version`, records everything it sends. */
let ROOTS = null; // --roots DIR: the directory this client offers as its root

/** The RFC 8089 URI of an absolute path, as minimcp spells it. */
const fileUri = (path) =>
  "file://" + [...new TextEncoder().encode(path)].map((b) => {
    const c = String.fromCharCode(b);
    return /[A-Za-z0-9\-._~\/]/.test(c) ? c : "%" + b.toString(16).toUpperCase().padStart(2, "0");
  }).join("");

async function open(command, offered) {
  const conn = { offered, version: undefined, received: [], logs: [], sampling: [], elicitations: [], init: null };
  // A server given as http://…/mcp is reached over Streamable HTTP instead of spawned.
  const transport = /^https?:\/\//.test(command[0])
    ? new StreamableHTTPClientTransport(new URL(command[0]))
    : new StdioClientTransport({ command: command[0], args: command.slice(1), stderr: "inherit" });
  const send = transport.send.bind(transport);
  let initId;
  transport.send = (message, options) => {
    if (message.method === "initialize") {
      initId = message.id;
      message = { ...message, params: { ...message.params, protocolVersion: offered } };
    }
    return send(message, options);
  };
  let handler;
  const tap = (message, extra) => {
    conn.received.push(message);
    if (message.id === initId && message.result) conn.init = message.result;
    return handler?.(message, extra);
  };
  // The SDK installs its handler by assigning onmessage (chaining any previous one): hand it
  // the tap only once a handler exists, so the tap runs exactly once per message.
  Object.defineProperty(transport, "onmessage", { get: () => (handler ? tap : undefined), set: (f) => { handler = f; }, configurable: true });

  const client = new Client(
    { name: "minimcp-ts-client-test", version: SDK_VERSION },
    { capabilities: { sampling: {}, elicitation: { form: {} }, ...(ROOTS ? { roots: { listChanged: true } } : {}) } },
  );
  if (ROOTS) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: fileUri(ROOTS) }] }));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { conn.logs.push(n.params); });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    conn.sampling.push(request.params);
    return { role: "assistant", content: { type: "text", text: SAMPLED_TEXT }, model: "test-model", stopReason: "endTurn" };
  });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    conn.elicitations.push(request.params);
    return { action: "accept", content: answerForm(request.params.requestedSchema) };
  });
  await client.connect(transport);
  conn.client = client;
  conn.version = conn.init?.protocolVersion;
  return conn;
}

const call = (conn, name, args, options) =>
  conn.client.callTool(args === undefined ? { name } : { name, arguments: args }, CallToolResultSchema, options);

async function listAll(conn, method, key) {
  const items = [];
  let cursor;
  for (let pages = 1; pages < 200; pages++) {
    const result = await conn.client[method](cursor ? { cursor } : undefined);
    items.push(...(result[key] ?? []));
    cursor = result.nextCursor;
    if (!cursor) return { items, pages };
  }
  throw new Failed(`${method}: more than 200 pages`);
}

async function expectError(promise, code, what) {
  try {
    await promise;
  } catch (e) {
    expect(e.code === code, `${what}: expected error ${code}, got ${e.code} ${e.message}`);
    return;
  }
  throw new Failed(`${what}: succeeded`);
}

// ---- checks: each takes the connection, throws on failure, may return a note ----------------

const checks = {
  async handshake(conn) {
    const wanted = HANDSHAKE.includes(conn.offered) ? conn.offered : HANDSHAKE.at(-1);
    expect(conn.version === wanted, `asked for ${conn.offered}, the server answered ${conn.version}; expected ${wanted}`);
    expect(conn.client.getServerVersion()?.name === "minimcp", `serverInfo: ${JSON.stringify(conn.client.getServerVersion())}`);
    return `negotiated ${conn.init.protocolVersion}`;
  },
  async capabilities(conn) {
    const caps = conn.client.getServerCapabilities();
    for (const key of ["tools", "prompts", "resources", "logging"]) expect(key in caps, `capability ${key} missing`);
    expect(caps.resources.subscribe === true, "resources.subscribe is not true");
    expect(("completions" in caps) === atLeast(conn.version, "2025-03-26"), "completions is declared from 2025-03-26 only");
  },
  async ping(conn) {
    expect(same(await conn.client.ping(), {}), "ping result not empty");
  },
  async "tools/list (paged)"(conn) {
    const { items, pages } = await listAll(conn, "listTools", "tools");
    const names = items.map((t) => t.name);
    expect(new Set(names).size === names.length, `a tool is listed twice: ${names}`);
    for (const name of FIXTURE_TOOLS) expect(names.includes(name), `tool ${name} missing`);
    for (const tool of items) expect(tool.description, `${tool.name} has no description`);
    const schema = items.find((t) => t.name === "json_schema_2020_12_tool").inputSchema;
    expect(schema.$schema === "https://json-schema.org/draft/2020-12/schema" && schema.$defs?.address, "2020-12 schema not kept");
    return `${items.length} tools in ${pages} pages`;
  },
  async "tools/call content"(conn) {
    const echoed = await call(conn, "echo", { text: "hello from typescript" });
    expect(same(echoed.content, [{ type: "text", text: "hello from typescript" }]), `echo: ${JSON.stringify(echoed)}`);
    const text = await call(conn, "test_simple_text"); // no `arguments` member at all
    expect(text.content[0].text === "This is a simple text response for testing.", "simple text");
    const image = (await call(conn, "test_image_content", {})).content[0];
    expect(image.type === "image" && isPng(image.data), `image: ${image.type}`);
    const audio = (await call(conn, "test_audio_content", {})).content[0];
    if (atLeast(conn.version, "2025-03-26")) {
      expect(audio.type === "audio" && audio.mimeType === "audio/wav" && Buffer.from(audio.data, "base64").subarray(0, 4).toString() === "RIFF", "audio");
    } else {
      expect(audio.type === "text", `${conn.version} has no audio content; got ${audio.type}`);
    }
    const embedded = (await call(conn, "test_embedded_resource", {})).content[0];
    expect(embedded.type === "resource" && embedded.resource.uri === "test://embedded-resource", "embedded resource");
    const mixed = (await call(conn, "test_multiple_content_types", {})).content.map((c) => c.type);
    expect(same(mixed, ["text", "image", "resource"]), `mixed: ${mixed}`);
    const error = await call(conn, "test_error_handling", {});
    expect(error.isError === true && error.content[0].text, "tool error");
  },
  async "tool input errors"(conn) {
    const ok = await call(conn, "json_schema_2020_12_tool", { name: "n", email: "n@example.com", address: { street: "s", city: "c" } });
    expect(!ok.isError, `valid arguments refused: ${JSON.stringify(ok)}`);
    if (atLeast(conn.version, "2025-11-25")) {
      const bad = await call(conn, "json_schema_2020_12_tool", { name: "n", unexpected: 1 });
      expect(bad.isError === true, "bad arguments accepted");
      return "isError result";
    }
    await expectError(call(conn, "json_schema_2020_12_tool", { name: "n", unexpected: 1 }), -32602, "bad arguments");
    return "-32602 (protocol error)";
  },
  async logging(conn) {
    expect(same(await conn.client.setLoggingLevel("debug"), {}), "setLevel result not empty");
    const mark = conn.received.length;
    await call(conn, "test_tool_with_logging", {});
    const during = conn.received.slice(mark);
    const response = during.findIndex((m) => m.id !== undefined && m.result);
    const logs = during.slice(0, response).filter((m) => m.method === "notifications/message").map((m) => m.params.data);
    expect(same(logs, ["Tool execution started", "Tool processing data", "Tool execution completed"]), `logs before the response: ${logs}`);
    await waitFor(() => conn.logs.length >= 3);
    expect(conn.logs.length >= 3, "the SDK's logging handler did not see them");
    await conn.client.setLoggingLevel("error");
    const quiet = conn.logs.length;
    await call(conn, "test_tool_with_logging", {});
    await sleep(200);
    expect(conn.logs.length === quiet, "info messages sent at level error");
    return "3 messages before the response; none at level error";
  },
  async progress(conn) {
    const seen = [];
    const mark = conn.received.length;
    await call(conn, "test_tool_with_progress", {}, { onprogress: (p) => seen.push([p.progress, p.total]) });
    const during = conn.received.slice(mark);
    const response = during.findIndex((m) => m.id !== undefined && m.result);
    const sent = during.slice(0, response).filter((m) => m.method === "notifications/progress").map((m) => [m.params.progress, m.params.total]);
    const all = [[0, 100], [50, 100], [100, 100]];
    expect(same(sent, all), `progress on the wire before the response: ${JSON.stringify(sent)}`);
    // The SDK dispatches notifications a microtask late but responses at once, so progress
    // notifications read in the same chunk as the response reach no handler
    // (modelcontextprotocol/typescript-sdk#2580); with the event loop busy for 50 ms even the
    // middle one can share that chunk. The server cannot prevent that: the wire check above is
    // the real one, and what the handler did get must be in order and unaltered.
    expect(same(seen, all.slice(0, seen.length)), `the SDK's onprogress saw ${JSON.stringify(seen)}`);
    return seen.length === 3 ? "0, 50, 100 of 100" : `0, 50, 100 of 100 on the wire; the SDK delivered ${seen.length} (typescript-sdk#2580)`;
  },
  async "resources list/read"(conn) {
    const { items, pages } = await listAll(conn, "listResources", "resources");
    expect(same(items.map((r) => r.uri).sort(), FIXTURE_RESOURCES), `resources: ${items.map((r) => r.uri)}`);
    const templates = await listAll(conn, "listResourceTemplates", "resourceTemplates");
    expect(same(templates.items.map((t) => t.uriTemplate), ["test://template/{id}/data"]), "templates");
    const text = (await conn.client.readResource({ uri: "test://static-text" })).contents[0];
    expect(same(text, { uri: "test://static-text", mimeType: "text/plain", text: "This is the content of the static text resource." }), `static text: ${JSON.stringify(text)}`);
    const blob = (await conn.client.readResource({ uri: "test://static-binary" })).contents[0];
    expect(isPng(blob.blob), "static binary");
    const data = (await conn.client.readResource({ uri: "test://template/42/data" })).contents[0];
    expect(same(JSON.parse(data.text), { id: "42", templateTest: true, data: "Data for ID: 42" }), `template: ${data.text}`);
    await expectError(conn.client.readResource({ uri: "test://no-such-resource" }), -32002, "unknown resource");
    return `${items.length} resources in ${pages} pages`;
  },
  async "resources subscribe"(conn) {
    expect(same(await conn.client.subscribeResource({ uri: "test://watched-resource" }), {}), "subscribe");
    expect(same(await conn.client.unsubscribeResource({ uri: "test://watched-resource" }), {}), "unsubscribe");
    await expectError(conn.client.subscribeResource({ uri: "test://no-such-resource" }), -32002, "subscribing to nothing");
  },
  async "prompts list/get"(conn) {
    const { items, pages } = await listAll(conn, "listPrompts", "prompts");
    expect(same(items.map((p) => p.name).sort(), FIXTURE_PROMPTS), `prompts: ${items.map((p) => p.name)}`);
    expect(items.every((p) => p.description), "a prompt has no description");
    const simple = await conn.client.getPrompt({ name: "test_simple_prompt" });
    expect(same(simple.messages, [{ role: "user", content: { type: "text", text: "This is a simple prompt for testing." } }]), "simple prompt");
    const args = await conn.client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "first", arg2: "second" } });
    expect(args.messages[0].content.text === "Prompt with arguments: arg1='first', arg2='second'", "prompt arguments");
    const embedded = await conn.client.getPrompt({ name: "test_prompt_with_embedded_resource", arguments: { resourceUri: "test://example-resource" } });
    expect(embedded.messages[0].content.resource.uri === "test://example-resource", "embedded resource prompt");
    const image = await conn.client.getPrompt({ name: "test_prompt_with_image" });
    expect(isPng(image.messages[0].content.data), "image prompt");
    await expectError(conn.client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "x" } }), -32602, "missing argument");
    return `${items.length} prompts in ${pages} pages`;
  },
  async completion(conn) {
    const prompt = await conn.client.complete({ ref: { type: "ref/prompt", name: "test_prompt_with_arguments" }, argument: { name: "arg1", value: "test" } });
    expect(same(prompt.completion.values, ["testValue1", "testValue2", "testValue3"]), `prompt completion: ${prompt.completion.values}`);
    const template = await conn.client.complete({ ref: { type: "ref/resource", uri: "test://template/{id}/data" }, argument: { name: "id", value: "4" } });
    expect(same(template.completion.values, ["456"]), `template completion: ${template.completion.values}`);
  },
  async "sampling round trip"(conn) {
    const result = await call(conn, "test_sampling", { prompt: "Test prompt for sampling" });
    expect(conn.sampling.length === 1, `sampling handler ran ${conn.sampling.length} times`);
    expect(conn.sampling[0].maxTokens === 100 && conn.sampling[0].messages[0].content.text === "Test prompt for sampling", "sampling request");
    expect(result.content[0].text === `LLM response: ${SAMPLED_TEXT}`, `sampling result: ${JSON.stringify(result)}`);
  },
  async "elicitation round trip"(conn) {
    const result = await call(conn, "test_elicitation", { message: "Please provide your information" });
    if (!atLeast(conn.version, "2025-06-18")) {
      expect(result.isError === true && conn.elicitations.length === 0, `${conn.version} has no elicitation; expected a tool error`);
      return "n/a in this version: tool error, no request sent";
    }
    expect(conn.elicitations.length === 1, `elicitation handler ran ${conn.elicitations.length} times`);
    expect(result.content[0].text.includes("action=accept") && result.content[0].text.includes("test@example.com"), `result: ${result.content[0].text}`);
    if (!atLeast(conn.version, "2025-11-25")) return "form";
    await call(conn, "test_elicitation_sep1034_defaults", {});
    const defaults = Object.fromEntries(Object.entries(conn.elicitations.at(-1).requestedSchema.properties).map(([k, v]) => [k, v.default]));
    expect(same(defaults, { name: "John Doe", age: 30, score: 95.5, status: "active", verified: true }), `defaults: ${JSON.stringify(defaults)}`);
    const enums = await call(conn, "test_elicitation_sep1330_enums", {});
    const props = conn.elicitations.at(-1).requestedSchema.properties;
    expect(same(Object.keys(props).sort(), ["legacyEnum", "titledMulti", "titledSingle", "untitledMulti", "untitledSingle"]), "enum properties");
    expect(props.titledSingle.oneOf?.length === 3 && !props.titledSingle.enum, "titledSingle keeps oneOf through the SDK's parser");
    expect(enums.content[0].text.includes("value1"), "enum answer not returned");
    return "form + SEP-1034 defaults + SEP-1330 enums";
  },
};

const genericChecks = {
  handshake: checks.handshake,
  ping: checks.ping,
  async "listings (paged)"(conn) {
    const caps = conn.client.getServerCapabilities();
    const notes = [];
    for (const [cap, method, key] of [["tools", "listTools", "tools"], ["prompts", "listPrompts", "prompts"], ["resources", "listResources", "resources"]]) {
      if (!(cap in caps)) continue;
      const { items, pages } = await listAll(conn, method, key);
      const names = items.map((i) => i.name ?? i.uri);
      expect(new Set(names).size === names.length, `${key}: an item is listed twice`);
      if (key !== "resources") expect(items.every((i) => i.description), `${key}: an item has no description`);
      notes.push(`${items.length} ${key}/${pages}p`);
    }
    return notes.join(", ") || "nothing listed";
  },
  async "logging/setLevel"(conn) {
    expect(same(await conn.client.setLoggingLevel("info"), {}), "setLevel result not empty");
  },
};

const rootsChecks = {
  handshake: checks.handshake,
  async "roots from the client"(conn) {
    const listed = await call(conn, "list_directory", {});
    expect(!listed.isError, `list_directory: ${JSON.stringify(listed)}`);
    // Before 2025-06-18 there is no structuredContent: the text names the entries too.
    const text = listed.content[0].text;
    expect(text.includes("\nrun.sh  ("), `the client's root is not what is listed: ${text.slice(0, 300)}`);
    return `${text.split("\n").length - 1} entries of the client's root`;
  },
  async "absolute path"(conn) {
    const read = await call(conn, "read_file", { path: `${ROOTS}/run.sh`, limit: 1 });
    expect(!read.isError, `read_file by absolute path: ${JSON.stringify(read)}`);
    const text = read.content[0].text;
    expect(text.startsWith("`run.sh` lines 1-1 of "), `not the short path: ${text.slice(0, 200)}`);
  },
  async "file URIs"(conn) {
    const uri = fileUri(`${ROOTS}/run.sh`);
    const { items } = await listAll(conn, "listResources", "resources");
    expect(items.some((i) => i.uri === uri), `${uri} is not listed`);
    const read = await conn.client.readResource({ uri });
    expect(read.contents[0].text.startsWith("#!/usr/bin/env bash"), "run.sh read through its URI");
  },
};

let EDIT_DIR = null; // --edit DIR: the server's root, read directly to check what the tools wrote
const sha256 = (data) => createHash("sha256").update(data).digest("hex");
/** The `sha256` a read_file result reports: structured, or in the text before 2025-06-18. */
const shaIn = (result) =>
  typeof result.structuredContent?.sha256 === "string"
    ? result.structuredContent.sha256
    : (result.content[0].text.match(/\b[0-9a-f]{64}\b/) ?? [null])[0];

const editChecks = {
  handshake: checks.handshake,
  async "edit round trip"(conn) {
    const name = `edit-${conn.offered}.txt`;
    const disk = join(EDIT_DIR, name);
    const original = "alpha\nbeta\ngamma\n";
    const written = await call(conn, "write_file", { path: name, content: original });
    expect(!written.isError, `write_file: ${JSON.stringify(written)}`);
    expect(readFileSync(disk, "utf8") === original, "write_file: the bytes on disk differ");
    const read = await call(conn, "read_file", { path: name });
    expect(!read.isError, `read_file: ${JSON.stringify(read)}`);
    let first = shaIn(read);
    let note = "";
    if (first === null && !atLeast(conn.version, "2025-06-18")) {
      // No structuredContent before 2025-06-18, and the text does not show the hash: the
      // client computes it (a model there relies on the session's memory of its reads).
      first = sha256(original);
      note = " (no sha256 in the text: hashed by the client)";
    }
    expect(first === sha256(original), `read_file sha256 ${first} is not the SHA-256 of the file`);
    const edited = await call(conn, "edit_file", { path: name, edits: [{ old_text: "beta", new_text: "BETA" }], expected_sha256: first });
    expect(!edited.isError, `edit_file: ${JSON.stringify(edited)}`);
    const diff = edited.content[0].text;
    expect(diff.includes("-beta") && diff.includes("+BETA"), `edit_file's diff: ${diff.slice(0, 300)}`);
    const changed = "alpha\nBETA\ngamma\n";
    expect(readFileSync(disk, "utf8") === changed, "edit_file: the bytes on disk differ");
    const again = await call(conn, "read_file", { path: name });
    const second = shaIn(again);
    expect(second === sha256(changed) || (second === null && note), `sha256 after the edit: ${second}`);
    expect(again.content[0].text.includes("BETA"), "read back");
    return `${first.slice(0, 12)}… -> ${(second ?? "?").slice(0, 12)}…${note}`;
  },
  async "stale hash refused"(conn) {
    const name = `edit-${conn.offered}.txt`;
    const disk = join(EDIT_DIR, name);
    const before = readFileSync(disk);
    const stale = sha256("alpha\nbeta\ngamma\n");
    const current = sha256(before);
    expect(stale !== current, "the round trip did not change the file");
    const refused = await call(conn, "edit_file", { path: name, edits: [{ old_text: "BETA", new_text: "stale" }], expected_sha256: stale });
    expect(refused.isError === true, `an edit with a stale expected_sha256 was not refused: ${JSON.stringify(refused)}`);
    const message = refused.content[0].text;
    expect(message.includes(stale.slice(0, 8)) && message.includes(current.slice(0, 8)), `the refusal does not name both hashes: ${message}`);
    expect(readFileSync(disk).equals(before), "the refused edit changed the file");
    const dry = await call(conn, "edit_file", { path: name, edits: [{ oldText: "gamma", newText: "GAMMA" }], dryRun: true, expected_sha256: current });
    expect(!dry.isError && dry.content[0].text.includes("+GAMMA"), `dry run: ${JSON.stringify(dry)}`);
    expect(readFileSync(disk).equals(before), "the dry run wrote the file");
    return "isError naming both hashes; dry run wrote nothing";
  },
};

async function runVersion(command, version, suite) {
  const results = {};
  let conn;
  const timer = setTimeout(() => conn?.client.close(), PER_VERSION_TIMEOUT_MS);
  try {
    conn = await open(command, version);
    for (const [name, check] of Object.entries(suite)) {
      try {
        results[name] = ["PASS", (await check(conn)) ?? ""];
      } catch (e) {
        results[name] = ["FAIL", e instanceof Failed ? e.message : `${e.name}: ${e.message}`];
      }
    }
  } catch (e) {
    results.handshake ??= ["FAIL", `session failed: ${e.name}: ${e.message}`];
  } finally {
    clearTimeout(timer);
    await conn?.client.close().catch(() => {});
  }
  for (const name of Object.keys(suite)) results[name] ??= ["FAIL", "not reached: the session ended"];
  return results;
}

async function main() {
  const argv = process.argv.slice(2);
  const dash = argv.indexOf("--");
  const options = dash < 0 ? argv : argv.slice(0, dash);
  const command = dash < 0 ? [] : argv.slice(dash + 1);
  const generic = options.includes("--generic");
  const versionsAt = options.indexOf("--versions");
  const versions = versionsAt >= 0 ? options[versionsAt + 1].split(",") : ALL_VERSIONS;
  if (command.length === 0 || versions.some((v) => !ALL_VERSIONS.includes(v))) {
    console.error(`usage: ts_client.mjs [--generic] [--versions ${ALL_VERSIONS.join(",")}] -- SERVER_COMMAND [ARGS...]`);
    return 2;
  }
  const rootsAt = options.indexOf("--roots");
  if (rootsAt >= 0) ROOTS = options[rootsAt + 1];
  const editAt = options.indexOf("--edit");
  if (editAt >= 0) EDIT_DIR = options[editAt + 1];
  const suite = EDIT_DIR ? editChecks : ROOTS ? rootsChecks : generic ? genericChecks : checks;
  const results = {};
  for (const version of versions) results[version] = await runVersion(command, version, suite);

  const width = Math.max(...Object.keys(suite).map((n) => n.length)) + 2;
  console.log(`TypeScript SDK @modelcontextprotocol/sdk ${SDK_VERSION} -> ${command.join(" ")}`);
  console.log("".padEnd(width) + versions.map((v) => v.padEnd(12)).join(""));
  let passed = 0;
  let failed = 0;
  for (const name of Object.keys(suite)) {
    let row = name.padEnd(width);
    for (const v of versions) {
      const [status] = results[v][name];
      if (status === "PASS") passed++;
      else failed++;
      row += status.padEnd(12);
    }
    console.log(row);
  }
  for (const v of versions) {
    for (const [name, [status, note]] of Object.entries(results[v])) {
      if (status === "FAIL" || note) console.log(`  [${v}] ${name}: ${status}${note ? " - " + note : ""}`);
    }
  }
  console.log(`typescript sdk ${SDK_VERSION}: ${passed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

process.exitCode = await main();
