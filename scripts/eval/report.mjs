// Totals per group and overall, and the printed table.
import { clusterInterval } from "./stats.mjs";

export const CONDITIONS = ["original", "ctxfold", "plain", "truncation", "opencode"];
/** The compacted conditions, each made by `compact` through the model. */
export const COMPACTED = ["ctxfold", "plain", "opencode"];
/** Refusals of a summary by apply_summary (compact then used its fallback); any other job error is a failed call. */
const REFUSALS = new Set(["SUMMARY_EMPTY", "SUMMARY_NOT_SMALLER", "SUMMARY_MALFORMED"]);

const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
const round = (x, digits = 3) => (x === null ? null : Number(x.toFixed(digits)));

/** Whether the model answered question `q` right from the history of condition `cond`. */
export const correct = (q, cond) => q.answers[cond]?.correct === true;
/** Whether the model was asked `q` with that history (a run without a model marks every answer `na`). */
export const asked = (q, cond) => q.answers[cond] !== undefined && !q.answers[cond].na;

/** The totals of a list of conversation results (see run.mjs for their shape). */
export function totals(conversations) {
  const questions = conversations.flatMap((c) => c.questions);
  const answered = Object.fromEntries(CONDITIONS.map((cond) => [cond, questions.filter((q) => correct(q, cond)).length]));
  const askedCount = Object.fromEntries(CONDITIONS.map((cond) => [cond, questions.filter((q) => asked(q, cond)).length]));
  // The answer still written in the history (whatever the model made of it).
  const present = Object.fromEntries(CONDITIONS.map((cond) => [cond, questions.filter((q) => q.present?.[cond]).length]));
  // And beside the words its question quotes.
  const inContext = Object.fromEntries(CONDITIONS.map((cond) => [cond, questions.filter((q) => q.inContext?.[cond]).length]));
  const knownByOriginal = questions.filter((q) => correct(q, "original"));
  // The share of `qs` answered with `cond` (null for none).
  const shareAnswered = (qs, cond) => (qs.length ? round(qs.filter((q) => correct(q, cond)).length / qs.length) : null);
  // Of what the model could answer from the original history, the share it still answers from each shorter one.
  const retention = Object.fromEntries(
    ["ctxfold", "plain", "truncation", "opencode"].map((cond) => [cond, shareAnswered(knownByOriginal, cond)]),
  );
  // How far the retention and the lead over truncation can be trusted: their 95% intervals over the conversations,
  // each resampled whole.
  const counts = conversations.map((c) => {
    const known = c.questions.filter((q) => correct(q, "original"));
    const answeredWith = (cond) => c.questions.filter((q) => correct(q, cond)).length;
    return {
      known: known.length, kept: known.filter((q) => correct(q, "ctxfold")).length,
      questions: c.questions.length, ctxfold: answeredWith("ctxfold"), truncation: answeredWith("truncation"),
    };
  });
  // None for a run without a model, which answers nothing.
  const interval = (statistic, digits) => {
    const bounds = askedCount.ctxfold ? clusterInterval(counts, statistic) : null;
    return bounds && bounds.map((x) => round(x, digits));
  };
  const retentionInterval = interval((s) => s.kept / s.known, 3);
  const leadInterval = interval((s) => (100 * (s.ctxfold - s.truncation)) / s.questions, 1);
  // Of the same, those ctxfold's history does not answer: how many of them it still holds written, and beside the
  // words the question quotes. Those the model misread; the rest compaction lost.
  const missed = knownByOriginal.filter((q) => !correct(q, "ctxfold"));
  const ctxfoldMissed = {
    total: missed.length,
    written: missed.filter((q) => q.present?.ctxfold).length,
    inContext: missed.filter((q) => q.inContext?.ctxfold).length,
  };
  // With --retest: of the same, the share the model answers again from the original itself, asked in other words.
  const retested = knownByOriginal.filter((q) => q.answers.retest !== undefined);
  const selfAgreement = shareAnswered(retested, "retest");
  // Of those the original answers in both wordings (what the model knows from it, not what it hit once), the share
  // ctxfold's history answers: the retention with the model's own noise left out.
  const stable = retested.filter((q) => correct(q, "retest"));
  const stableRetention = shareAnswered(stable, "ctxfold");
  const jobs = { total: 0, llm: 0, refused: 0, failed: 0, revised: 0 };
  const summaryMs = [];
  const audit = { checked: 0, kept: 0, missing: 0, cut: 0, constraintsMissing: 0 };
  for (const c of conversations) {
    for (const cond of COMPACTED) {
      for (const job of c.conditions[cond].jobs) {
        jobs.total++;
        if (job.revisions > 0) jobs.revised++;
        if (job.source === "llm") jobs.llm++;
        else if (REFUSALS.has(job.error?.code)) jobs.refused++;
        else jobs.failed++;
      }
      summaryMs.push(...c.conditions[cond].summaryMs);
    }
    const a = c.conditions.ctxfold.audit;
    if (a) for (const k of Object.keys(audit)) audit[k] += a[k] ?? 0;
  }
  const valid = Object.fromEntries(CONDITIONS.map((cond) => [cond, conversations.filter((c) => c.conditions[cond].valid).length]));
  const ratio = Object.fromEntries(
    ["ctxfold", "plain", "truncation", "opencode"].map((cond) => [cond, round(mean(conversations.map((c) => c.conditions[cond].tokens / c.tokens)))]),
  );
  // Questions whose request failed for another reason than length: counted as not answered, and shown.
  const askErrors = questions.reduce((n, q) => n + CONDITIONS.filter((cond) => q.answers[cond]?.error).length, 0);
  const questionMs = questions.flatMap((q) => CONDITIONS.map((cond) => q.answers[cond]?.ms).filter((ms) => ms !== undefined));
  return {
    conversations: conversations.length,
    questions: questions.length,
    answered,
    asked: askedCount,
    present,
    inContext,
    retention,
    retentionInterval,
    ctxfoldMissed,
    selfAgreement,
    stable: stable.length,
    stableRetention,
    // Percentage points of all questions: ctxfold's answers minus truncation's.
    leadOverTruncation: questions.length ? round((100 * (answered.ctxfold - answered.truncation)) / questions.length, 1) : null,
    leadInterval,
    tokensAfterShare: ratio,
    auditCtxfold: audit,
    summaries: jobs,
    valid,
    askErrors,
    meanSummarySeconds: round(mean(summaryMs) === null ? null : mean(summaryMs) / 1000, 1),
    meanQuestionSeconds: round(mean(questionMs) === null ? null : mean(questionMs) / 1000, 2),
  };
}

