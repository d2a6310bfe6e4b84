// The Worker example (www/worker/worker.js) in the real workerd runtime, with the installed tarball: a
// proxy for OpenAI's Chat Completions and Responses and Anthropic's Messages in front of the local test
// server (the "upstream"). The server records what reached it, so the tests check the summary request the Worker
// made, and that the forwarded conversation was compacted, still valid, and otherwise the caller's
// request unchanged.
import assert from "node:assert/strict";
import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { fixture } from "./fixture.mjs";
import { startLlmServer } from "./llm-server.mjs";
import { bundleWorker, serveWorker } from "./workerd.mjs";

const example = fileURLToPath(new URL("../www/worker/worker.js", import.meta.url));
const KEY = "sk-proxy-caller-key";

let llm, bundle, outDir, long, c;
before(async () => {
  const { scratch, project, input } = fixture();
  copyFileSync(example, join(project, "proxy-worker.js"));
  outDir = join(scratch, "workerd-proxy");
  bundle = await bundleWorker(project, outDir, "proxy-worker.js");
  llm = await startLlmServer();
  long = JSON.parse(readFileSync(input, "utf8")).swe.messages;
  c = await import(pathToFileURL(join(project, "node_modules", "ctxfold", "dist", "node.mjs")).href);
});
after(() => llm?.stop());

/** Serves the proxy with `vars` as its configuration, runs `fn(url)`, always stops workerd. */
async function withProxy(vars, fn) {
  const worker = await serveWorker(outDir, bundle.wasmModules, { bindings: vars, localNetwork: true });
  try {
    return await fn(worker.url);
  } finally {
    await worker.stop();
  }
}

const post = (url, body, headers = {}) => fetch(`${url}v1/chat/completions`, {
  method: "POST",
  headers: { "content-type": "application/json", authorization: `Bearer ${KEY}`, ...headers },
  body: JSON.stringify(body),
  signal: AbortSignal.timeout(120_000),
});

/** Each tool call answered by one tool message before the next assistant turn; no orphan results. */
function pairingProblems(messages) {
  const problems = [];
  let open = new Set();
  messages.forEach((m, i) => {
    if (m.role === "assistant") {
      if (open.size) problems.push(`messages[${i}]: calls ${[...open]} were not answered`);
      open = new Set((m.tool_calls ?? []).map((c) => c.id));
    } else if (m.role === "tool") {
      if (!open.delete(m.tool_call_id)) problems.push(`messages[${i}] answers ${m.tool_call_id}, which is not open`);
    } else if (open.size) problems.push(`messages[${i}] (${m.role}) interrupts open calls ${[...open]}`);
  });
  return problems;
}

/**
 * An OpenAI Chat conversation as an Anthropic Messages body: the system message as `system`, calls as
 * `tool_use` blocks, each run of results (and a user turn right after them) as one user message.
 */
function asAnthropic(messages) {
  const out = [];
  const user = (block) => (out.at(-1)?.role === "user" ? out.at(-1).content.push(block) : out.push({ role: "user", content: [block] }));
  for (const m of messages.slice(1)) {
    if (m.role === "tool") user({ type: "tool_result", tool_use_id: m.tool_call_id, content: m.content });
    else if (m.role === "user") user({ type: "text", text: m.content });
    else {
      const calls = (m.tool_calls ?? []).map((t) => ({ type: "tool_use", id: t.id, name: t.function.name, input: JSON.parse(t.function.arguments) }));
      out.push({ role: "assistant", content: [...(m.content ? [{ type: "text", text: m.content }] : []), ...calls] });
    }
  }
  return { system: messages[0].content, messages: out };
}

/** The same conversation as a Responses body: the system message as `instructions`, calls and results as items. */
function asResponses(messages) {
  const input = messages.slice(1).flatMap((m) => {
    if (m.role === "tool") return [{ type: "function_call_output", call_id: m.tool_call_id, output: m.content }];
    const text = m.content ? [{ type: "message", role: m.role, content: m.content }] : [];
    return [...text, ...(m.tool_calls ?? []).map((t) => ({ type: "function_call", call_id: t.id, name: t.function.name, arguments: t.function.arguments }))];
  });
  return { instructions: messages[0].content, input };
}

const extraFields = { temperature: 0.2, tools: [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }] };

