// The summarizer path against a real model: scripts/local-model.mjs serves a small instruct model
// (llama.cpp) on 127.0.0.1, and the installed package's `compact` with `openai_summarizer` summarizes a
// real agent run through it. Also the server itself: it answers from the prompt, in OpenAI's shape, and
// refuses an overflow the way OpenAI does. Quality is measured by `npm run eval`, not asserted here.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { pathToFileURL } from "node:url";
import { startLocalModel } from "../scripts/local-model.mjs";
import { loadConversations } from "./corpus.mjs";
import { fixture } from "./fixture.mjs";

let local;
before(async () => {
  local = await startLocalModel();
});
after(async () => {
  await local?.stop();
});

async function chat(body) {
  const response = await fetch(`${local.baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: local.model, ...body }),
  });
  return { status: response.status, body: await response.json() };
}

test("the local model answers from the prompt, in the OpenAI response shape", async () => {
  const question = "The booking code is QX7-2291. What is the booking code? Answer with the code only.";
  const { status, body } = await chat({ max_tokens: 30, messages: [{ role: "user", content: question }] });
  assert.equal(status, 200);
  assert.equal(body.object, "chat.completion");
  assert.equal(body.choices[0].message.role, "assistant");
  // The code's digits are in the prompt alone. Whether this small model copies the whole code depends on the
  // CPU llama.cpp runs on (on one machine it answers "The booking code is 2291."), so the digits are what is asked.
  assert.match(body.choices[0].message.content, /2291/);
  assert.ok(body.usage.prompt_tokens > 0 && body.usage.completion_tokens > 0);
  // Greedy by default: the same request, the same answer.
  const again = await chat({ max_tokens: 30, messages: [{ role: "user", content: question }] });
  assert.equal(again.body.choices[0].message.content, body.choices[0].message.content);
});

test("a request over the model's window is refused as OpenAI refuses it", async () => {
  const long = "word ".repeat(local.contextSize * 2);
  const { status, body } = await chat({ max_tokens: 100, messages: [{ role: "user", content: long }] });
  assert.equal(status, 400);
  assert.equal(body.error.code, "context_length_exceeded");
  assert.equal(body.error.type, "invalid_request_error");
});

test("compact summarizes a real agent run through the model, and the result is valid", async () => {
  const { project } = fixture();
  const ctxfold = await import(pathToFileURL(join(project, "node_modules", "ctxfold", "dist", "node.mjs")).href);
  const { tau } = loadConversations();
  // No time limit that a slow machine could hit: only a hung model fails this test.
  const summarize = ctxfold.openai_summarizer({ baseUrl: local.baseUrl, model: local.model, timeoutMs: 3_600_000 });
  // A window the run overflows, small enough that the summary prompt fits the model's own window.
  const result = await ctxfold.compact(tau.messages, { contextWindow: 4000, summarize, keepRecentTurns: 1 });
  assert.equal(result.compacted, true);
  assert.ok(result.jobs.length > 0);
  for (const job of result.jobs) assert.equal(job.source, "llm", JSON.stringify(job.error ?? job));
  assert.ok(result.tokensAfter < result.tokensBefore);
  const check = ctxfold.validate(result.messages);
  assert.ok(check.valid && check.pending.length === 0, JSON.stringify(check.problems));
  const summary = result.messages.find((m) => typeof m.content === "string" && m.content.includes("<ctxfold-summary"));
  assert.ok(summary, "a summary message");
  assert.ok(result.audit.summaryTokens > 0 && result.audit.factsChecked > 0);
  // What the model wrote is in it: the summary is more than ctxfold's own frame and appended facts.
  const body = summary.content.split("Facts from the summarized messages, verbatim:")[0];
  assert.ok(body.replace(/<[^>]+>/g, "").trim().length > 200, body);
});

test("an answer the length limit cuts off comes back without its unfinished word", async () => {
  const { project } = fixture();
  const ctxfold = await import(pathToFileURL(join(project, "node_modules", "ctxfold", "dist", "node.mjs")).href);
  const summarize = ctxfold.openai_summarizer({ baseUrl: local.baseUrl, model: local.model });
  const system = "You write lists.";
  const user = "Count from 1 to 100, the numbers separated by spaces.";
  // The request the client sends, asked directly: the model's own answer (greedy: the client gets the same one).
  const messages = [{ role: "system", content: system }, { role: "user", content: user }];
  // Several limits: which word the limit falls in, and whether one ends a sentence there, is the model's to say.
  let cut = 0;
  for (const maxOutputTokens of [8, 9, 10, 11, 12]) {
    const raw = await chat({ max_tokens: maxOutputTokens, messages });
    if (raw.body.choices[0].finish_reason !== "length") continue;
    const whole = raw.body.choices[0].message.content.trim();
    const text = await summarize({ jobId: "summary-1", system, user, maxOutputTokens });
    const seen = `${JSON.stringify(text)} of ${JSON.stringify(whole)}`;
    if (/[.!?。！？]$/.test(whole)) {
      assert.equal(text, whole, "an answer that ends a sentence is kept whole");
      continue;
    }
    assert.ok(text.length > 0 && whole.startsWith(text) && text.length < whole.length, seen);
    assert.match(whole.slice(text.length), /^\s/, `the cut falls between words: ${seen}`);
    cut++;
  }
  assert.ok(cut > 0, "no answer was cut off mid-sentence");
});
