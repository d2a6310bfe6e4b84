// estimate's per-message cache, through the installed package (Node ESM): whatever was cached, a call
// returns exactly what the same input gives with nothing cached (a deep copy: new objects, so no entry
// can serve them), or throws the same error. Histories are edited the ways hosts edit them: append,
// replace a message by an edited copy, reorder, remove, change options, tokenizer, format or counter.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { fixture } from "./fixture.mjs";

const { project, input } = fixture();
const { estimate } = await import(pathToFileURL(join(project, "node_modules", "ctxfold", "dist", "node.mjs")).href);
const examples = fileURLToPath(new URL("./formats/", import.meta.url));
const conversations = JSON.parse(readFileSync(input, "utf8"));

const copy = (v) => structuredClone(v);
/** The result, or the thrown error's code, path and message, as JSON (so results compare byte for byte). */
function outcome(messages, options) {
  try {
    return JSON.stringify(estimate(messages, options));
  } catch (e) {
    return JSON.stringify({ error: e.code, path: e.path, message: e.message });
  }
}
/** Estimates `messages` (warming the cache on what it holds) and checks it against an uncached copy. */
function same(messages, options, what) {
  const warm = outcome(messages, options);
  assert.equal(warm, outcome(copy(messages), options && { ...options }), what);
  return warm;
}

// A tau-bench conversation that reuses a tool-call id once its call was answered (see corpus.mjs).
const chat = conversations.tau.messages;

test("a conversation from the corpus: append, edited copy, reorder, remove, other options", () => {
  assert.ok(chat && chat.length > 4, "a corpus conversation with tool calls");
  const history = chat.slice();
  same(history, undefined, "first call");
  same([...history, { role: "user", content: "And now run the tests again, please." }], undefined, "one appended");
  const k = history.findIndex((m) => m.role === "user");
  const edited = history.slice();
  edited[k] = { ...history[k], content: `${history[k].content} (edited, with more words than before)` };
  assert.notEqual(same(edited, undefined, "an edited copy"), same(history, undefined, "the original again"));
  // Reorder two plain messages, remove one: the per-message numbers follow the objects.
  const plain = history.map((m, i) => (typeof m.content === "string" && !m.tool_calls && m.role !== "tool" ? i : -1)).filter((i) => i >= 0);
  const swapped = history.slice();
  [swapped[plain[0]], swapped[plain[1]]] = [swapped[plain[1]], swapped[plain[0]]];
  same(swapped, undefined, "two messages swapped");
  same(history.filter((_, i) => i !== plain[1]), undefined, "one removed");
  for (const tokenizer of ["o200k", "cl100k", "claude", "gemini"]) same(history, { tokenizer }, tokenizer);
  same(history, { contextWindow: 8000, system: "Be brief.", usage: { promptTokens: 900, messageCount: 2 } }, "other options");
  same(history, { format: "anthropic" }, "a format that does not read it: the same error");
});

test("every format, as an array and as a request body", () => {
  const withCompaction = readdirSync(join(examples, "provider-compaction")).map((f) => join("provider-compaction", f));
  for (const file of [...readdirSync(examples), ...withCompaction].filter((f) => f.endsWith(".json"))) {
    const body = JSON.parse(readFileSync(join(examples, file), "utf8"));
    const key = Array.isArray(body) ? null : ["messages", "contents", "input"].find((k) => k in body);
    const items = key ? body[key] : body;
    same(body, undefined, `${file}: first call`);
    same(items, undefined, `${file}: the array alone`);
    const more = items.concat([copy(items.at(-1))]);
    same(key ? { ...body, [key]: more } : more, undefined, `${file}: the last message appended again`);
    same(key ? { ...body, [key]: items.slice(0, -1) } : items.slice(0, -1), undefined, `${file}: the last one removed`);
  }
});

test("tool calls and results are re-linked on every call", () => {
  const call = { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }] };
  const result = { role: "tool", tool_call_id: "c1", content: "a.txt" };
  const base = [{ role: "user", content: "list" }, call, result];
  same(base, undefined, "linked");
  const orphan = same([base[0], result], undefined, "the call removed: its result is an orphan");
  assert.match(orphan, /INVALID_INPUT/);
  assert.match(same([...base, result], undefined, "the result twice"), /INVALID_INPUT/);
  same([...base, { role: "assistant", content: "done" }], undefined, "and fine again");
  assert.match(same([...base, 5], undefined, "not a message"), /INVALID_INPUT/);
  same([...base, base[0]], undefined, "the same object twice");
});

test("ids made from positions (legacy function calls) still pair by position", () => {
  const history = [
    { role: "user", content: "weather?" },
    { role: "assistant", content: null, function_call: { name: "weather", arguments: "{}" } },
    { role: "function", name: "weather", content: "sunny" },
  ];
  same(history, undefined, "first");
  same([history[0], history[0], ...history.slice(1)], undefined, "moved by one");
  assert.match(same([history[0], history[2]], undefined, "the call removed"), /INVALID_INPUT/);
});

