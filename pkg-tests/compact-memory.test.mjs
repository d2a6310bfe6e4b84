// `compact`'s `memory`, through the installed package: a host that keeps no state (a proxy) is sent the whole
// uncompacted history every time; with a store, the model is asked for a summary once, and the next requests of
// the same conversation get the compacted history back in place of the messages it stands for, until it outgrows
// the limit. A request whose earlier messages changed is compacted afresh; a bad store is a coded error.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { fixture } from "./fixture.mjs";

const { project, input } = fixture();
const c = await import(pathToFileURL(join(project, "node_modules", "ctxfold", "dist", "node.mjs")).href);
const run = JSON.parse(readFileSync(input, "utf8")).swe.messages; // a real mini-swe-agent run
const utf8 = new TextEncoder();
const decode = (bytes) => new TextDecoder().decode(bytes);

/** The first `n` messages, ending where no tool call waits for its result. */
function upTo(n) {
  while (n < run.length && run[n].role === "tool") n++;
  return run.slice(0, n);
}

/** A host's summarizer that counts its calls; revisions off, so each compaction asks once per job. */
function counting() {
  const calls = [];
  return { calls, options: { maxRevisions: 0, summarize: (prompt) => (calls.push(prompt), "We reproduced the bug in the ORM and began a fix.") } };
}

const first = upTo(120);
const later = upTo(first.length + 2); // the same conversation, two messages on
// A window that the first request overflows and the compacted history with the new messages does not.
const contextWindow = Math.ceil(c.estimate(first).total / 0.6 / 1.1);

test("the next request of a conversation gets its compacted history back, without asking the model again", async () => {
  const memory = new Map();
  const { calls, options } = counting();
  const one = await c.compact(first, { ...options, contextWindow, memory });
  assert.equal(one.compacted, true);
  assert.equal(one.resumed, 0);
  assert.ok(calls.length >= 1);
  assert.equal(memory.size, 1);
  const asked = calls.length;

  const two = await c.compact(later, { ...options, contextWindow, memory });
  assert.equal(calls.length, asked, "no summary asked for");
  assert.equal(two.compacted, false);
  assert.equal(two.resumed, first.length);
  const kept = two.messages.length - (later.length - first.length);
  assert.deepEqual(two.messages.slice(0, kept), one.messages);
  // The messages since are the caller's own objects.
  two.messages.slice(kept).forEach((m, k) => assert.equal(m, later[first.length + k]));
  assert.ok(two.tokensAfter < c.estimate(later).total / 1.5);
  assert.equal(c.validate(two.messages).valid, true);

  // Without the store, the same request is summarized again.
  const alone = await c.compact(later, { ...options, contextWindow });
  assert.equal(alone.resumed, 0);
  assert.ok(calls.length > asked);
});

test("as bytes, the compacted history goes back in place byte for byte, and the new messages as they were sent", async () => {
  const memory = new Map();
  const { calls, options } = counting();
  const body = (messages) => utf8.encode(JSON.stringify({ model: "m", messages, stream: true }, null, 1));
  const one = await c.compact(body(first), { ...options, contextWindow, memory });
  assert.ok(one.messages instanceof Uint8Array && one.compacted);
  const asked = calls.length;
  const sent = body(later);
  const two = await c.compact(sent, { ...options, contextWindow, memory });
  assert.equal(calls.length, asked);
  assert.equal(two.resumed, first.length);
  assert.ok(two.messages instanceof Uint8Array);
  const [before, after] = [JSON.parse(decode(one.messages)), JSON.parse(decode(two.messages))];
  assert.deepEqual(after.messages, [...before.messages, ...later.slice(first.length)]);
  assert.equal(after.model, "m");
  assert.equal(after.stream, true);
  // Each new message's text, with its own spacing, is in the answer as the caller sent it.
  for (const m of later.slice(first.length)) assert.ok(decode(two.messages).includes(JSON.stringify(m, null, 1).replaceAll("\n", "\n  ")));
});

test("bytes the caller changes while the store or the model is awaited do not change the answer", async () => {
  // What `compact` answers is the compaction of the bytes as they were when it was called, as `fetch` sends a
  // body as it was: a host that reuses its buffer for the next request while this one waits changes nothing.
  const body = (messages) => utf8.encode(JSON.stringify({ model: "m", messages }));
  const { options } = counting();
  const memory = new Map();
  await c.compact(body(first), { ...options, contextWindow, memory });
  // The newest message's text (kept as it was sent), overwritten ("xxx…") during the awaits.
  const newest = JSON.stringify(later.at(-1).content).slice(1, -1);
  const scribbling = (sent) => {
    const at = decode(sent).lastIndexOf(newest);
    assert.ok(at > 0 && newest.length > 20);
    return () => sent.fill(0x78, at, at + newest.length);
  };

  // Resumed from the store: changed while the store's `get` is awaited.
  const expected = await c.compact(body(later), { ...options, contextWindow, memory: new Map(memory) });
  assert.equal(expected.resumed, first.length);
  const sent = body(later);
  const scribble = scribbling(sent);
  const store = { get: async (k) => (scribble(), memory.get(k)), set: (k, v) => memory.set(k, v) };
  const got = await c.compact(sent, { ...options, contextWindow, memory: store });
  assert.equal(got.resumed, first.length);
  assert.deepEqual(got.messages, expected.messages);
  assert.ok(decode(got.messages).includes(newest));

  // Compacted: changed while the summarizer is awaited.
  const plain = await c.compact(body(later), { ...options, contextWindow });
  assert.equal(plain.compacted, true);
  const again = body(later);
  const scribbleAgain = scribbling(again);
  const compacted = await c.compact(again, { ...options, contextWindow, summarize: (p) => (scribbleAgain(), options.summarize(p)) });
  assert.deepEqual(compacted.messages, plain.messages);
});

