// `context_overflow` on the errors hosts receive, from the installed package: each provider's documented
// context-length error as its HTTP body (text and parsed), as its SDK throws it, as the AI SDK's APICallError,
// wrapped as a cause; and errors that are not overflows.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { fixture } from "./fixture.mjs";

/** The installed package, as a user's project imports it. */
async function api() {
  const { project } = fixture();
  return import(pathToFileURL(join(project, "node_modules", "ctxfold", "dist", "node.mjs")).href);
}

const OPENAI = {
  error: {
    message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.",
    type: "invalid_request_error", param: "messages", code: "context_length_exceeded",
  },
};
const RESPONSES = {
  error: { message: "Your input exceeds the context window of this model. Please adjust your input and try again.", type: "invalid_request_error", param: "input", code: "context_length_exceeded" },
};
const ANTHROPIC = { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 208310 tokens > 200000 maximum" } };
const GEMINI = { error: { code: 400, message: "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).", status: "INVALID_ARGUMENT" } };

/** An SDK's error: the status and the parsed body as fields, the text in a (non-enumerable) message. */
function sdkError(status, body, message) {
  const e = new Error(message);
  e.name = "BadRequestError";
  Object.assign(e, { status, error: body.error ?? body, code: body.error?.code ?? null });
  return e;
}

/** The AI SDK's APICallError: the body as text and as data. */
function apiCallError(body) {
  const e = new Error("Bad Request");
  e.name = "AI_APICallError";
  Object.assign(e, { url: "https://api.example.test/v1", statusCode: 400, responseBody: JSON.stringify(body), isRetryable: false, data: body });
  return e;
}

test("each provider's overflow error is recognized, in every wrapping, with its numbers", async () => {
  const { context_overflow } = await api();
  const cases = [
    ["openai", OPENAI, { provider: "openai", limit: 128000, actual: 130532 }],
    ["openai responses", RESPONSES, { provider: "openai" }],
    ["anthropic", ANTHROPIC, { provider: "anthropic", limit: 200000, actual: 208310 }],
    ["gemini", GEMINI, { provider: "gemini", limit: 1048576, actual: 1200293 }],
  ];
  for (const [name, body, expected] of cases) {
    const message = body.error.message;
    for (const [how, error] of [
      ["parsed body", body],
      ["body text", JSON.stringify(body)],
      ["SDK error", sdkError(400, body, `400 ${message}`)],
      ["AI SDK APICallError", apiCallError(body)],
      ["wrapped as a cause", new Error("request failed", { cause: sdkError(400, body, `400 ${message}`) })],
      // @google/genai and others quote the whole body inside the message.
      ["body quoted in a message", new Error(`got status: 400 Bad Request. ${JSON.stringify(body)}`)],
    ]) {
      assert.deepEqual(context_overflow(error), expected, `${name}, ${how}`);
    }
  }
  // OpenAI's code alone is enough, even where the message says nothing.
  assert.deepEqual(context_overflow(sdkError(400, { error: { message: "Bad request", code: "context_length_exceeded" } }, "400 Bad request")), { provider: "openai" });
});

test("other errors are not overflows, and odd values are not errors", async () => {
  const { context_overflow } = await api();
  const rateLimit = { error: { message: "Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000.", type: "tokens", code: "rate_limit_exceeded" } };
  const auth = { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } };
  const network = new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:2"), { code: "ECONNREFUSED" }) });
  for (const error of [rateLimit, auth, sdkError(429, rateLimit, "429 Rate limit reached"), network, apiCallError(auth), "Overloaded", null, undefined, 42, [], {}]) {
    assert.equal(context_overflow(error), null, JSON.stringify(error));
  }
  const loop = { message: "x" };
  loop.self = loop;
  assert.equal(context_overflow(loop), null, "a cycle ends");
});

/**
 * A long corpus history and `send(messages)` to the local server standing for a provider whose window is a
 * quarter of the history's characters less a third: the history is surely over it, while a host's window of a
 * million tokens says it fits. Over its window, the server answers with OpenAI's overflow body (HTTP 400).
 */
async function overflowingProvider(server) {
  const { loadConversations } = await import("./corpus.mjs");
  const history = loadConversations().swe.messages;
  const window = Math.floor(JSON.stringify(history).length / 4 / 1.5);
  const url = `${server.url}/window/${window}/v1/chat/completions`;
  const send = async (messages) => {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", messages }) });
    const body = await res.json();
    if (!res.ok) throw Object.assign(new Error(`HTTP ${res.status}`), { status: res.status, body });
    return body;
  };
  return { history, window, send };
}

test("a history the provider refuses as too long is compacted on its numbers and goes through the second time", async () => {
  const { compact, context_overflow, estimate } = await api();
  const { startLlmServer } = await import("./llm-server.mjs");
  const server = await startLlmServer();
  try {
    const { history, window, send } = await overflowingProvider(server);
    const options = { contextWindow: 1_000_000 };
    assert.ok(estimate(history, options).budget.used < 0.5, "the estimate says it fits");
    const first = await send(history).catch((e) => e);
    const overflow = context_overflow(first);
    assert.equal(overflow?.provider, "openai", String(first));
    assert.equal(overflow.limit, window);

    const summarize = async () => "The agent read the code, found the bug and is fixing it.";
    const result = await compact(history, { ...options, summarize, overflow: first });
    assert.equal(result.compacted, true);
    assert.ok(result.plan.contextWindow < window, `${result.plan.contextWindow} < ${window}: the limit in the estimate's units`);
    const second = await send(result.messages);
    assert.match(second.choices[0].message.content, /^answered \d+ tokens$/);

    // Only a context-length error is taken.
    await assert.rejects(compact(history, { ...options, summarize, overflow: new Error("HTTP 500") }), (e) => e.code === "INVALID_OPTION" && e.path === "options.overflow");
  } finally {
    await server.stop();
  }
});

test("a Session recovers from an overflow: the stated count calibrates it and the next prepare compacts", async () => {
  const { Session, context_overflow } = await api();
  const { startLlmServer } = await import("./llm-server.mjs");
  const server = await startLlmServer();
  try {
    const { history, window, send } = await overflowingProvider(server);
    const session = new Session(history, { contextWindow: 1_000_000 });
    const first = session.prepare();
    assert.equal(first.action, "send", "the estimate says it fits");
    const error = await send(first.messages).catch((e) => e);
    assert.equal(session.overflowed(new Error("HTTP 500")), null, "another error changes nothing");
    const found = session.overflowed(error);
    assert.deepEqual(found, context_overflow(error));
    assert.ok(found.actual > first.tokens, `the provider counted ${found.actual}, the estimate ${first.tokens}`);

    const again = session.prepare();
    assert.equal(again.action, "compact");
    assert.ok(again.tokens >= found.actual * 0.95, `${again.tokens}: the stated count anchors the estimate`);
    assert.ok(again.plan.limit < window, `${again.plan.limit} < ${window}`);
    session.apply_summary(again.plan.jobs.map(() => "The agent read the code, found the bug and is fixing it."));
    assert.equal(session.prepare().action, "send");
    const second = await send(session.messages);
    assert.match(second.choices[0].message.content, /^answered \d+ tokens$/);
    session.free();
  } finally {
    await server.stop();
  }
});
