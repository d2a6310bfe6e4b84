// Messages given as JSON text (a string, or a Uint8Array of UTF-8), through the installed package: every
// export reads them as it reads the objects, and gives text back in the same kind, with each message it
// kept copied byte for byte; bad text gets a coded error with its position, and the module keeps working.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { fixture } from "./fixture.mjs";

const examples = fileURLToPath(new URL("./formats/", import.meta.url));
const utf8 = new TextEncoder();
const decode = (bytes) => new TextDecoder().decode(bytes);

async function api() {
  const { project } = fixture();
  return import(pathToFileURL(join(project, "node_modules", "ctxfold", "dist", "node.mjs")).href);
}

/** A body written as a person or another library would: its own spacing, escapes and key order. */
function handWritten(body) {
  const { messages, ...rest } = body;
  const items = messages.map((m) => JSON.stringify(m, null, 1)).join(" ,\n ");
  return `{ ${Object.entries(rest).map(([k, v]) => `"${k}" : ${JSON.stringify(v)}`).join(",\n  ")},\n  "messages": [ ${items} ]\n}\n`;
}

test("every export reads text as it reads the objects, and answers in the same kind", async () => {
  const c = await api();
  const body = JSON.parse(readFileSync(join(examples, "anthropic.json"), "utf8"));
  const text = handWritten(body);
  const bytes = utf8.encode(text);
  const prune = { protectTokens: 0, minimumPruneTokens: 0 };

  assert.equal(c.estimate(text).total, c.estimate(body).total);
  assert.equal(c.estimate(bytes).total, c.estimate(body).total);
  assert.deepEqual(c.validate(text), c.validate(body));

  const pruned = c.prune(text, prune);
  assert.equal(typeof pruned.messages, "string");
  assert.equal(pruned.body, pruned.messages, "a body is under `body` too");
  assert.deepEqual(JSON.parse(pruned.messages), c.prune(body, prune).messages);
  // Kept messages and the other fields are the caller's bytes; the edited message is written anew.
  const [kept] = text.match(/\{\n "role": "assistant"[\s\S]*?\n\}/);
  assert.ok(pruned.messages.includes(kept));
  assert.ok(pruned.messages.startsWith(text.slice(0, text.indexOf('"messages"'))));
  const fromBytes = c.prune(bytes, prune);
  assert.ok(fromBytes.messages instanceof Uint8Array);
  assert.equal(decode(fromBytes.messages), pruned.messages);

  const plan = c.plan_compaction(text, { force: true, keepRecentTurns: 1 });
  assert.deepEqual(plan, c.plan_compaction(body, { force: true, keepRecentTurns: 1 }));
  const applied = c.apply_summary(text, plan, c.summarize_offline(text, plan));
  assert.equal(typeof applied.messages, "string");
  assert.deepEqual(JSON.parse(applied.messages), c.apply_summary(body, plan, c.summarize_offline(body, plan)).messages);
  assert.equal(c.validate(applied.messages).valid, true);

  const compacted = await c.compact(bytes, { force: true, keepRecentTurns: 1, summarize: async () => "We looked at the weather in Paris." });
  assert.ok(compacted.messages instanceof Uint8Array && compacted.compacted);
  assert.equal(JSON.parse(decode(compacted.messages)).model, body.model);

  const marked = c.cache_breakpoints(text, { apply: true });
  assert.deepEqual(JSON.parse(marked.messages), c.cache_breakpoints(body, { apply: true }).messages);
  const turn = c.assemble_turn(JSON.stringify(body.messages.slice(0, -1)), { text: "And tomorrow?" });
  assert.deepEqual(JSON.parse(turn.messages), c.assemble_turn(body.messages.slice(0, -1), { text: "And tomorrow?" }).messages);
  assert.equal(c.quality_probe(text, plan).questions.length, c.quality_probe(body, plan).questions.length);

  const session = new c.Session(text, {});
  assert.equal(session.prepare().action, "send");
  assert.deepEqual(session.messages, body, "a session reads text into objects once");
  session.free();
});

test("bad text gets a coded error with its position, and the module keeps working", async () => {
  const c = await api();
  const cases = [
    ['{"messages": [{"role": "user", "content": "hi"},]}', /trailing comma at line 1 column \d+/],
    ['[{"role": "user",\n "content": "hi"}', /EOF while parsing a list at line 2 column \d+/],
    [utf8.encode('[{"role": "user", "content": "caf').slice(0, -1), /EOF|not JSON/],
    [Uint8Array.from([0x5b, 0x22, 0xc3, 0x22, 0x5d]), /not UTF-8: an invalid byte at line 1 column 2/],
    ['[{"role": "user", "content": "half \ud83d"}]', /lone UTF-16 surrogate/],
    ['{"model": "m"}', /./],
    ["42", /./],
  ];
  for (const [input, message] of cases) {
    const before = typeof input === "string" ? input : Array.from(input).join();
    assert.throws(() => c.prune(input), (e) => e instanceof Error && e.code === "INVALID_INPUT" && e.path.startsWith("messages") && message.test(e.message), String(input));
    assert.equal(typeof input === "string" ? input : Array.from(input).join(), before, "nothing of the caller's is altered");
  }
  const huge = `[{"role":"user","content":"${"x".repeat(8 * 1024 * 1024)}"}]`;
  assert.throws(() => c.estimate(huge), (e) => e.code === "INPUT_TOO_LARGE");
  assert.equal(c.estimate('[{"role":"user","content":"still here"}]').format, "openai-chat");
  assert.equal(c.validate('[{"role":"user","content":"a real replacement character: \ufffd"}]').valid, true, "U+FFFD itself is text");
});
