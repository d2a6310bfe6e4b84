// `node scripts/eval/compare.mjs BASE.json NEW.json`: two reports of the eval compared question by question, for
// measuring a change. A small model moves a few answers whenever a history changes at all, so the totals of two runs
// say little; the questions that changed, and how likely so many would go one way by chance, say more.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CONDITIONS, asked, correct, pct } from "./report.mjs";
import { signTest } from "./stats.mjs";

/**
 * The questions both reports asked (the same conversation, the same words), and per condition how many each
 * answered, which the new one gained and lost, and the sign test's p of that; the same for ctxfold's history still
 * holding the answer written and beside its words (which runs without a model have too); and the retention of each.
 */
export function compareReports(base, next) {
  const key = (c, q) => `${c.id}\n${q.question}`;
  const before = new Map(base.conversations.flatMap((c) => c.questions.map((q) => [key(c, q), q])));
  const pairs = next.conversations.flatMap((c) =>
    c.questions.filter((q) => before.has(key(c, q))).map((q) => ({ id: c.id, before: before.get(key(c, q)), after: q })));
  const change = (holds) => {
    const gained = pairs.filter((p) => !holds(p.before) && holds(p.after));
    const lost = pairs.filter((p) => holds(p.before) && !holds(p.after));
    return {
      before: pairs.filter((p) => holds(p.before)).length,
      after: pairs.filter((p) => holds(p.after)).length,
      gained: gained.length,
      lost: lost.length,
      p: signTest(gained.length, lost.length),
      changed: [...gained.map((p) => ({ ...p, gained: true })), ...lost.map((p) => ({ ...p, gained: false }))],
    };
  };
  const retention = (side) => {
    const known = pairs.filter((p) => correct(p[side], "original"));
    return known.length ? known.filter((p) => correct(p[side], "ctxfold")).length / known.length : null;
  };
  return {
    questions: pairs.length,
    conversations: new Set(pairs.map((p) => p.id)).size,
    // A run without a model asks nothing: it has no answers to compare.
    answered: Object.fromEntries(CONDITIONS
      .filter((cond) => pairs.some((p) => asked(p.before, cond) && asked(p.after, cond)))
      .map((cond) => [cond, change((q) => correct(q, cond))])),
    written: change((q) => q.present?.ctxfold === true),
    inContext: change((q) => q.inContext?.ctxfold === true),
    retention: { before: retention("before"), after: retention("after") },
  };
}

const pValue = (p) => (p === null ? "–" : p.toFixed(2));

/** The comparison as printed: a table, then each answer that changed. */
export function comparisonText(c) {
  const rows = [["", "before → after", "gained", "lost", "p"]];
  const row = (name, t) => rows.push([name, `${t.before} → ${t.after}`, String(t.gained), String(t.lost), pValue(t.p)]);
  for (const [cond, t] of Object.entries(c.answered)) row(`${cond} answered`, t);
  row("ctxfold written", c.written);
  row("ctxfold beside its words", c.inContext);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const lines = [
    `${c.questions} questions of ${c.conversations} conversations, in both reports`,
    "",
    ...rows.map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join("  ")),
    "",
    "p: the chance that a change helping no more than it hurts moves as many of the questions that changed one way",
  ];
  if (c.retention.before !== null || c.retention.after !== null) {
    lines.push(`retention (of what the original answers, ctxfold's share): ${pct(c.retention.before)} → ${pct(c.retention.after)}`);
  }
  for (const [cond, { changed }] of Object.entries(c.answered)) {
    if (!changed.length) continue;
    lines.push("", `${cond}, answers that changed:`);
    for (const p of changed) {
      const was = p.before.answers[cond]?.text ?? "";
      const is = p.after.answers[cond]?.text ?? "";
      lines.push(`  ${p.gained ? "+" : "-"} ${p.id} [${p.after.kind}] ${p.after.answer}: ${JSON.stringify(was)} → ${JSON.stringify(is)}`);
    }
  }
  return lines.join("\n");
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = process.argv.slice(2);
  if (files.length !== 2) {
    console.error("usage: node scripts/eval/compare.mjs BASE.json NEW.json");
    process.exit(2);
  }
  const [base, next] = files.map((f) => JSON.parse(readFileSync(f, "utf8")));
  console.log(comparisonText(compareReports(base, next)));
}
