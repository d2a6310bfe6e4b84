// The assertions on the summarizer clients and `compact`, shared by every runtime (like checks.mjs for
// the main scenario): the report of client-scenario.mjs run inside the runtime, plus what the local
// test server recorded receiving from it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { API_KEY, PROMPT } from "./client-scenario.mjs";
import { SUMMARY_PREFIX } from "./llm-server.mjs";

const value = (c, what) => {
  assert.ok(c, `${what}: not run`);
  assert.ok(c.ok, `${what} threw: ${JSON.stringify(c.error, null, 2)}`);
  return c.value;
};
const failure = (c, what) => {
  assert.ok(c, `${what}: not run`);
  assert.ok(!c.ok, `${what} should have failed, got ${JSON.stringify(c.value)}`);
  assert.equal(c.error.isError, true, "an Error");
  return c.error;
};

/** `produce()` runs the scenario in the runtime; resolves to `{ report, requests }`. */
export function checkClient(runtime, produce) {
  describe(runtime, () => {
    let out;
    it("runs the client scenario against the local test server", async () => {
      out = await produce();
    });
    const check = (name, fn) => it(name, (t) => (out ? fn(out.report.cases, out.requests) : t.skip("the scenario did not run")));
    const received = (requests, path) => requests.filter((r) => r.path === path);

    check("openai_summarizer POSTs the prompt to …/chat/completions with the key and extra headers, and returns the text", (cases, requests) => {
      const text = value(cases["openai: summary text"], "openai summarizer");
      assert.ok(text.startsWith(SUMMARY_PREFIX) && text.includes("model test-model, max_tokens 321"), text);
      const [req] = received(requests, "/ok/v1/chat/completions");
      assert.ok(req, `requests: ${requests.map((r) => r.path)}`);
      assert.equal(req.method, "POST");
      assert.equal(req.headers.authorization, `Bearer ${API_KEY}`);
      assert.equal(req.headers["x-extra"], "yes");
      assert.match(req.headers["content-type"], /^application\/json/);
      assert.deepEqual(req.body, {
        model: "test-model",
        max_tokens: PROMPT.maxOutputTokens,
        messages: [{ role: "system", content: PROMPT.system }, { role: "user", content: PROMPT.user }],
      });
    });

    check("anthropic_summarizer POSTs a Messages request to …/v1/messages and returns the text", (cases, requests) => {
      const text = value(cases["anthropic: summary text"], "anthropic summarizer");
      assert.ok(text.includes("model claude-test, max_tokens 321"), text);
      const [req] = received(requests, "/ok/v1/messages");
      assert.ok(req, `requests: ${requests.map((r) => r.path)}`);
      assert.equal(req.headers["x-api-key"], API_KEY);
      assert.equal(req.headers["anthropic-version"], "2023-06-01");
      assert.deepEqual(req.body, {
        model: "claude-test", max_tokens: 321, system: PROMPT.system, messages: [{ role: "user", content: PROMPT.user }],
      });
    });

    check("an HTTP error carries the status, and the key the server echoed back is redacted", (cases) => {
      for (const [name, status] of [["openai: HTTP 401", 401], ["anthropic: HTTP 529", 529]]) {
        const e = failure(cases[name], name);
        assert.deepEqual({ name: e.name, code: e.code, path: e.path, status: e.status },
          { name: "CtxfoldError", code: "SUMMARIZER_HTTP", path: "response.status", status });
        // The server's error body quoted the credentials: the message keeps the quote, without the key.
        assert.match(e.message, /Request refused for credentials (Bearer )?\[redacted\]/);
        assert.ok(!e.everything.includes(API_KEY), `the key leaked: ${e.everything}`);
      }
    });

    check("a body that is not JSON, a timeout and a refused connection have their own codes", (cases) => {
      const notJson = failure(cases["openai: not JSON"], "not JSON");
      assert.deepEqual([notJson.code, notJson.status], ["SUMMARIZER_RESPONSE", 200]);
      const timeout = failure(cases["openai: timeout"], "timeout");
      assert.equal(timeout.code, "SUMMARIZER_TIMEOUT", timeout.message);
      assert.match(timeout.message, /within 300 ms/);
      // Headers came, the body did not: the same code, and what the body's read threw kept as the cause.
      const stalled = failure(cases["openai: a body that stalls"], "stalled body");
      assert.equal(stalled.code, "SUMMARIZER_TIMEOUT", stalled.message);
      assert.ok(stalled.cause, `the read's own error is the cause: ${JSON.stringify(stalled)}`);
      const refused = failure(cases["openai: connection refused"], "connection refused");
      assert.equal(refused.code, "SUMMARIZER_NETWORK", refused.message);
    });

    check("a misbehaving (polyfilled) fetch gives SUMMARIZER_NETWORK, and the module keeps working", (cases) => {
      for (const name of ["a fetch that resolves to a non-Response", "a fetch that rejects with a string"]) {
        assert.equal(failure(cases[name], name).code, "SUMMARIZER_NETWORK");
      }
      assert.equal(value(cases["the module still works afterwards"], "estimate after"), true);
    });

    check("a fetch polyfill's own response (not a Response of this realm) is read like one", (cases) => {
      assert.equal(value(cases["a fetch polyfill's own response"], "polyfilled response"), "from the polyfill");
    });

    check("bad configuration and a bad prompt are INVALID_OPTION / INVALID_INPUT with the path", (cases) => {
      const config = failure(cases["openai: bad configuration"], "bad configuration");
      assert.deepEqual([config.code, config.path], ["INVALID_OPTION", "options.baseUrl"]);
      const prompt = failure(cases["openai: bad prompt"], "bad prompt");
      assert.deepEqual([prompt.code, prompt.path], ["INVALID_INPUT", "prompt.user"]);
      const noSummarize = failure(cases["compact: no summarize"], "compact without summarize");
      assert.deepEqual([noSummarize.code, noSummarize.path], ["INVALID_OPTION", "options.summarize"]);
    });

    check("no error anywhere in the report contains the API key", (cases) => {
      assert.ok(!JSON.stringify(cases).includes(API_KEY));
    });

    check("compact with openai_summarizer splices the model's summary in", (cases) => {
      const c = value(cases["compact: with the model"], "compact");
      assert.equal(c.compacted, true);
      assert.ok(c.tokensAfter < c.tokensBefore, `${c.tokensBefore} -> ${c.tokensAfter}`);
      assert.ok(c.summaryText?.includes(SUMMARY_PREFIX), `summary: ${c.summaryText}`);
      assert.deepEqual(c.jobs, c.planJobIds.map((id) => ({ id, source: "llm", error: null })));
      assert.ok(c.keptSameObjects > 0 && c.hasAudit);
    });

    check("compact falls back to the offline digest when the model fails, and reports why", (cases) => {
      const c = value(cases["compact: model fails, offline digest"], "compact with a failing model");
      assert.equal(c.compacted, true);
      assert.ok(c.tokensAfter < c.tokensBefore);
      assert.ok(c.summaryText?.includes("Offline digest"), `summary: ${c.summaryText}`);
      assert.equal(c.jobs.length, 1);
      assert.equal(c.jobs[0].source, "offline");
      assert.deepEqual([c.jobs[0].error?.code, c.jobs[0].error?.status], ["SUMMARIZER_HTTP", 500]);
    });

    check("compact with fallback \"truncate\" drops the range with a notice when the model fails", (cases) => {
      const c = value(cases["compact: model fails, truncated with a notice"], "compact with truncate");
      assert.equal(c.compacted, true);
      assert.ok(c.tokensAfter < c.tokensBefore);
      assert.match(c.summaryText ?? "", /Messages #\d+-#\d+ were removed to make room, without a summary/);
      assert.deepEqual([c.jobs[0].source, c.jobs[0].error?.code], ["truncated", "SUMMARIZER_HTTP"]);
    });

    check("compact with fallback \"none\" rethrows the summarizer's own error object", (cases) => {
      assert.deepEqual(value(cases["compact: fallback none passes the host's error through"], "fallback none"), { threw: true, same: true });
    });

    check("compact returns the objects it was called with, even if the host's array changes meanwhile", (cases) => {
      assert.deepEqual(value(cases["compact: the host's array changes while the summary is written"], "compact with a changing array"),
        { keptAreInputObjectsInOrder: true, lastIsTheOriginalLast: true });
    });

    check("compact runs several jobs at most `concurrency` at a time, reports progress, and keeps the plan's order", (cases) => {
      const c = value(cases["compact: several jobs, two at a time, with progress"], "compact with several jobs");
      assert.ok(c.jobs >= 3, `${c.jobs} jobs`);
      assert.equal(c.most, 2);
      assert.deepEqual(c.progressDone, Array.from({ length: c.jobs }, (_, i) => i + 1));
      assert.deepEqual(c.progressTotals, [c.jobs]);
      assert.equal(c.jobsInPlanOrder, true);
      assert.equal(c.summariesInPlanOrder, true);
    });

    check("compact prunes first, then plans on what is left", (cases) => {
      const c = value(cases["compact: prunes first"], "compact pruning first");
      assert.ok(c.pruned > 0, `${c.pruned} outputs pruned`);
      assert.deepEqual({ ...c, pruned: true }, { pruned: true, samePruned: true, tokensBeforeIsTheEstimate: true, planMadeAfterPruning: true, smaller: true });
    });

    check("compact asks for a revision when a summary lost facts, and keeps it only when it keeps more", (cases) => {
      const taken = value(cases["compact: a revision round restores the facts a summary lost"], "revision taken");
      assert.ok(taken.revisionPrompts >= 1 && taken.revisionPromptListsFacts, JSON.stringify(taken));
      assert.equal(taken.calls, taken.jobs.length * 2, "one revision round per job by default");
      assert.ok(taken.jobs.every((j) => j.source === "llm" && j.revisions === 1), JSON.stringify(taken.jobs));
      assert.equal(taken.summaryHasRevisedText, true);
      const refused = value(cases["compact: a revision that keeps no more is not taken"], "revision refused");
      assert.ok(refused.jobs.every((j) => j.revisions === 0) && !refused.summaryHasRevisedText, JSON.stringify(refused));
      assert.ok(refused.missing > taken.missing, `missing ${refused.missing} without, ${taken.missing} with the revision`);
      const once = value(cases["compact: maxRevisions 0 asks once"], "maxRevisions 0");
      assert.deepEqual({ calls: once.calls, revisionPrompts: once.revisionPrompts }, { calls: once.jobs.length, revisionPrompts: 0 });
      const failed = value(cases["compact: a failed revision leaves the first summary"], "revision failed");
      assert.ok(failed.jobs.every((j) => j.source === "llm" && j.revisions === 0 && /revision failed/.test(j.revisionError?.message)), JSON.stringify(failed.jobs));
      const bad = cases["compact: maxRevisions out of range"];
      assert.ok(!bad.ok && bad.error.code === "INVALID_OPTION" && bad.error.path === "options.maxRevisions", JSON.stringify(bad));
    });

    check("openai_summarizer sends max_completion_tokens to reasoning models and the host's extra body fields", (cases, requests) => {
      const text = value(cases["openai: a reasoning model gets max_completion_tokens and the extra body fields"], "o3-mini");
      assert.ok(text.endsWith(`(max_completion_tokens ${PROMPT.maxOutputTokens})`), text);
      const [req] = received(requests, "/openai/v1/chat/completions").filter((r) => r.body.model === "o3-mini");
      assert.deepEqual(req.body, {
        model: "o3-mini", max_completion_tokens: PROMPT.maxOutputTokens, reasoning_effort: "low",
        messages: [{ role: "system", content: PROMPT.system }, { role: "user", content: PROMPT.user }],
      });
      const refused = failure(cases["openai: max_tokens forced on a reasoning model is refused as OpenAI refuses it"], "gpt-5 with max_tokens");
      assert.deepEqual({ code: refused.code, status: refused.status }, { code: "SUMMARIZER_HTTP", status: 400 });
      assert.match(refused.message, /Use 'max_completion_tokens' instead/);
      const anthropic = value(cases["anthropic: extra body fields beside max_tokens"], "anthropic with body");
      assert.ok(anthropic.endsWith(`(max_tokens ${PROMPT.maxOutputTokens})`), anthropic);
      const [areq] = received(requests, "/anthropic/v1/messages");
      assert.deepEqual(areq.body, { model: "claude-test", max_tokens: PROMPT.maxOutputTokens, system: PROMPT.system, temperature: 0, messages: [{ role: "user", content: PROMPT.user }] });
    });

    check("a failing summarizer is never silent: a warning, onFallback, and an error that serializes with its message", (cases) => {
      const codes = { "HTTP 400": "SUMMARIZER_HTTP", "HTTP 401": "SUMMARIZER_HTTP", "HTTP 500": "SUMMARIZER_HTTP", "connection refused": "SUMMARIZER_NETWORK", timeout: "SUMMARIZER_TIMEOUT" };
      for (const [name, code] of Object.entries(codes)) {
        const c = value(cases[`compact: a summarizer failing with ${name} is heard of`], name);
        assert.ok(c.jobs > 0 && c.sources.every((s) => s === "offline"), `${name}: ${c.sources}`);
        assert.deepEqual(c.heard.map((h) => h.code), Array(c.jobs).fill(code), `${name}: onFallback`);
        assert.ok(c.heard.every((h) => h.source === "offline" && h.sameError), `${name}: ${JSON.stringify(c.heard)}`);
        assert.equal(c.warnings.length, c.jobs, `${name}: warnings ${JSON.stringify(c.warnings)}`);
        assert.ok(c.warnings.every((w) => w.includes(code)), `${name}: ${c.warnings}`);
        assert.ok(c.serialized.includes(`"message":"ctxfold: ${code}`), `${name}: ${c.serialized}`);
        assert.ok(!c.serialized.includes(API_KEY) && !c.warnings.join().includes(API_KEY), `${name}: the key leaked`);
      }
      // What fetch threw travels as the cause (Node's says why: ECONNREFUSED, the host and the port).
      const refused = value(cases["compact: a summarizer failing with connection refused is heard of"], "refused");
      assert.notEqual(refused.causeText, "null", "the error keeps fetch's own error as its cause");
      if (runtime.startsWith("Node")) {
        assert.match(refused.warnings[0], /ECONNREFUSED 127\.0\.0\.1:2/, refused.warnings[0]);
      }
      const bad = cases["compact: onFallback must be a function"];
      assert.ok(!bad.ok && bad.error.code === "INVALID_OPTION" && bad.error.path === "options.onFallback", JSON.stringify(bad));
    });

    check("compact under the limit compacts nothing and never calls the summarizer", (cases) => {
      const c = value(cases["compact: not needed"], "compact not needed");
      assert.deepEqual({ compacted: c.compacted, jobs: c.jobs, sameObjects: c.sameObjects }, { compacted: false, jobs: 0, sameObjects: true });
    });

    check("the caller's messages are not mutated", () => {
      assert.equal(out.report.inputUntouched, true);
    });
  });
}
