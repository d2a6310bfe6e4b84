// `npm run eval -- --quick --retest` end to end against the local model (scripts/local-model.mjs): the run completes and
// its report is whole, and replays from its cache. No quality threshold: what the model answers is measured, not
// asserted.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const CONDITIONS = ["original", "ctxfold", "plain", "truncation", "opencode"];

test("the quick eval runs against the local model and writes a whole report", () => {
  const scratch = mkdtempSync(join(tmpdir(), "ctxfold-eval-"));
  try {
    const out = join(scratch, "report.json");
    const cache = join(scratch, "cache");
    const run = (file) => spawnSync(process.execPath, [join(root, "scripts", "eval", "run.mjs"), "--quick", "--retest", "--cache", cache, "--out", file], { cwd: root, encoding: "utf8" });
    const r = run(out);
    assert.equal(r.status, 0, r.stderr || r.stdout);
    const report = JSON.parse(readFileSync(out, "utf8"));
    assert.ok(report.cache.misses > 0 && report.cache.hits >= 0, JSON.stringify(report.cache));
    assert.deepEqual(report.conversations.map((c) => c.group), ["toolbench", "kdconv-zh"], "one agent run and one chat");
    for (const c of report.conversations) {
      assert.ok(c.questions.length > 0, `${c.id}: questions`);
      assert.ok(c.samePlan, `${c.id}: compact summarized the range the questions came from`);
      for (const cond of CONDITIONS) assert.equal(c.conditions[cond].valid, true, `${c.id}: ${cond} output is valid`);
      for (const cond of ["ctxfold", "plain", "opencode"]) {
        const { compacted, jobs, audit } = c.conditions[cond];
        assert.ok(compacted && jobs.length > 0, `${c.id}: ${cond} compacted`);
        // Every job went through the model, or its fallback is reported with the reason.
        for (const job of jobs) assert.ok(job.source === "llm" || (job.source === "offline" && job.error?.code), `${c.id}: ${cond} ${JSON.stringify(job)}`);
        for (const job of jobs) assert.ok(Number.isInteger(job.revisions) && job.revisions <= (cond === "ctxfold" ? 1 : 0), `${c.id}: ${cond} revisions`);
        assert.ok(audit && Number.isInteger(audit.checked) && Number.isInteger(audit.missing), `${c.id}: ${cond} audit`);
      }
      for (const q of c.questions) {
        assert.ok(q.question.includes("____") && q.answer, `${c.id}: question`);
        for (const cond of CONDITIONS) {
          const a = q.answers[cond];
          assert.ok(a && (a.na || typeof a.text === "string" || a.error), `${c.id}: ${cond} answer ${JSON.stringify(a)}`);
        }
        // --retest: the original's question asked again in other words, wherever the original was asked.
        const again = q.answers.retest;
        if (!q.answers.original.na) assert.ok(again && (typeof again.text === "string" || again.error), `${c.id}: retest ${JSON.stringify(again)}`);
      }
    }
    assert.equal(report.overall.questions, report.conversations.reduce((n, c) => n + c.questions.length, 0));
    const { selfAgreement } = report.overall;
    assert.ok(report.retest && (selfAgreement === null || (selfAgreement >= 0 && selfAgreement <= 1)), `selfAgreement ${selfAgreement}`);
    assert.match(r.stdout, /overall/);

    // Again with the cache: the model is asked nothing, and every summary and answer is the one stored.
    const again = join(scratch, "again.json");
    const r2 = run(again);
    assert.equal(r2.status, 0, r2.stderr || r2.stdout);
    const second = JSON.parse(readFileSync(again, "utf8"));
    assert.deepEqual(second.cache, { dir: cache, hits: report.cache.hits + report.cache.misses, misses: 0 });
    const answers = (rep) => JSON.stringify(rep.conversations.map((c) => [c.conditions.ctxfold.text, c.questions.map((q) => q.answers)]));
    assert.equal(answers(second), answers(report));

    // Replayed from the report and the cache, no model started: the same run. With a setting changed, a history the
    // model never read is not asked about, and says so; the summaries are still the model's.
    const replay = (file, ...extra) =>
      spawnSync(process.execPath, [join(root, "scripts", "eval", "run.mjs"), "--replay", out, "--cache", cache, "--out", file, ...extra], { cwd: root, encoding: "utf8" });
    const replayed = join(scratch, "replayed.json");
    const r3 = replay(replayed);
    assert.equal(r3.status, 0, r3.stderr || r3.stdout);
    const third = JSON.parse(readFileSync(replayed, "utf8"));
    assert.equal(third.replay, out);
    assert.deepEqual(third.cache, { dir: cache, hits: second.cache.hits, misses: 0 });
    assert.equal(answers(third), answers(report));
    assert.deepEqual(third.overall, report.overall);
    const changed = join(scratch, "changed.json");
    const r4 = replay(changed, "--options", JSON.stringify({ keepFacts: false }));
    assert.equal(r4.status, 0, r4.stderr || r4.stdout);
    const fourth = JSON.parse(readFileSync(changed, "utf8"));
    for (const [k, c] of fourth.conversations.entries()) {
      for (const job of c.conditions.ctxfold.jobs) assert.equal(job.source, "llm", `${c.id}: the summary came from the cache`);
      const before = report.conversations[k];
      for (const [i, q] of c.questions.entries()) {
        // An answer the model gave before about the same history (ctxfold's, or another condition's), else none.
        const a = q.answers.ctxfold;
        const given = Object.values(before.questions[i].answers).map((x) => JSON.stringify(x));
        assert.ok(given.includes(JSON.stringify(a)) || (a.na && /not in the cache/.test(a.reason)), `${c.id}: ${JSON.stringify(a)}`);
        assert.deepEqual(q.answers.original, before.questions[i].answers.original);
      }
    }
    assert.ok(fourth.cache.misses > 0, "a changed history is not asked about");
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test("without a model, ctxfold's history still holds answers that a summary keeping nothing lost", () => {
  const scratch = mkdtempSync(join(tmpdir(), "ctxfold-eval-"));
  try {
    const out = join(scratch, "report.json");
    const args = [join(root, "scripts", "eval", "run.mjs"), "--summaries", "minimal", "--per-group", "2", "--out", out];
    const r = spawnSync(process.execPath, args, { cwd: root, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr || r.stdout);
    const { overall, conversations } = JSON.parse(readFileSync(out, "utf8"));
    assert.ok(conversations.length >= 6, "conversations");
    for (const c of conversations) for (const cond of CONDITIONS) assert.equal(c.conditions[cond].valid, true, `${c.id}: ${cond} output is valid`);
    // The summary keeps nothing: what ctxfold's history holds, its quotes of the user and its restored facts hold.
    assert.ok(overall.present.ctxfold > overall.present.plain, JSON.stringify(overall.present));
    assert.ok(overall.present.ctxfold > overall.present.truncation, JSON.stringify(overall.present));
    assert.ok(conversations.every((c) => c.questions.every((q) => q.answers.ctxfold.na)), "no question is asked without a model");
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test("--conversations runs those of the selection as the whole selection has them, and refuses others", () => {
  const scratch = mkdtempSync(join(tmpdir(), "ctxfold-eval-"));
  try {
    const run = (name, ...flags) => {
      const out = join(scratch, `${name}.json`);
      const args = [join(root, "scripts", "eval", "run.mjs"), "--summaries", "minimal", "--per-group", "2", "--out", out, ...flags];
      const r = spawnSync(process.execPath, args, { cwd: root, encoding: "utf8" });
      return { r, report: r.status === 0 ? JSON.parse(readFileSync(out, "utf8")) : undefined };
    };
    const whole = run("whole").report;
    const picked = [whole.conversations.at(-1).id, whole.conversations[0].id];
    const { r, report } = run("some", "--conversations", picked.join(","));
    assert.equal(r.status, 0, r.stderr || r.stdout);
    assert.deepEqual(report.conversations.map((c) => c.id).sort(), [...picked].sort());
    for (const c of report.conversations) {
      const same = whole.conversations.find((w) => w.id === c.id);
      assert.equal(c.contextWindow, same.contextWindow, `${c.id}: budget`);
      assert.deepEqual(c.questions.map((q) => q.question), same.questions.map((q) => q.question), `${c.id}: questions`);
    }
    const refused = run("none", "--conversations", `${picked[0]},no-such-conversation`).r;
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /--conversations: not in this selection .*: no-such-conversation/);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test("a question whose quoted words hold another value elsewhere is ambiguous, and is not asked", async () => {
  const { ambiguous } = await import("../scripts/eval/questions.mjs");
  const listing = [
    "Here are the options:\n   - Flight Numbers: HAT069 (JFK to SEA) & HAT011 (SEA to SFO)\n     - Price: $123\n" +
      "   - Flight Numbers: HAT069 (JFK to SEA) & HAT274 (SEA to SFO)\n     - Price: $321",
    "Your refund of $2,787 is on its way.\nLooks like a rounding issue here: https://example.com/x.py#L14",
  ];
  // Two lines that differ only in the blank's value: either answer would be right.
  assert.equal(ambiguous("- Flight Numbers: HAT069 (JFK to SEA) & ____ (SEA to SFO)", "HAT011", listing), true);
  // A line of its own, a value with marks in it, a blank that ends the quote, the line before joined by " / ".
  assert.equal(ambiguous("- Flight Numbers: HAT069 (JFK to SEA) & HAT011 (SEA to ____)", "SFO", listing), false);
  assert.equal(ambiguous("Your refund of $____ is on its way.", "2,787", listing), false);
  assert.equal(ambiguous("Looks like a rounding issue here: ____", "https://example.com/x.py#L14", listing), false);
  assert.equal(ambiguous("Here are the options: / - Flight Numbers: HAT069 (JFK to SEA) & ____ (SEA to SFO)", "HAT011", listing), false);
  assert.equal(ambiguous("- Price: $____", "123", listing), true);

  // The selection asks none: every question of a no-model run is checked against its conversation.
  const scratch = mkdtempSync(join(tmpdir(), "ctxfold-eval-"));
  try {
    const out = join(scratch, "report.json");
    const args = [join(root, "scripts", "eval", "run.mjs"), "--summaries", "minimal", "--groups", "tau-bench-airline", "--per-group", "4", "--out", out];
    const r = spawnSync(process.execPath, args, { cwd: root, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr || r.stdout);
    const { readCorpus } = await import("./corpus.mjs");
    const { fullText } = await import("../scripts/eval/messages.mjs");
    const corpus = new Map(readCorpus("tau-bench-airline.jsonl").map((c) => [c.id, c.messages]));
    const { conversations } = JSON.parse(readFileSync(out, "utf8"));
    for (const c of conversations) {
      for (const q of c.questions) {
        const quoted = q.question.match(/wrote: "([\s\S]*)" What is the missing/)[1];
        assert.equal(ambiguous(quoted, q.answer, corpus.get(c.id).map(fullText)), false, `${c.id}: ${q.question}`);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test("a tool's output is named by the call it answers, also where a run uses a call id again", async () => {
  const { sourceOf } = await import("../scripts/eval/questions.mjs");
  const { answeredCalls } = await import("../scripts/eval/messages.mjs");
  const { transcript } = await import("../scripts/eval/transcript.mjs");
  const call = (name, args) => ({ role: "assistant", content: "", tool_calls: [{ id: "call_0", type: "function", function: { name, arguments: args } }] });
  const messages = [
    call("get_reservation_details", '{"reservation_id":"JG7FMM"}'),
    { role: "tool", tool_call_id: "call_0", content: '{"reservation_id": "JG7FMM", "origin": "MCO"}' },
    call("search_direct_flight", '{"origin":"MCO"}'),
    { role: "tool", tool_call_id: "call_0", content: '[{"flight_number": "HAT017"}]' },
  ];
  const answered = answeredCalls(messages);
  assert.match(sourceOf(messages, 1, "JG7FMM", answered).who, /^the output of the tool `get_reservation_details`, after the assistant called `get_reservation_details`/);
  assert.match(sourceOf(messages, 3, "HAT017", answered).who, /^the output of the tool `search_direct_flight`, after the assistant called `search_direct_flight`/);
  // The model reads the same names.
  const results = transcript(messages).split("\n\n").filter((b) => b.startsWith("tool result"));
  assert.deepEqual(results.map((b) => b.slice(0, b.indexOf(":"))), ["tool result (get_reservation_details)", "tool result (search_direct_flight)"]);
});

test("an answer is in context beside two words its question quotes, bare without them", async () => {
  const { inContext, matches } = await import("../scripts/eval/match.mjs");
  const question = 'In the conversation, the tool wrote: "{"reservation_id": "____", "origin": "EWR", "destination": "DFW"}" What is the missing identifier (____)?';
  assert.equal(inContext('{"reservation_id": "5BGGWZ", "origin": "EWR", ...', "5BGGWZ", question), true);
  // The id written, but among others and without its record's words.
  const bare = "Facts:\n- HSR97W\n- 5BGGWZ\n- HTR26G";
  assert.equal(matches(bare, "5BGGWZ"), true);
  assert.equal(inContext(bare, "5BGGWZ", question), false);
  // Far from the words (over 100 characters away), or not written at all.
  assert.equal(inContext(`reservation origin ${"x ".repeat(80)}5BGGWZ`, "5BGGWZ", question), false);
  assert.equal(inContext("reservation origin EWR", "5BGGWZ", question), false);
  // CJK text has no spaces: its words are pairs of characters.
  const cloze = 'In the conversation, the assistant wrote: "她是1968年____月30日出生的" What is the missing number (____)?';
  assert.equal(inContext("今敏，她是1968年11月30日出生的。", "11", cloze), true);
  assert.equal(inContext("编号 11", "11", cloze), false);
});

test("the misses of ctxfold's history are told apart, and its retention is given without the model's noise", async () => {
  const { totals } = await import("../scripts/eval/report.mjs");
  const condition = { tokens: 50, valid: true, jobs: [], summaryMs: [] };
  const answer = (correct) => ({ text: "", correct });
  const question = (original, retest, ctxfold, present, inContext) => ({
    answers: { original: answer(original), retest: answer(retest), ctxfold: answer(ctxfold) },
    present: { ctxfold: present },
    inContext: { ctxfold: inContext },
  });
  const conversation = {
    tokens: 100,
    conditions: Object.fromEntries(CONDITIONS.map((cond) => [cond, condition])),
    questions: [
      question(true, true, true, true, true), // answered from both histories, and from the original again
      question(true, true, false, true, true), // misread: written beside its words
      question(true, false, false, true, false), // misread: written, away from its words; the original answers it once only
      question(true, false, false, false, false), // lost; the original answers it once only
      question(false, true, false, false, false), // the original does not answer it: no miss of ctxfold's
    ],
  };
  const t = totals([conversation]);
  assert.deepEqual(t.ctxfoldMissed, { total: 3, written: 2, inContext: 1 });
  assert.equal(t.retention.ctxfold, 0.25);
  // Of the four the original answers, two again in other words; of those two, ctxfold's history answers one.
  assert.deepEqual([t.selfAgreement, t.stable, t.stableRetention], [0.5, 2, 0.5]);
});

test("two runs are compared question by question, with the chance of so many answers going one way by luck", async () => {
  const { compareReports, comparisonText } = await import("../scripts/eval/compare.mjs");
  const { signTest } = await import("../scripts/eval/stats.mjs");
  // Exact binomial tails: 5 of 5 one way, 8 of 10, an even split, nothing changed.
  assert.equal(signTest(5, 0), 0.0625);
  assert.equal(signTest(2, 8), 0.109375);
  assert.equal(signTest(3, 3), 1);
  assert.equal(signTest(0, 0), null);
  const question = (words, original, ctxfold, present) => ({
    question: words, kind: "identifier", answer: "X1",
    answers: { original: { text: "X1", correct: original }, ctxfold: { text: ctxfold ? "X1" : "Y2", correct: ctxfold } },
    present: { ctxfold: present }, inContext: { ctxfold: present },
  });
  const report = (flips) => ({
    conversations: [
      { id: "a", questions: [question("q1", true, flips[0], true), question("q2", true, flips[1], flips[1])] },
      { id: "b", questions: [question("q1", true, flips[2], true), question("q3", false, false, false)] },
    ],
  });
  const base = report([false, true, false]);
  const next = report([true, false, true]);
  // Asked in one run only: not compared.
  next.conversations[1].questions.push(question("only in the new run", true, true, true));
  const c = compareReports(base, next);
  assert.equal(c.questions, 4);
  assert.equal(c.conversations, 2);
  assert.deepEqual([c.answered.ctxfold.before, c.answered.ctxfold.after, c.answered.ctxfold.gained, c.answered.ctxfold.lost], [1, 2, 2, 1]);
  assert.equal(c.answered.ctxfold.p, 1);
  assert.deepEqual([c.answered.original.gained, c.answered.original.lost], [0, 0]);
  assert.deepEqual([c.written.before, c.written.after, c.written.gained, c.written.lost], [3, 2, 0, 1]);
  assert.deepEqual([c.retention.before, c.retention.after], [1 / 3, 2 / 3]);
  // Only conditions the model was asked about are compared.
  assert.deepEqual(Object.keys(c.answered), ["original", "ctxfold"]);
  const text = comparisonText(c);
  assert.match(text, /\+ a \[identifier\] X1: "Y2" → "X1"/);
  assert.match(text, /- a \[identifier\] X1: "X1" → "Y2"/);
});

test("the retention's and the lead's intervals resample whole conversations, the same every time", async () => {
  const { totals } = await import("../scripts/eval/report.mjs");
  const condition = { tokens: 50, valid: true, jobs: [], summaryMs: [] };
  const answer = (correct) => ({ text: "", correct });
  const conversation = (kept, known) => ({
    tokens: 100,
    conditions: Object.fromEntries(CONDITIONS.map((cond) => [cond, condition])),
    questions: Array.from({ length: known }, (_, i) => ({ answers: { original: answer(true), ctxfold: answer(i < kept) } })),
  });
  const mixed = [[4, 5], [1, 5], [5, 5], [2, 4], [3, 5], [0, 3]].map(([kept, known]) => conversation(kept, known));
  const t = totals(mixed);
  const [low, high] = t.retentionInterval;
  assert.ok(low < t.retention.ctxfold && t.retention.ctxfold < high, `${low} < ${t.retention.ctxfold} < ${high}`);
  assert.ok(low >= 0 && high <= 1);
  // Truncation answers nothing here: the lead is ctxfold's share of all questions, in points.
  const [leadLow, leadHigh] = t.leadInterval;
  assert.ok(leadLow < t.leadOverTruncation && t.leadOverTruncation < leadHigh, `${leadLow} < ${t.leadOverTruncation} < ${leadHigh}`);
  assert.deepEqual(totals(mixed).retentionInterval, t.retentionInterval);
  // Conversations that all keep the same share leave no doubt to resample.
  assert.deepEqual(totals(Array.from({ length: 5 }, () => conversation(3, 4))).retentionInterval, [0.75, 0.75]);
  // Four conversations are too few to say anything of a fifth.
  assert.equal(totals(mixed.slice(0, 4)).retentionInterval, null);
});
