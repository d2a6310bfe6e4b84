// A history as plain text, the way the answering model reads it: one block per message, "role: content", tool
// calls and tool results written out. Every condition (original, ctxfold, truncation, OpenCode) is rendered the
// same way, so the model's reading of the format is the same for all.
//
// The conversation's own messages are capped at MESSAGE_CHARS (their start and end kept, the middle marked as
// cut): a small model on two CPU cores reads a few hundred tokens a second, and long tool outputs, task statements
// and demonstrations would make every question cost minutes. What compaction wrote (summaries) is never cut.
// Questions whose answer the capped original no longer shows are not asked (select.mjs).
import { answeredCalls, callsOf, textOf } from "./messages.mjs";

/** A message's text in the transcript, at most (characters). */
export const MESSAGE_CHARS = 2000;
/** Of a capped text, the share kept from its start (the rest from its end, where results and errors often are). */
const HEAD_SHARE = 0.7;

function capped(text, cap) {
  if (!cap || text.length <= cap) return text;
  const head = Math.floor(cap * HEAD_SHARE);
  const tail = cap - head;
  return `${text.slice(0, head)}\n[… ${text.length - head - tail} characters cut …]\n${text.slice(text.length - tail)}`;
}

/**
 * The transcript of `messages`. `own`, when given, is the original conversation: messages not in it were written by
 * compaction and are shown whole; the others are capped.
 */
export function transcript(messages, own = null) {
  const answered = answeredCalls(messages);
  const ownSet = own ? new Set(own) : null;
  const blocks = [];
  for (const [i, m] of messages.entries()) {
    const cap = !ownSet || ownSet.has(m) ? MESSAGE_CHARS : 0;
    if (m.role === "tool") {
      blocks.push(`tool result (${answered[i]?.name ?? m.name ?? "tool"}): ${capped(textOf(m), cap)}`);
      continue;
    }
    const lines = [];
    const text = textOf(m);
    if (text) lines.push(`${m.role}: ${capped(text, cap)}`);
    for (const call of callsOf(m)) lines.push(`${m.role} called tool ${call.name}: ${capped(call.arguments, cap)}`);
    if (lines.length === 0) lines.push(`${m.role}:`);
    blocks.push(lines.join("\n"));
  }
  return blocks.join("\n\n");
}
