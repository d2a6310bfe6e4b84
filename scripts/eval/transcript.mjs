// A history as plain text, the way the answering model reads it: one block per message, "role: content", tool
// calls and tool results written out. Every condition (original, ctxfold, truncation, OpenCode) is rendered the
// same way, so the model's reading of the format is the same for all.
import { callsOf, textOf, toolNames } from "./messages.mjs";

export function transcript(messages) {
  const names = toolNames(messages);
  const blocks = [];
  for (const m of messages) {
    if (m.role === "tool") {
      blocks.push(`tool result (${names.get(m.tool_call_id) ?? m.name ?? "tool"}): ${textOf(m)}`);
      continue;
    }
    const lines = [];
    const text = textOf(m);
    if (text) lines.push(`${m.role}: ${text}`);
    for (const call of callsOf(m)) lines.push(`${m.role} called tool ${call.name}: ${call.arguments}`);
    if (lines.length === 0) lines.push(`${m.role}:`);
    blocks.push(lines.join("\n"));
  }
  return blocks.join("\n\n");
}