/** Per group (in run order) and overall. */
export function summarize(conversations) {
  const groups = {};
  for (const name of [...new Set(conversations.map((c) => c.group))]) groups[name] = totals(conversations.filter((c) => c.group === name));
  return { groups, overall: totals(conversations) };
}

/** A share as a rounded percentage, "–" for none. */
export const pct = (x) => (x === null ? "–" : `${Math.round(x * 100)}%`);
const frac = (n, d) => `${n}/${d}`;
const signed = (x) => `${x >= 0 ? "+" : ""}${x}`;

/** One table: a row per group and one overall. */
export function table({ groups, overall }) {
  const head = ["group", "conv", "q", "original", "ctxfold", "plain", "truncation", "opencode", "retained", "missed (in text/ctx)", "lead", "in text c/p/t/o", "in context c/p/t/o", "tokens c/p/t/o", "audit kept/miss", "revised", "refused", "fallback", "valid", "ask errors", "s/summary", "s/question"];
  const row = (name, t) => [
    name, t.conversations, t.questions,
    frac(t.answered.original, t.asked.original), frac(t.answered.ctxfold, t.questions), frac(t.answered.plain, t.questions),
    frac(t.answered.truncation, t.questions),
    frac(t.answered.opencode, t.questions),
    `${pct(t.retention.ctxfold)}${t.retentionInterval ? ` (${t.retentionInterval.map((x) => Math.round(x * 100)).join("–")})` : ""}`,
    `${t.ctxfoldMissed.total} (${t.ctxfoldMissed.written}/${t.ctxfoldMissed.inContext})`,
    t.leadOverTruncation === null ? "–" : `${signed(t.leadOverTruncation)} pts${t.leadInterval ? ` (${t.leadInterval.map(signed).join(" to ")})` : ""}`,
    `${t.present.ctxfold}/${t.present.plain}/${t.present.truncation}/${t.present.opencode}`,
    `${t.inContext.ctxfold}/${t.inContext.plain}/${t.inContext.truncation}/${t.inContext.opencode}`,
    `${pct(t.tokensAfterShare.ctxfold)}/${pct(t.tokensAfterShare.plain)}/${pct(t.tokensAfterShare.truncation)}/${pct(t.tokensAfterShare.opencode)}`,
    `${t.auditCtxfold.kept}/${t.auditCtxfold.missing}`,
    t.summaries.revised, t.summaries.refused, t.summaries.failed + t.summaries.refused,
    `${Math.min(...Object.values(t.valid))}/${t.conversations}`, t.askErrors,
    t.meanSummarySeconds ?? "–", t.meanQuestionSeconds ?? "–",
  ].map(String);
  const rows = [head, ...Object.entries(groups).map(([name, t]) => row(name, t)), row("overall", overall)];
  const widths = head.map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join("  ");
  return [line(rows[0]), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1, -1).map(line), line(rows.at(-1))].join("\n");
}
