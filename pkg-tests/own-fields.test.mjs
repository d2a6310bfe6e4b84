// A field named `__proto__` is data like any other once `JSON.parse` has made it (an API response, a
// stored history). Copying an object with `Object.assign` or `copy[key] = value` would turn it into the
// copy's prototype and drop it from the data; ctxfold's copies must keep it where the caller wrote it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { fixture } from "./fixture.mjs";

const { project } = fixture();
const ctxfold = await import(pathToFileURL(join(project, "node_modules", "ctxfold", "dist", "node.mjs")).href);
const { estimate, prune } = ctxfold;

/** An OpenAI Chat history as JSON text: old tool outputs to clear, and a `__proto__` field in each exchange. */
function historyText() {
  const items = [{ role: "user", content: "Read the manual." }];
  const out = [JSON.stringify(items[0])];
  for (let i = 0; i < 6; i++) {
    out.push(`{"role":"assistant","content":null,"tool_calls":[{"id":"c${i}","type":"function","function":{"name":"read","arguments":"{\\"page\\":${i}}"}}],"__proto__":{"trace":"a${i}"}}`);
    out.push(`{"role":"tool","tool_call_id":"c${i}","content":${JSON.stringify(`page ${i}: ${"lorem ipsum dolor sit amet ".repeat(2000)}`)},"__proto__":{"trace":"t${i}"}}`);
  }
  out.push(JSON.stringify({ role: "user", content: "Summarize it." }));
  return `[${out.join(",")}]`;
}

test("a __proto__ field survives prune's copies of the messages it edits", () => {
  const messages = JSON.parse(historyText());
  assert.deepEqual(Object.keys(messages[2]).at(-1), "__proto__", "the fixture has the field as a field");
  const result = prune(messages, { protectTokens: 1000, minimumPruneTokens: 0 });
  const edited = result.messages.filter((m, i) => m !== messages[i]);
  assert.ok(edited.length >= 3, `prune edited ${edited.length} messages`);
  for (const m of result.messages) {
    assert.equal(Object.getPrototypeOf(m), Object.prototype, "no copy got a new prototype");
    assert.ok(Object.hasOwn(m, "__proto__") || m.role === "user", JSON.stringify(m).slice(0, 120));
  }
  // Apart from the cleared outputs, the output is the input, field for field.
  const fields = (m) => JSON.stringify({ ...m, content: m.role === "tool" ? "" : m.content });
  assert.deepEqual(result.messages.map(fields), messages.map(fields));
});

test("a __proto__ field is read the same from objects as from text", () => {
  const text = historyText();
  assert.deepEqual(estimate(JSON.parse(text)).perMessage, estimate(text).perMessage);
  assert.equal(prune(text, { protectTokens: 1000, minimumPruneTokens: 0 }).messages.match(/"__proto__":\{"trace"/g).length, 12);
});
