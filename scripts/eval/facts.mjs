// The salient facts of the messages a plan summarizes, found without an LLM.
//
// First what ctxfold's own audit recognizes (paths, identifiers, URLs, numbers with units, error lines, the
// user's constraint sentences: src/audit.rs), read through the public API: the audit of a summary that says
// nothing lists every fact of the summarized range as missing, with its kind and message. The list stops at 50,
// so the probe is repeated with the facts found so far written into the summary (they then count as kept) until
// the list comes back short. Then kinds a summary should keep that chats carry: e-mail addresses, names (a name
// the user gives, titles in 《》), Latin-script terms inside CJK text (esp32, Arduino), numbers of two or more
// digits in CJK text (without a unit), and the id of the record a tool returned (a reservation's ZFA04Y, at the
// start of its JSON). ctxfold's audit looks for these too (src/compaction/named.rs); they are found here on their
// own, so that the questions about them do not depend on what ctxfold finds.
import { apply_summary } from "ctxfold";
import { textOf } from "./messages.mjs";

/** Probe rounds at most: 4 × 50 facts is more than any question set needs. */
const PROBE_ROUNDS = 4;
/** The audit lists at most this many missing facts (src/audit.rs MAX_LISTED). */
const AUDIT_LISTED = 50;

/** The indices the plan summarizes: its ranges without the messages it keeps verbatim (pins). */
export function summarizedIndices(plan) {
  const pinned = new Set(plan.pinned);
  const out = [];
  for (const r of plan.summarize) for (let i = r.start; i < r.end; i++) if (!pinned.has(i)) out.push(i);
  return out;
}

/** What the audit finds in the plan's summarized range: `[{ kind, text, message }]`. */
export function auditFacts(messages, plan) {
  const found = new Map();
  let summary = "-";
  for (let round = 0; round < PROBE_ROUNDS; round++) {
    let audit;
    try {
      // The summary exactly as given: nothing quoted or appended, so the audit lists what it lacks.
      audit = apply_summary(messages, { ...plan, keepFacts: false, keepUserText: false }, summary).audit;
    } catch {
      // The facts written so far no longer make a summary smaller than the range: stop with what was found.
      break;
    }
    for (const f of audit.missing) {
      const key = `${f.kind}\u0000${f.text}`;
      if (!found.has(key)) found.set(key, { kind: f.kind, text: f.text, message: f.message, from: "audit" });
    }
    if (audit.missing.length < AUDIT_LISTED) break;
    summary = ["-", ...[...found.values()].map((f) => f.text)].join("\n");
  }
  return [...found.values()];
}

const CJK = /[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]/;
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g;
const GIVEN_NAME = /\b(?:my name is|I am|I'm)\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+){1,2})\b/g;
const TITLE = /《([^《》\n]{1,40})》/g;
// A Latin-script term in CJK prose: a word of three or more letters/digits, starting with a letter.
const LATIN_TERM = /(?<![A-Za-z0-9_.\/-])[A-Za-z][A-Za-z0-9+#]*(?:[.-][A-Za-z0-9+#]+)*(?![A-Za-z0-9_\/-])/g;
// A booking code or record id: capitals and digits, both (ZFA04Y, HAT123), or a snake_case name ending in digits;
// not a piece of a date or time (2024-05-13T18:01).
const RECORD_ID = /(?<![A-Za-z0-9_:-])(?:(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{5,12}|[a-z]+(?:_[a-z]+)+_\d+)(?![A-Za-z0-9_:-])/g;
/** A tool result's own id (the record it returns) stands at its start; ids further in are listings. */
const RECORD_HEAD_CHARS = 60;
// Not a piece of a longer number (587 of 587,204,668).
const CJK_NUMBER = /(?<![A-Za-z0-9_.,\/-])\d{2,}(?:\.\d+)?(?![A-Za-z0-9_\/-]|[.,]\d)/g;

/** The kinds the audit does not look for, in the user's and the assistant's own words. */
export function extraFacts(messages, indices) {
  const out = [];
  const seen = new Set();
  const add = (kind, text, message) => {
    const key = `${kind}\u0000${text}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ kind, text, message, from: "extra" });
    }
  };
  for (const i of indices) {
    const m = messages[i];
    const text = textOf(m);
    if (m.role === "tool") for (const [id] of text.slice(0, RECORD_HEAD_CHARS).matchAll(RECORD_ID)) add("identifier", id, i);
    if (m.role !== "user" && m.role !== "assistant") continue;
    for (const [email] of text.matchAll(EMAIL)) add("email", email, i);
    if (m.role === "user") for (const [, name] of text.matchAll(GIVEN_NAME)) add("name", name, i);
    if (!CJK.test(text)) continue;
    for (const [, title] of text.matchAll(TITLE)) add("name", title, i);
    for (const [term] of text.matchAll(LATIN_TERM)) if (term.length >= 3) add("term", term, i);
    for (const [number] of text.matchAll(CJK_NUMBER)) add("number", number, i);
  }
  return out;
}

/** Every fact of the plan's summarized range: the audit's, then the extra kinds. */
export function factsOf(messages, plan) {
  return [...auditFacts(messages, plan), ...extraFacts(messages, summarizedIndices(plan))];
}