describe("www/worker: the compacting proxy in workerd", () => {
  test("a long conversation is compacted (the summary written upstream) and forwarded with the caller's other fields", async () => {
    llm.requests.length = 0;
    const upstream = `${llm.url}/upstream/v1`;
    const res = await withProxy({ UPSTREAM_URL: upstream, CONTEXT_WINDOW: "32000" }, (url) =>
      post(url, { model: "gpt-test", messages: long, ...extraFields }));
    const answer = await res.json();
    assert.equal(res.status, 200, JSON.stringify(answer));
    // The summary, one revision round (the stub's answer keeps none of the facts), then the forwarded request.
    assert.equal(llm.requests.length, 3, `requests: ${llm.requests.map((r) => r.path)}`);
    const [summary, revision, forwarded] = llm.requests;
    assert.match(revision.body.messages[0].content, /^You correct the working memory/);

    assert.equal(summary.path, "/upstream/v1/chat/completions");
    assert.equal(summary.headers.authorization, `Bearer ${KEY}`);
    assert.equal(summary.body.model, "gpt-test");
    assert.equal(summary.body.messages.length, 2, "system prompt + transcript");
    assert.ok(summary.body.max_tokens > 0);

    assert.equal(forwarded.path, "/upstream/v1/chat/completions");
    assert.equal(forwarded.headers.authorization, `Bearer ${KEY}`);
    const sent = forwarded.body;
    assert.deepEqual({ model: sent.model, temperature: sent.temperature, tools: sent.tools }, { model: "gpt-test", ...extraFields });
    assert.ok(sent.messages.length < long.length, `${long.length} -> ${sent.messages.length} messages`);
    assert.deepEqual(sent.messages[0], long[0], "the system message is untouched");
    const spliced = sent.messages.filter((m) => typeof m.content === "string" && m.content.startsWith("<ctxfold-summary"));
    assert.equal(spliced.length, 1);
    assert.match(spliced[0].content, /upstream saw 2 messages/, "the upstream model's answer is the summary");
    assert.deepEqual(pairingProblems(sent.messages), []);
    assert.deepEqual(sent.messages.at(-1), long.at(-1), "the newest message is kept as it was");

    assert.equal(answer.choices[0].message.content, `upstream saw ${sent.messages.length} messages`, "the upstream answer is passed back");
    const [before, after] = res.headers.get("x-ctxfold-tokens").split("->").map(Number);
    assert.ok(after < before, res.headers.get("x-ctxfold-tokens"));
    assert.equal(res.headers.get("x-ctxfold-compacted"), "llm");
  });

  test("the next request of a compacted conversation gets its compacted history back, with no summary request", async () => {
    llm.requests.length = 0;
    let n = 120;
    while (long[n].role === "tool") n++; // no call left without its result
    const [first, later] = [long.slice(0, n), long.slice(0, n + 2)];
    const res = await withProxy({ UPSTREAM_URL: `${llm.url}/upstream/v1`, CONTEXT_WINDOW: "32000" }, async (url) => {
      const one = await post(url, { model: "gpt-test", messages: first });
      const asked = llm.requests.length;
      const two = await post(url, { model: "gpt-test", messages: later });
      return { one, two, asked, headers: two.headers };
    });
    assert.equal(res.one.headers.get("x-ctxfold-compacted"), "llm");
    assert.equal(res.asked, 3, "summary, revision, forwarded");
    assert.equal(llm.requests.length, 4, "then only the forwarded request");
    assert.equal(res.headers.get("x-ctxfold-compacted"), "no");
    assert.equal(res.headers.get("x-ctxfold-resumed"), String(first.length));
    const [sentFirst, sentLater] = [llm.requests[2].body.messages, llm.requests[3].body.messages];
    assert.deepEqual(sentLater, [...sentFirst, ...later.slice(first.length)]);
    assert.deepEqual(pairingProblems(sentLater), []);
  });

  test("an Anthropic Messages request is compacted by Anthropic's protocol, with the caller's x-api-key", async () => {
    llm.requests.length = 0;
    const body = { model: "claude-test", max_tokens: 1024, ...asAnthropic(long) };
    assert.equal(c.validate(body).valid, true, "a valid Messages body to start from");
    const res = await withProxy({ ANTHROPIC_URL: `${llm.url}/upstream`, CONTEXT_WINDOW: "32000" }, (url) =>
      fetch(`${url}v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": KEY, "anthropic-version": "2023-06-01" },
        body: JSON.stringify(body),
      }));
    const answer = await res.json();
    assert.equal(res.status, 200, JSON.stringify(answer));
    assert.equal(res.headers.get("x-ctxfold-compacted"), "llm");
    const [summary, ...rest] = llm.requests;
    const forwarded = rest.at(-1);
    for (const r of [summary, forwarded]) {
      assert.equal(r.path, "/upstream/v1/messages");
      assert.equal(r.headers["x-api-key"], KEY);
      assert.equal(r.headers["anthropic-version"], "2023-06-01");
    }
    assert.equal(summary.body.model, "claude-test");
    const sent = forwarded.body;
    assert.deepEqual([sent.model, sent.max_tokens, sent.system], [body.model, body.max_tokens, body.system]);
    assert.ok(sent.messages.length < body.messages.length);
    assert.equal(c.validate(sent).valid, true);
    assert.deepEqual(sent.messages.at(-1), body.messages.at(-1));
    assert.equal(answer.content[0].text, `upstream saw ${sent.messages.length} messages`);
  });

  test("an OpenAI Responses request is compacted too, its summary asked for by Chat Completions", async () => {
    llm.requests.length = 0;
    const body = { model: "gpt-test", store: false, ...asResponses(long) };
    assert.equal(c.validate(body).valid, true, "a valid Responses body to start from");
    const res = await withProxy({ UPSTREAM_URL: `${llm.url}/upstream/v1`, CONTEXT_WINDOW: "32000" }, (url) =>
      fetch(`${url}v1/responses`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` }, body: JSON.stringify(body) }));
    const answer = await res.json();
    assert.equal(res.status, 200, JSON.stringify(answer));
    assert.equal(res.headers.get("x-ctxfold-compacted"), "llm");
    assert.equal(llm.requests[0].path, "/upstream/v1/chat/completions");
    const forwarded = llm.requests.at(-1);
    assert.equal(forwarded.path, "/upstream/v1/responses");
    assert.equal(forwarded.headers.authorization, `Bearer ${KEY}`);
    const sent = forwarded.body;
    assert.deepEqual([sent.model, sent.store, sent.instructions], [body.model, body.store, body.instructions]);
    assert.ok(sent.input.length < body.input.length);
    assert.equal(c.validate(sent).valid, true);
    assert.deepEqual(sent.input.at(-1), body.input.at(-1));
    assert.equal(answer.output[0].content[0].text, `upstream saw ${sent.input.length} items`);
  });

  test("when the summary request fails, the offline digest is used and the request still goes through", async () => {
    llm.requests.length = 0;
    const res = await withProxy(
      { UPSTREAM_URL: `${llm.url}/upstream/v1`, SUMMARY_URL: `${llm.url}/status/503/v1`, SUMMARY_MODEL: "cheap-model", CONTEXT_WINDOW: "32000" },
      (url) => post(url, { model: "gpt-test", messages: long }));
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(res.headers.get("x-ctxfold-compacted"), "offline");
    const [summary, forwarded] = llm.requests;
    assert.equal(summary.path, "/status/503/v1/chat/completions");
    assert.equal(summary.body.model, "cheap-model");
    const spliced = forwarded.body.messages.find((m) => typeof m.content === "string" && m.content.startsWith("<ctxfold-summary"));
    assert.match(spliced?.content ?? "", /Offline digest/);
    assert.deepEqual(pairingProblems(forwarded.body.messages), []);
  });

  test("the body goes through as text: the caller's bytes outside the compacted list are forwarded as they were", async () => {
    llm.requests.length = 0;
    // Spacing and field order no JSON.stringify would write, around a list that gets compacted.
    const fields = '{\n  "model" :"gpt-test",\n  "temperature": 0.20,\n  "metadata": {"b": 1, "a": "é\\u00e9"},\n  "messages": ';
    const text = `${fields}${JSON.stringify(long)}\n}\n`;
    const res = await withProxy({ UPSTREAM_URL: `${llm.url}/upstream/v1`, SUMMARY_URL: `${llm.url}/status/503/v1`, CONTEXT_WINDOW: "32000" }, (url) =>
      fetch(`${url}v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` }, body: text }));
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(res.headers.get("x-ctxfold-compacted"), "offline");
    const forwarded = llm.requests.at(-1).text;
    assert.ok(forwarded.startsWith(fields), forwarded.slice(0, 200));
    assert.ok(forwarded.endsWith("]\n}\n"));
    const sent = JSON.parse(forwarded).messages;
    assert.ok(sent.length < long.length);
    // Kept messages are the caller's bytes: the newest ones, exactly as they were written.
    const tail = long.slice(-3).map((m) => JSON.stringify(m)).join(",");
    assert.ok(forwarded.includes(`${tail}]`), "the kept tail is copied byte for byte");
    assert.deepEqual(pairingProblems(sent), []);
  });

  test("malformed JSON gets ctxfold's error with its line and column", async () => {
    const res = await withProxy({ UPSTREAM_URL: `${llm.url}/upstream/v1` }, (url) =>
      fetch(`${url}v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"model": "m",\n "messages": [}' }));
    const body = await res.json();
    assert.equal(res.status, 400);
    assert.equal(body.error.code, "INVALID_INPUT");
    assert.match(body.error.message, /line 2 column \d+/);
  });

  test("a conversation within the window is forwarded exactly as sent, with no summary request", async () => {
    llm.requests.length = 0;
    const short = long.slice(0, 3);
    const res = await withProxy({ UPSTREAM_URL: `${llm.url}/upstream/v1` }, async (url) => {
      const r = await post(url, { model: "gpt-test", messages: short, stream: false });
      // A bad request gets ctxfold's error code and path as an OpenAI-style 400.
      const bad = await post(url, { model: "gpt-test", messages: [{ content: "no role" }] });
      return { r, bad: { status: bad.status, body: await bad.json() } };
    });
    assert.equal(res.r.status, 200);
    assert.equal(res.r.headers.get("x-ctxfold-compacted"), "no");
    assert.equal(llm.requests.length, 1);
    assert.deepEqual(llm.requests[0].body, { model: "gpt-test", messages: short, stream: false });
    assert.equal(res.bad.status, 400);
    assert.deepEqual([res.bad.body.error.code, res.bad.body.error.param], ["INVALID_INPUT", "messages[0].role"]);
  });
});
