// Reading OpenAI Chat messages (the corpus's format, and what ctxfold writes back for it) as plain text.

/** The text of a message's content: a string, or the text parts of an array. */
export function textOf(message) {
  const c = message?.content;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((p) => (typeof p === "string" ? p : typeof p?.text === "string" ? p.text : "")).filter(Boolean).join("\n");
  return "";
}

/** The tool calls of an assistant message as `{ id, name, arguments }` (legacy `function_call` included). */
export function callsOf(message) {
  const calls = (message?.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function?.name ?? "tool", arguments: c.function?.arguments ?? "" }));
  if (message?.function_call) calls.push({ id: null, name: message.function_call.name ?? "tool", arguments: message.function_call.arguments ?? "" });
  return calls;
}

/** The arguments of a call as one short line: its command (or path, query...) when it has one. */
export function commandOf(call, max = 200) {
  let line = call.arguments;
  try {
    const args = JSON.parse(call.arguments);
    const key = ["command", "cmd", "code", "query", "path", "file_path", "url"].find((k) => typeof args?.[k] === "string");
    if (key) line = args[key];
  } catch {
    // Arguments that are not JSON are shown as they are.
  }
  line = String(line).replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/**
 * Per message, the call a tool result answers (`{ id, name, arguments }`), else null: the last call before it with
 * its id. A run may use an id again (tau-bench does), so a result is not named by the id's last call.
 */
export function answeredCalls(messages) {
  const open = new Map();
  return messages.map((m) => {
    const call = m.role === "tool" ? (open.get(m.tool_call_id) ?? null) : null;
    for (const c of callsOf(m)) if (c.id) open.set(c.id, c);
    return call;
  });
}

/** Everything a message says as text: content, tool calls' arguments. Used to tell where an answer occurs. */
export function fullText(message) {
  return [textOf(message), ...callsOf(message).map((c) => `${c.name} ${c.arguments}`)].join("\n");
}