test("a request whose earlier messages changed is compacted afresh, and the store then holds its compaction", async () => {
  const memory = new Map();
  const { calls, options } = counting();
  await c.compact(first, { ...options, contextWindow, memory });
  const asked = calls.length;
  // A message after the opening (the system prompt and the task), so the conversation's key stays the same.
  const edited = later.map((m, i) => (i === 4 ? { ...m, content: `${m.content} (edited)` } : m));
  const again = await c.compact(edited, { ...options, contextWindow, memory });
  assert.equal(again.resumed, 0);
  assert.equal(again.compacted, true);
  assert.ok(calls.length > asked);
  // Stored under the same key (the conversation opens alike), now for the edited history.
  assert.equal(memory.size, 1);
  const asked2 = calls.length;
  const next = await c.compact([...edited, ...run.slice(edited.length, upTo(edited.length + 2).length)], { ...options, contextWindow, memory });
  assert.equal(next.resumed, edited.length);
  assert.equal(calls.length, asked2);
});

test("a remembered history that outgrows the limit is compacted again, its earlier summary folded in", async () => {
  const memory = new Map();
  const { calls, options } = counting();
  await c.compact(first, { ...options, contextWindow, memory });
  const asked = calls.length;
  const whole = upTo(run.length);
  // The rest of the run, in a window that the remembered history and the messages since no longer fit.
  const grown = await c.compact(whole, { ...options, contextWindow: Math.ceil(contextWindow * 0.6), memory });
  assert.equal(grown.resumed, first.length);
  assert.equal(grown.compacted, true);
  assert.ok(calls.length > asked);
  // The new summary's prompt holds the earlier one.
  assert.ok(calls.slice(asked).some((p) => p.user.includes("We reproduced the bug in the ORM")));
  assert.equal(c.validate(grown.messages).valid, true);
  assert.equal(JSON.parse([...memory.values()][0]).count, whole.length);
});

test("a client that moves its cache_control mark to its newest message is resumed, each kept message as it sends it now", async () => {
  // An Anthropic chat whose client marks its newest message for the prompt cache, and unmarks the one before.
  const words = (k) => `Turn ${k}: ${"the quarterly report needs another pass over the figures and the summary table ".repeat(30)}`;
  const turn = (k, marked) => ({
    role: k % 2 ? "assistant" : "user",
    content: [{ type: "text", text: words(k), ...(marked ? { cache_control: { type: "ephemeral" } } : {}) }],
  });
  const chat = (n) => ({ model: "claude-test", max_tokens: 1024, system: "You help with reports.", messages: Array.from({ length: n }, (_, k) => turn(k, k === n - 1)) });
  const [first, later] = [chat(41), chat(43)];
  const window = Math.ceil(c.estimate(first).total / 0.6 / 1.1);
  const memory = new Map();
  const { calls, options } = counting();
  const one = await c.compact(first, { ...options, contextWindow: window, memory });
  assert.equal(one.compacted, true);
  const asked = calls.length;
  const two = await c.compact(later, { ...options, contextWindow: window, memory });
  assert.equal(calls.length, asked, "no summary asked for");
  assert.equal(two.resumed, 41);
  const marks = (body) => body.messages.filter((m) => JSON.stringify(m).includes("cache_control")).length;
  assert.equal(marks(two.messages), 1, "only the newest message is marked, as the client sent it");
  assert.equal(two.messages.messages.at(-1), later.messages.at(-1));
  // The messages the compaction kept are the caller's objects of this request, not the earlier request's.
  const kept = two.messages.messages.filter((m) => later.messages.includes(m));
  assert.ok(kept.length > 2);
  assert.equal(c.validate(two.messages).valid, true);
});

test("any store with get and set will do, a Promise-returning one too; anything else is a coded error", async () => {
  const kv = new Map();
  const store = { get: async (k) => kv.get(k) ?? null, set: async (k, v) => void kv.set(k, v) };
  const { calls, options } = counting();
  await c.compact(first, { ...options, contextWindow, memory: store });
  const asked = calls.length;
  const two = await c.compact(later, { ...options, contextWindow, memory: store });
  assert.equal(two.resumed, first.length);
  assert.equal(calls.length, asked);
  // Something that is not a state of ours is passed over.
  kv.set([...kv.keys()][0], "not a state");
  assert.equal((await c.compact(later, { ...options, contextWindow, memory: store })).resumed, 0);

  for (const memory of [{}, { get() {} }, "map", 42]) {
    await assert.rejects(c.compact(first, { ...options, contextWindow, memory }), (e) => e.code === "INVALID_OPTION" && e.path === "options.memory");
  }
  assert.equal((await c.compact(first, { ...options, contextWindow, memory: null })).resumed, 0);
  assert.ok(c.estimate(first).total > 0, "the module still works");
});
