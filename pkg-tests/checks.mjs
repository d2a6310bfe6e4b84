// The assertions, shared by every runtime: each test file produces a report (scenario.mjs run inside its
// runtime) and hands it here, so Node ESM, Node CommonJS and workerd are held to exactly the same checks.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HOSTILE } from "./scenario.mjs";

const CONVERSATIONS = { tau: "tau-bench airline", swe: "mini-swe-agent (long)" };

/** A step of the report that must have succeeded; a thrown error is shown in full. */
function ok(step, what) {
  assert.ok(step, `${what}: not run`);
  assert.ok(step.ok, `${what} threw: ${JSON.stringify(step.error, null, 2)}`);
  return step.value;
}

/** Registers the checks for one runtime; `produceReport` runs the scenario there and returns its report. */
export function checkRuntime(runtime, produceReport) {
  describe(runtime, () => {
    // Producing the report is a test of its own (a runtime that fails to start counts as a failure in the
    // summary, where a failing before() hook would only cancel); the checks after it skip without a report.
    let report;
    it("runs the scenario in the runtime and reports", async () => {
      report = await produceReport();
    });
    const check = (name, fn) => it(name, (t) => (report ? fn() : t.skip("no report: the scenario did not run")));

    for (const [key, label] of Object.entries(CONVERSATIONS)) {
      const conv = () => report.conversations[key];

      check(`${label}: estimate total is requestOverhead + the sum of perMessage, and > 0`, () => {
        const e = ok(conv().estimate, "estimate");
        assert.equal(e.perMessageLength, conv().messageCount, "one perMessage entry per message");
        assert.equal(e.requestOverhead, 3, "the reply priming");
        assert.equal(e.total, e.requestOverhead + e.perMessageSum);
        assert.ok(e.total > 0, `total ${e.total}`);
        assert.equal(e.format, "openai-chat");
      });

      if (key === "swe") {
        check(`${label}: prune clears old tool outputs, keeps the count and the unchanged objects`, () => {
          const p = ok(conv().prune, "prune");
          assert.ok(p.prunedCount > 0, "something was pruned");
          assert.equal(p.messageCountAfter, conv().messageCount);
          assert.ok(p.unchangedAreSameObjects, "unchanged messages are the input objects (===)");
          assert.ok(p.changedAreCopies, "pruned messages are copies, not the input objects");
          assert.ok(p.prunedAreToolResults, "every pruned entry is a tool result with its tool_call_id");
          assert.ok(p.inputUntouched, "the input array and objects are not mutated");
          assert.ok(p.tokensAfter < p.tokensBefore, `tokens ${p.tokensBefore} -> ${p.tokensAfter}`);
          assert.ok(p.idempotent, "pruning the pruned messages again changes nothing");
        });
      }

      check(`${label}: plan_compaction with a small window is needed, with one job`, () => {
        const plan = ok(conv().plan, "plan_compaction");
        assert.equal(plan.needed, true, `needed (reason: ${plan.reason})`);
        assert.equal(plan.jobs.length, 1, `jobs: ${JSON.stringify(plan.jobs)}`);
        const [job] = plan.jobs;
        assert.ok(job.systemLength > 0 && job.userLength > 0, `prompt lengths ${job.systemLength}/${job.userLength}`);
        assert.ok(job.maxOutputTokens > 0, `maxOutputTokens ${job.maxOutputTokens}`);
        assert.equal(plan.fingerprintType, "string");
        assert.ok(plan.fingerprintLength > 0, "fingerprint is not empty");
        assert.ok(plan.deterministic, "planning twice gives byte-identical plans");
      });

      check(`${label}: apply_summary with summarize_offline shrinks and keeps the history valid`, () => {
        const plan = ok(conv().plan, "plan_compaction");
        const a = ok(conv().apply, "summarize_offline + apply_summary");
        assert.deepEqual(a.summaryKeys, plan.jobs.map((j) => j.id), "one summary per job id");
        assert.ok(a.summariesNonEmpty, "summaries are non-empty strings");
        assert.ok(a.tokensAfter < a.tokensBefore, `tokens ${a.tokensBefore} -> ${a.tokensAfter}`);
        assert.deepEqual(a.toolPairingProblems, [], "every tool call has exactly one result after it; no orphans");
        assert.ok(a.systemCount > 0 && a.systemsKeptSameObjectsInOrder, "system messages kept as the same objects");
        assert.ok(a.inputUntouched, "the input is not mutated");
        assert.ok(a.hasAudit && a.warningsIsArray, "result has audit and warnings[]");
      });

      check(`${label}: quality_probe asks about the summarized messages`, () => {
        const { probe } = ok(conv().apply, "summarize_offline + apply_summary");
        assert.ok(probe.count > 0 && probe.count <= 5, `${probe.count} questions`);
        assert.deepEqual({ ...probe, count: 0 }, { count: 0, blanked: true, fromSummarized: true, deterministic: true });
      });
    }

    check("estimate: an unknown model is said to be guessed, naming the profile; the budget gives tokens beside the ratio", () => {
      const c = ok(report.estimateCases.unknownModel, "estimate with an unknown model");
      assert.equal(c.tokenizer, "o200k");
      assert.equal(c.warnings.length, 1);
      assert.match(c.warnings[0], /"llama-3\.1-70b" is not a model ctxfold knows; counting with the o200k profile/);
      assert.equal(c.knownWarnings, null);
      assert.equal(c.budget.tokens, c.total);
      assert.equal(c.budget.used, c.total / c.budget.limit);
    });

    check("estimate: plain ASCII read 16 bytes at a time counts the same as byte by byte", () => {
      const c = ok(report.estimateCases.vectorScan, "estimate of generated texts");
      assert.equal(c.texts, 64);
      assert.deepEqual(c.differing, []);
    });

    check("estimate: the host's counter counts every text", () => {
      const c = ok(report.estimateCases.counter, "estimate with counter");
      assert.equal(c.counted, true);
      assert.deepEqual(c.textsSeen, ["hello", "hi there"]);
      // 4 tokens of framing per message (3 + the role), 3 for the reply.
      assert.deepEqual(c.perMessage, [5 + 4, 8 + 4]);
      assert.equal(c.total, 9 + 12 + 3);
      assert.ok(c.secondEqualsFirst);
      assert.ok(c.differsFromProfile, "the counter's counts are used, not the profile's");
    });

    check("estimate: what a counter throws is thrown back unchanged; NaN is INVALID_OPTION; the next call works", () => {
      const { counterThrows, counterNaN } = report.estimateCases;
      assert.ok(counterThrows.sameError, "the very error object the counter threw");
      assert.ok(counterThrows.recovered);
      assert.deepEqual({ code: counterNaN.error?.code, path: counterNaN.error?.path }, { code: "INVALID_OPTION", path: "options.counter" }, counterNaN.error?.message);
      assert.ok(counterNaN.recovered);
    });

    for (const { name, code, path, says } of HOSTILE) {
      check(`hostile input: ${name} throws ${code} at ${path}, changes nothing, and the next call works`, () => {
        const c = report.errors[name];
        assert.ok(c.threw, "it threw");
        const { isError, message } = c.error;
        assert.deepEqual({ isError, code: c.error.code, path: c.error.path }, { isError: true, code, path }, `message: ${message}`);
        assert.doesNotMatch(message, /unreachable|RuntimeError|panicked/, "a clean error, not a trap");
        if (says) assert.match(message, says, "the message says what is wrong");
        assert.ok(c.unchanged, "the arguments are unchanged");
        assert.ok(c.recovered, "a valid estimate() right after the error still works");
      });
    }
  });
}
