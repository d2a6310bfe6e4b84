// README.md's code blocks marked `<!-- tested: NAME ... -->`, run as a user would run them: copied into a
// file of the fixture project, where `import ... from "ctxfold"` resolves to the installed tarball. A
// small harness around each block supplies what the README leaves to the reader (`messages`: a long
// corpus agent run; `myLLM`; `apiKey`), shrinks `contextWindow: 128_000` to 16 000 so that the
// conversation surely needs compacting, points the OpenAI client at the local test server, and after the
// block reports on the `history` it left: valid for the provider, shorter, and summarized by whom.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { fixture } from "./fixture.mjs";
import { SUMMARY_PREFIX, startLlmServer } from "./llm-server.mjs";

const README = new URL("../README.md", import.meta.url);
const LOCAL_SUMMARY = "LOCAL SUMMARY: the user asked for a fix; the agent read the code and ran the tests.";
const API_KEY = "sk-readme-test-key";
const MARK = "@@readme-report ";

/** `{ name: code }` for every ```js block right after a `<!-- tested: name ... -->` line. */
function testedBlocks() {
  const markdown = readFileSync(README, "utf8");
  const markers = [...markdown.matchAll(/<!-- tested: ([\w-]+)/g)].map((m) => m[1]);
  const blocks = Object.fromEntries(
    [...markdown.matchAll(/<!-- tested: ([\w-]+)[^\n]*-->\n```js\n([\s\S]*?)\n```/g)].map((m) => [m[1], m[2]]),
  );
  assert.deepEqual(Object.keys(blocks), markers, "every `<!-- tested -->` marker must be followed by a ```js block");
  return blocks;
}

/** `code` with `from` replaced by `to`, which must occur exactly once (else the harness no longer fits). */
function replaceOnce(code, from, to) {
  assert.equal(code.split(from).length - 1, 1, `the README block should contain ${from} exactly once`);
  return code.replace(from, () => to);
}

const HARNESS_BEFORE = `
import { readFileSync as __readFileSync } from "node:fs";
import * as __ctxfold from "ctxfold";
const [, , __input, __mode, apiKey] = process.argv;
const messages = JSON.parse(__readFileSync(__input, "utf8")).swe.messages;
let __llmCalls = 0;
async function myLLM(system, user, maxOutputTokens) {
  __llmCalls++;
  if (typeof system !== "string" || typeof user !== "string" || !(maxOutputTokens > 0)) throw new Error("myLLM: not a prompt");
  if (__mode === "fail") throw new Error("the model is down");
  return ${JSON.stringify(LOCAL_SUMMARY)};
}
`;

const HARNESS_AFTER = `
{
  const validity = __ctxfold.validate(history);
  process.stdout.write("\\n${MARK}" + JSON.stringify({
    valid: validity.valid,
    problems: validity.problems,
    pending: validity.pending,
    tokensBefore: __ctxfold.estimate(messages).total,
    tokensAfter: __ctxfold.estimate(history).total,
    countBefore: messages.length,
    countAfter: history.length,
    sameLastMessage: history.at(-1) === messages.at(-1),
    llmCalls: __llmCalls,
    summaries: history.map((m) => JSON.stringify(m)).filter((m) => m.includes("<ctxfold-summary")),
  }) + "\\n");
}
`;

/** Writes the block into the fixture project with the harness around it, runs it, returns its report. */
async function run(name, code, args, { declareHistory = false } = {}) {
  const { project, input } = fixture();
  const file = join(project, `readme-${name}.mjs`);
  writeFileSync(file, `${HARNESS_BEFORE}${declareHistory ? "let history = messages;\n" : ""}\n${code}\n${HARNESS_AFTER}`);
  let stdout;
  try {
    ({ stdout } = await promisify(execFile)(process.execPath, [file, input, ...args], {
      cwd: project, maxBuffer: 64 << 20, timeout: 120_000,
    }));
  } catch (e) {
    throw new Error(`README block "${name}" failed: ${e.message}\n${e.stderr ?? ""}`);
  }
  const line = stdout.split("\n").find((l) => l.startsWith(MARK));
  assert.ok(line, `README block "${name}" printed no report:\n${stdout}`);
  return JSON.parse(line.slice(MARK.length));
}

/** What every block must leave: a valid history, shorter in tokens and messages, the newest message yours. */
function assertCompacted(r) {
  assert.ok(r.valid, `the history is not valid: ${JSON.stringify(r.problems)}`);
  assert.deepEqual(r.pending, []);
  assert.ok(r.tokensAfter < r.tokensBefore, `not shorter: ${r.tokensBefore} → ${r.tokensAfter} tokens`);
  assert.ok(r.countAfter < r.countBefore, `no fewer messages: ${r.countBefore} → ${r.countAfter}`);
  assert.ok(r.sameLastMessage, "the newest message should come back as the caller's own object");
  assert.equal(r.summaries.length, 1, "one summary message");
}

const blocks = testedBlocks();
const small = (code) => replaceOnce(code, "contextWindow: 128_000", "contextWindow: 16_000");

test("README quick start: the summary from the host's LLM", async () => {
  assert.ok(blocks["quick-start"], "README.md has no `<!-- tested: quick-start -->` block");
  const r = await run("quick-start", small(blocks["quick-start"]), ["answer", API_KEY]);
  assertCompacted(r);
  assert.ok(r.llmCalls >= 1);
  assert.ok(r.summaries[0].includes("LOCAL SUMMARY"), "the LLM's summary should be spliced in");
});

test("README quick start: the offline digest when the LLM call fails", async () => {
  const r = await run("quick-start", small(blocks["quick-start"]), ["fail", API_KEY]);
  assertCompacted(r);
  assert.ok(r.llmCalls >= 1);
  assert.ok(!r.summaries[0].includes("LOCAL SUMMARY"), "the digest should stand in for the failed call");
});

test("README compact + openai_summarizer, against the local test server", async () => {
  assert.ok(blocks.compact, "README.md has no `<!-- tested: compact -->` block");
  const server = await startLlmServer();
  try {
    const code = replaceOnce(small(blocks.compact), `"https://api.openai.com/v1"`, JSON.stringify(`${server.url}/ok/v1`));
    const r = await run("compact", code, ["answer", API_KEY], { declareHistory: true });
    assertCompacted(r);
    assert.equal(r.llmCalls, 0, "compact called the client, not the harness's myLLM");
    assert.ok(r.summaries[0].includes(SUMMARY_PREFIX), "the server's summary should be spliced in");
    assert.ok(server.requests.length >= 1);
    for (const request of server.requests) {
      assert.equal(request.path, "/ok/v1/chat/completions");
      assert.equal(request.headers.authorization, `Bearer ${API_KEY}`);
      assert.equal(request.body.model, "gpt-4.1-mini");
    }
  } finally {
    await server.stop();
  }
});
