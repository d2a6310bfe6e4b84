// Asking the model a question about a history: the transcript and the question in one user turn, temperature 0,
// through any OpenAI-compatible Chat Completions endpoint.

const SYSTEM = "You answer questions about a conversation transcript. Use only what the transcript says.";
/** Enough for a short answer (an id, a path, a number); a model that explains first is cut, not waited for. */
export const ANSWER_TOKENS = 64;

/**
 * How the question ends: the eval's, and a second wording of the same request (`--retest`), which asks the same
 * thing of the same history to measure how far the model agrees with itself.
 */
export const WORDINGS = [" Answer briefly.", " Reply with the answer alone."];

/** The request's messages. The transcript comes first, so asking several questions about it repeats one prefix. */
export function askMessages(transcriptText, question, wording = 0) {
  return [
    { role: "system", content: SYSTEM },
    { role: "user", content: `${transcriptText}\n\n---\nAnswer from the conversation above only. ${question}${WORDINGS[wording]}` },
  ];
}

/** An endpoint's refusal of a request longer than its context window (OpenAI's code, and what local servers copy). */
export class Overflow extends Error {}

/**
 * One completion: `{ text, ms }`. Rejects with `Overflow` when the endpoint says the request does not fit, and with
 * an Error naming the status and body for any other failure.
 */
export async function complete(endpoint, messages, { maxTokens = ANSWER_TOKENS, timeoutMs = 600_000 } = {}) {
  const url = `${endpoint.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const headers = { "content-type": "application/json" };
  if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
  const started = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ model: endpoint.model, messages, temperature: 0, max_tokens: maxTokens }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = await response.text();
  const ms = performance.now() - started;
  if (!response.ok) {
    if (/context_length_exceeded|maximum context length|context window|too long/i.test(body)) throw new Overflow(body.slice(0, 400));
    throw new Error(`HTTP ${response.status}: ${body.slice(0, 200)}`);
  }
  const text = JSON.parse(body)?.choices?.[0]?.message?.content;
  if (typeof text !== "string") throw new Error(`no answer text in ${body.slice(0, 200)}`);
  return { text, ms };
}

/**
 * The endpoint's own token count of `messages`, or null when it does not say. Asked with a completion as long as
 * the whole window, which no prompt fits: servers that follow OpenAI's error text refuse at once, before reading
 * the prompt, and name its length ("... (1808 in the messages, 8192 in the completion)"). This tells how much more
 * the model's tokenizer counts than ctxfold's estimate, which matters most for CJK text on a small model.
 */
export async function countTokens(endpoint, messages) {
  try {
    await complete(endpoint, messages, { maxTokens: endpoint.contextSize, timeoutMs: 60_000 });
  } catch (error) {
    const counted = error instanceof Overflow ? String(error.message).match(/(\d+) in the messages/) : null;
    if (counted) return Number(counted[1]);
  }
  return null;
}