test("the input-size limit holds for cached histories", () => {
  const history = [{ role: "user", content: "x".repeat(5_000_000) }];
  same(history, undefined, "under the limit");
  const big = same([...history, { role: "assistant", content: "y".repeat(4_000_000) }], undefined, "over it together");
  assert.match(big, /INPUT_TOO_LARGE/);
});

test("a counter counts each message once, per counter; results equal an uncached count", () => {
  const history = chat.slice(0, 6);
  const texts = [];
  const counter = (t) => (texts.push(t), Math.ceil(t.length / 3));
  const first = same(history, { counter }, "first, counted");
  assert.ok(texts.length > 0);
  texts.length = 0;
  assert.equal(outcome(history, { counter }), first, "again: from the cache");
  assert.deepEqual(texts, [], "nothing recounted");
  const added = { role: "user", content: "one more question" };
  outcome([...history, added], { counter });
  assert.deepEqual(texts, ["one more question"], "only the new message counted");
  const other = (t) => t.length;
  same([...history, added], { counter: other }, "another counter: its own counts");
  same([...history, added], undefined, "no counter: the profile's estimate");
  assert.equal(outcome([...history, added], { counter }), same([...history, added], { counter }, "the first counter again"));
});

test("a counter's bad count names the message in the body's own list, cached or not", () => {
  const turn = (role, text) => ({ role, parts: [{ text }] });
  const body = { systemInstruction: { parts: [{ text: "be brief" }] }, contents: [turn("user", "hello"), turn("model", "hi")] };
  const counter = (t) => (t === "hi" ? -1 : t.length);
  const answer = same(body, { counter }, "a Gemini body, first call");
  assert.match(JSON.parse(answer).message, /for a text of contents\[1\]/);
  const grown = same({ ...body, contents: [...body.contents, turn("user", "more")] }, { counter }, "grown");
  assert.match(JSON.parse(grown).message, /for a text of contents\[1\]/);
});

test("a counter may call estimate itself: each call reads its own messages", () => {
  const other = chat.slice(0, 8).map(copy);
  const expected = outcome(copy(other));
  const seen = [];
  const counter = (t) => (seen.push(outcome(other.map(copy))), Math.ceil(t.length / 4));
  const history = chat.slice(0, 6);
  assert.equal(outcome(history, { counter }), outcome(copy(history), { counter: (t) => Math.ceil(t.length / 4) }));
  assert.ok(seen.length > 0 && seen.every((s) => s === expected), "the inner calls' answers");
});

test("past 100 000 cached messages the cache starts over; every history still gets its own answer", () => {
  // Each batch's messages longer than the last's, so an entry read for the wrong object shows.
  const batch = (n, words) => Array.from({ length: n }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}: ${"word ".repeat(words + (i % 7))}` }));
  const first = batch(40_000, 0);
  const firstAnswer = same(first, undefined, "first batch");
  // 120 000 more objects: the cache fills and starts over (at least once) along the way.
  for (const words of [10, 20, 30]) same(batch(40_000, words), undefined, `a batch of ${words} words more`);
  assert.equal(outcome(first), firstAnswer, "the first batch again, after the cache started over");
  same([...first, { role: "user", content: "one more" }], undefined, "and appended to");
});

test("items the JavaScript side cannot look up or copy get the uncached answer or error", () => {
  const history = [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }];
  same(history.map((m) => Object.freeze({ ...m })), undefined, "frozen messages");
  const throwing = [history[0], Object.defineProperty({ role: "assistant" }, "content", { enumerable: true, get() { throw new Error("no"); } })];
  assert.match(outcome(throwing), /INVALID_INPUT/);
  const cyclic = { role: "user", content: "loop" };
  cyclic.self = cyclic;
  assert.match(outcome([history[0], cyclic]), /INVALID_INPUT/);
  assert.equal(outcome(history), outcome(copy(history)), "and the module still works");
});

test("the result's fields come in their documented order, as arrays, strings and bytes alike", () => {
  const order = ["total", "perMessage", "format", "tokenizer", "requestOverhead", "counted", "calibration", "budget", "warnings"];
  const options = { contextWindow: 8000, model: "a-model-ctxfold-does-not-know", usage: [{ promptTokens: 900, messageCount: 2 }] };
  const text = JSON.stringify(chat);
  for (const [kind, messages] of [["arrays", copy(chat)], ["string", text], ["bytes", new TextEncoder().encode(text)]]) {
    const result = estimate(messages, options);
    assert.deepEqual(Object.keys(result), order, kind);
    assert.deepEqual(Object.keys(estimate(messages)), order.slice(0, 6), `${kind}, without options`);
    assert.equal(result.total, result.calibration.promptTokens + result.calibration.estimatedTail, kind);
    assert.equal(result.budget.tokens, result.total, kind);
  }
});
