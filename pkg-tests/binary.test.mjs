// Messages with binary data, through the installed package (Node ESM). The AI SDK's image and file parts
// take a Uint8Array, an ArrayBuffer or a Node Buffer as well as base64 text; JSON.stringify would write
// such a value byte by byte (a 1 MB image as 11 MB of JSON, over the input limit). ctxfold reads each
// binary value as a short stand-in and must give the caller back its own objects, bytes included.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { fixture } from "./fixture.mjs";

const { project } = fixture();
const ctxfold = await import(pathToFileURL(join(project, "node_modules", "ctxfold", "dist", "node.mjs")).href);
const { estimate, prune, plan_compaction, apply_summary } = ctxfold;

const MB = 1024 * 1024;
const bytes = (n, seed) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 255);

/** An AI SDK history: a screenshot (1 MB Uint8Array), a PDF (Node Buffer), a photo (ArrayBuffer) and a
 * tool call with its result, with `image`/`data` made by `media` from each binary value. */
function history(media) {
  return [
    { role: "system", content: "You are a careful assistant." },
    { role: "user", content: [{ type: "text", text: "What is wrong in this screenshot?" }, { type: "image", image: media(bytes(MB, 1)), mediaType: "image/png" }] },
    { role: "assistant", content: [{ type: "text", text: "The build log shows a missing import in main.rs." }] },
    { role: "user", content: [{ type: "text", text: "Here is the spec." }, { type: "file", data: media(Buffer.from(bytes(300_000, 2))), mediaType: "application/pdf" }] },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "read_spec", input: { page: 3 } }] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "read_spec", output: { type: "text", value: "Section 3: imports. ".repeat(400) } }] },
    { role: "user", content: [{ type: "image", image: media(bytes(200_000, 3).buffer), mediaType: "image/jpeg" }, { type: "text", text: "And this photo?" }] },
    { role: "assistant", content: [{ type: "text", text: "It shows the same error on another machine." }] },
    { role: "user", content: [{ type: "text", text: "Fix it, please." }] },
  ];
}
const binary = () => history((b) => b);
const asBase64 = () => history((b) => Buffer.from(b instanceof ArrayBuffer ? new Uint8Array(b) : b).toString("base64"));

test("estimate reads binary images and files as attachments, like the same history in base64", () => {
  const expected = estimate(asBase64());
  const got = estimate(binary());
  assert.equal(got.format, "ai-sdk");
  assert.deepEqual(got.perMessage, expected.perMessage);
  assert.equal(got.total, expected.total);
  assert.ok(got.total < 10_000, `a 1.5 MB history of media is a few thousand tokens, not ${got.total}`);
});

test("a text file costs its text, given as bytes, as base64 or as a data URL", () => {
  const notes = "Meeting notes: ship the parser on Friday, keep the old API until March.\n".repeat(200);
  const file = (data) => [{ role: "user", content: [{ type: "text", text: "Summarize the notes." }, { type: "file", data, mediaType: "text/plain" }] }];
  const utf8 = new TextEncoder().encode(notes);
  const base64 = Buffer.from(utf8).toString("base64");
  const fromBytes = estimate(file(utf8));
  assert.deepEqual(estimate(file(Buffer.from(utf8))).perMessage, fromBytes.perMessage);
  assert.deepEqual(estimate(file(base64)).perMessage, fromBytes.perMessage);
  assert.deepEqual(estimate(file(`data:text/plain;base64,${base64}`)).perMessage, fromBytes.perMessage);
  const asText = estimate([{ role: "user", content: [{ type: "text", text: "Summarize the notes." }, { type: "text", text: notes }] }]);
  assert.ok(Math.abs(fromBytes.total - asText.total) <= 10, `${fromBytes.total} against ${asText.total} as text`);
  const pdf = estimate([{ role: "user", content: [{ type: "text", text: "Summarize the notes." }, { type: "file", data: utf8, mediaType: "application/pdf" }] }]);
  assert.ok(fromBytes.total > 2 * pdf.total, "more than a file of unknown content");
  assert.equal(prune(file(utf8)).messages[0].content[1].data, utf8, "the caller's bytes come back");
});

