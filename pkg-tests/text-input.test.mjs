// Messages given as JSON text (a string, or a Uint8Array of UTF-8), through the installed package: every
// export reads them as it reads the objects, and gives text back in the same kind, with each message it
// kept copied byte for byte; text handed back from an answer reads as it would afresh; bad text gets a coded
// error with its position, and the module keeps working.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { readCorpus } from "./corpus.mjs";
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
  // Messages without a body, as text: answered without `body`, written anew or not.
  const arrayText = JSON.stringify(body.messages);
  const prunedArray = c.prune(arrayText, prune);
  assert.notEqual(prunedArray.messages, arrayText, "an output written anew");
  assert.equal(prunedArray.body, undefined);
  assert.equal(c.prune(arrayText).body, undefined);
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

test("text handed back from an answer is read as the same text read afresh", async () => {
  const c = await api();
  const runs = readCorpus("mini-swe-agent-tools.jsonl").slice(0, 3);
  const other = JSON.stringify([{ role: "user", content: "something else" }]);
  const options = { contextWindow: 16_000, protectTokens: 2_000, minimumPruneTokens: 0 };
  for (const run of runs) {
    for (const shape of ["body", "list"]) {
      const value = shape === "body" ? { model: "m", messages: run.messages, temperature: 0 } : run.messages;
      for (const kind of ["string", "bytes"]) {
        const input = kind === "bytes" ? utf8.encode(JSON.stringify(value)) : JSON.stringify(value);
        const label = `${run.id} as a ${shape}, ${kind}`;
        // The same text in a new string or array, read afresh once something else was read.
        const afresh = (text) => {
          c.estimate(other);
          return typeof text === "string" ? (" " + text).slice(1) : text.slice();
        };
        const pruned = c.prune(input, options).messages;
        const plan = c.plan_compaction(afresh(pruned), options);
        const summary = c.summarize_offline(afresh(pruned), plan);
        // Each call first after the answer it is handed, and again on the same text read afresh; an
        // answer made from an answer, handed back in turn.
        const calls = {
          plan: (m) => c.plan_compaction(m, options),
          // Counted with another profile than prune's: prune's counts of the kept messages are not taken.
          planClaude: (m) => c.plan_compaction(m, { ...options, tokenizer: "claude" }),
          apply: (m) => c.apply_summary(m, plan, summary),
          prune: (m) => c.prune(m, options),
          estimate: (m) => c.estimate(m),
          validate: (m) => c.validate(m),
        };
        const answers = { prune: () => c.prune(input, options).messages, apply: () => c.apply_summary(afresh(pruned), plan, summary).messages };
        for (const [name, call] of Object.entries(calls)) {
          for (const [from, answer] of Object.entries(answers)) {
            if (name === "apply" && from === "apply") continue; // the plan is of the pruned history
            const handed = answer();
            assert.deepEqual(call(handed), call(afresh(handed)), `${name} after ${from}: ${label}`);
          }
        }
        // apply_summary on the text plan_compaction was given takes the plan's counts of its messages.
        const planned = afresh(pruned);
        assert.deepEqual(c.plan_compaction(planned, options), plan);
        assert.deepEqual(c.apply_summary(planned, plan, summary), c.apply_summary(afresh(planned), plan, summary), `apply after plan: ${label}`);
      }
    }
  }
});

test("a body's field after its messages is edited in place in an answer handed back", async () => {
  const c = await api();
  const { system, ...rest } = JSON.parse(readFileSync(join(examples, "anthropic.json"), "utf8"));
  const body = { ...rest, system: system.map(({ cache_control, ...part }) => part), tools: [{ name: "t", input_schema: {} }] };
  const text = JSON.stringify(body);
  const prune = { protectTokens: 0, minimumPruneTokens: 0 };
  const marks = { apply: true, minCacheableTokens: 1 };
  const pruned = c.prune(text, prune).messages;
  const marked = c.cache_breakpoints(pruned, marks).messages;
  c.estimate("[]"); // then the same text in a new string, read afresh
  assert.equal(marked, c.cache_breakpoints((" " + pruned).slice(1), marks).messages);
  const expected = c.cache_breakpoints(c.prune(body, prune).messages, marks).messages;
  assert.ok(expected.system[0].cache_control, "the system prompt, after the messages, is marked");
  assert.deepEqual(JSON.parse(marked), expected);
});