test("the estimate cache serves binary messages: an append re-reads one message and answers the same", () => {
  const messages = binary();
  const first = estimate(messages);
  messages.push({ role: "assistant", content: [{ type: "text", text: "Done: the import is added." }] });
  const warm = estimate(messages);
  const cold = estimate(binary().concat([{ role: "assistant", content: [{ type: "text", text: "Done: the import is added." }] }]));
  assert.deepEqual(warm, cold);
  assert.deepEqual(warm.perMessage.slice(0, -1), first.perMessage);
  // With a counter, what is read is what is counted: after an append, only the new message's text.
  const counted = [];
  const counter = (text) => (counted.push(text), Math.ceil(text.length / 4));
  estimate(messages, { counter });
  counted.length = 0;
  messages.push({ role: "user", content: [{ type: "text", text: "Thanks." }, { type: "image", image: bytes(1000, 5) }] });
  estimate(messages, { counter });
  assert.deepEqual(counted, ["Thanks."]);
});

test("prune and apply_summary give back the caller's own objects and bytes", () => {
  const messages = binary();
  const pruned = prune(messages, { protectTokens: 0, minimumPruneTokens: 0 });
  assert.equal(pruned.messages.length, messages.length);
  assert.ok(pruned.pruned.length > 0, "the tool result was pruned");
  for (const i of [1, 3, 6]) assert.equal(pruned.messages[i], messages[i], `message ${i} is the caller's object`);
  const plan = plan_compaction(messages, { force: true, keepRecentTurns: 2 });
  assert.ok(plan.needed);
  const prompt = plan.jobs.map((j) => j.prompt.user).join("\n");
  assert.match(prompt, /attachment/, "the summarizer is told an attachment is not shown");
  assert.doesNotMatch(prompt, /"0":/, "no bytes in the prompt");
  const applied = apply_summary(messages, plan, "The user sent a screenshot and a spec; the import was missing.");
  const kept = applied.messages.filter((m) => messages.includes(m));
  assert.ok(kept.includes(messages[6]), "the photo message is kept as the caller's object");
  assert.ok(messages[6].content[0].image instanceof ArrayBuffer && messages[6].content[0].image.byteLength === 200_000);
});

test("a plan is stale when an image's bytes change, even at the same size", () => {
  const messages = binary();
  const plan = plan_compaction(messages, { force: true, keepRecentTurns: 2 });
  const changed = messages.slice();
  changed[1] = { ...messages[1], content: [messages[1].content[0], { ...messages[1].content[1], image: bytes(MB, 9) }] };
  assert.throws(() => apply_summary(changed, plan, "summary"), (e) => e.code === "STALE_PLAN");
  assert.equal(apply_summary(binary(), plan, "The user sent a screenshot.").messages.length < messages.length, true, "same bytes in new objects: not stale");
});

test("binary data never counts against the input limit as its JSON would", () => {
  // 12 images of 1 MB: 130 MB as JSON.stringify writes them, a few hundred bytes as ctxfold reads them.
  const messages = Array.from({ length: 12 }, (_, i) => ({ role: "user", content: [{ type: "image", image: bytes(MB, i) }] }));
  assert.equal(estimate(messages).perMessage.length, 12);
  assert.equal(prune(messages).messages[11], messages[11]);
  // Text over the limit still is over it, next to binary data.
  const huge = [...messages, { role: "user", content: [{ type: "text", text: "x".repeat(9 * MB) }] }];
  assert.throws(() => prune(huge), (e) => e.code === "INPUT_TOO_LARGE" && e.path === "messages");
  assert.throws(() => estimate(huge), (e) => e.code === "INPUT_TOO_LARGE" && e.path === "messages");
});