test("bytes changed after they were answered are read as they are now", async () => {
  const c = await api();
  const [run] = readCorpus("mini-swe-agent-tools.jsonl");
  const out = c.prune(utf8.encode(JSON.stringify(run.messages)), { protectTokens: 2_000, minimumPruneTokens: 0 }).messages;
  const before = c.estimate(out.slice()).total;
  // Every byte of one message's text becomes "x": the same length, other tokens.
  const text = decode(out);
  const start = text.indexOf('"content":"') + '"content":"'.length;
  const end = text.indexOf('"', start);
  out.fill(0x78, start, end);
  assert.equal(c.estimate(out).total, c.estimate(utf8.encode(decode(out))).total);
  assert.notEqual(c.estimate(out).total, before);
  out[0] = 0x7b; // `{`: no longer a list of messages
  assert.throws(() => c.plan_compaction(out), (e) => e.code === "INVALID_INPUT");
});

test("a string of more than a million UTF-16 units, mostly beyond ASCII, reads as its bytes and objects do", async () => {
  const c = await api();
  // Three bytes of UTF-8 for most units (an ideograph), four for a surrogate pair: the string takes more
  // room as UTF-8 than a long string is first given, so its reading grows the room as it goes.
  const messages = [
    { role: "user", content: `${"日本語の文章です。".repeat(100_000)}🎉` },
    { role: "assistant", content: `${"🎉é".repeat(150_000)}end` },
  ];
  const text = JSON.stringify(messages);
  assert.ok(text.length > 1 << 20);
  const fromObjects = c.estimate(messages);
  assert.deepEqual(c.estimate(text), fromObjects);
  assert.deepEqual(c.estimate(utf8.encode(text)), fromObjects);
  const options = { contextWindow: 200_000, force: true, keepRecentTurns: 1 };
  assert.deepEqual(c.plan_compaction(text, options), c.plan_compaction(messages, options));
});

test("long text with a few characters beyond ASCII is answered exactly as a string", async () => {
  const c = await api();
  // An agent run whose texts start, break and end with characters of two, three and four bytes in UTF-8
  // (the last a surrogate pair in a string), between long ASCII runs.
  const run = readCorpus("mini-swe-agent-tools.jsonl")[4];
  const odd = ["é", "日本語", "🎉", "ß🎉é"];
  const messages = run.messages.map((m, k) => {
    if (typeof m.content !== "string") return m;
    const half = m.content.length >> 1;
    const middle = half - (/[\uDC00-\uDFFF]/.test(m.content[half]) ? 1 : 0);
    return { ...m, content: `${odd[k % 4]}${m.content.slice(0, middle)}${odd[(k + 1) % 4]}${m.content.slice(middle)}${odd[(k + 2) % 4]}` };
  });
  const body = JSON.stringify({ model: "m", messages });
  const options = { contextWindow: 16_000, protectTokens: 2_000, minimumPruneTokens: 0 };
  const pruned = c.prune(body, options);
  assert.ok(pruned.pruned.length > 0, "tool outputs were cleared: the answer is written anew");
  assert.equal(pruned.messages, decode(c.prune(utf8.encode(body), options).messages));
  // Each summarized text's head is in the prompt as it was written (the user's are kept, not summarized).
  const plan = c.plan_compaction(pruned.messages, { force: true, keepRecentTurns: 1 });
  assert.deepEqual(plan.warnings, []);
  const after = JSON.parse(pruned.messages).messages;
  const heads = plan.summarize
    .flatMap(({ start, end }) => after.slice(start, end))
    .filter((m) => m.role !== "user" && typeof m.content === "string" && m.content.length > 1_000)
    .map((m) => m.content.slice(0, 100));
  assert.ok(heads.length > 5);
  for (const head of heads) assert.ok(plan.jobs[0].prompt.user.includes(head), head);
});

test("bytes changed while compact awaits its summary: the answer is made from the bytes as given", async () => {
  const c = await api();
  const text = JSON.stringify(JSON.parse(readFileSync(join(examples, "openai-chat.json"), "utf8")));
  const options = { force: true, keepRecentTurns: 1, prune: false };
  const summarize = async () => "We looked at the weather in Paris.";
  const expected = decode((await c.compact(utf8.encode(text), { ...options, summarize })).messages);
  const bytes = utf8.encode(text);
  const changing = async () => {
    // Every byte of the newest request, kept as it is, becomes "x" while the summary is written.
    const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    const start = view.lastIndexOf('"content":"') + '"content":"'.length;
    bytes.fill(0x78, start, view.indexOf('"', start));
    return summarize();
  };
  const compacted = await c.compact(bytes, { ...options, summarize: changing });
  assert.notEqual(decode(bytes), text);
  assert.equal(decode(compacted.messages), expected);
});
