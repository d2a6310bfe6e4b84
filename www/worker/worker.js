// A Cloudflare Worker: an OpenAI-compatible proxy that keeps every conversation inside the model's
// context window. Point your client's base URL at the Worker instead of the provider; each
// `POST …/chat/completions` body has its `messages` pruned and, when needed, compacted (the summary is
// written by the upstream model itself, or by the offline digest if that call fails), then it is
// forwarded, and the upstream answer (streamed or not) is passed back as is. The body goes through as
// UTF-8 bytes: ctxfold reads them in one pass and gives back the same bytes with only the message list
// rewritten, every message it kept and every other field byte for byte (as bytes rather than text, the body
// is never decoded to a JavaScript string and encoded again).
//
// Configuration (wrangler.toml [vars], or secrets):
//   UPSTREAM_URL    the provider's base URL, e.g. https://api.openai.com/v1 (required)
//   CONTEXT_WINDOW  the model's context window in tokens (default 128000)
//   SUMMARY_URL     where summaries are asked for (default: UPSTREAM_URL)
//   SUMMARY_MODEL   the model that writes summaries (default: the request's model)
//   MEMORY          optional KV namespace binding that keeps each conversation's last compaction (see below)
// The caller's Authorization header is forwarded upstream and used for the summary request too.
//
// The caller sends the whole history every time, uncompacted. Once a conversation has been compacted, its next
// requests start with the same messages: `memory` keeps the compacted history and puts it back in their place,
// so the model is asked for a summary again only when the conversation outgrows the window once more, not on
// every request. A stored history is used only for a request whose earlier messages are the ones it was made
// from, every field and value. Kept in KV when MEMORY is bound (shared by every isolate, a day at most), else in this
// isolate's memory (the newest conversations, up to 8 Mi characters: an isolate has 128 MB, and serves many
// requests, but not all of them).
import { compact, openai_summarizer } from "ctxfold";

const json = (status, value, headers = {}) => Response.json(value, { status, headers });
const fail = (status, message, extra = {}) => json(status, { error: { message, type: "ctxfold_proxy_error", ...extra } });
const modelOf = (body) => JSON.parse(new TextDecoder().decode(body)).model;

const recent = new Map(); // oldest first
let held = 0; // characters
const isolateMemory = {
  get: (key) => recent.get(key),
  set(key, value) {
    held -= recent.get(key)?.length ?? 0;
    recent.delete(key); // re-inserted as the newest
    recent.set(key, value);
    held += value.length;
    for (const [oldest, old] of recent) {
      if (held <= 8 * 1024 * 1024) break;
      recent.delete(oldest);
      held -= old.length;
    }
  },
};
const memoryOf = (env) =>
  env.MEMORY ? { get: (key) => env.MEMORY.get(key), set: (key, value) => env.MEMORY.put(key, value, { expirationTtl: 86_400 }) } : isolateMemory;

export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (request.method !== "POST" || !pathname.endsWith("/chat/completions")) {
      return fail(404, "this proxy serves POST /v1/chat/completions");
    }
    if (!env.UPSTREAM_URL) return fail(500, "the Worker has no UPSTREAM_URL configured");
    const upstream = env.UPSTREAM_URL.replace(/\/+$/, "");

    const body = new Uint8Array(await request.arrayBuffer());
    const authorization = request.headers.get("authorization");
    const apiKey = authorization?.match(/^Bearer (.+)$/)?.[1];
    const options = { contextWindow: Number(env.CONTEXT_WINDOW ?? 128_000) };
    // Only a summary needs the request's model: the body is parsed for it then, not on every request.
    const summarize = (prompt) =>
      openai_summarizer({ baseUrl: env.SUMMARY_URL ?? upstream, apiKey, model: env.SUMMARY_MODEL ?? modelOf(body) })(prompt);

    let result;
    try {
      // Old tool outputs are pruned first (cheap, no model), then the body is compacted if still needed.
      result = await compact(body, { ...options, summarize, memory: memoryOf(env) });
    } catch (e) {
      // ctxfold says what is wrong with the request and where (INVALID_INPUT at messages[3].role, or the
      // line and column of malformed JSON).
      if (e?.code) return fail(400, e.message, { code: e.code, param: e.path });
      throw e;
    }

    const headers = { "content-type": "application/json" };
    if (authorization) headers.authorization = authorization;
    const answer = await fetch(`${upstream}/chat/completions`, {
      method: "POST",
      headers,
      body: result.messages, // the caller's body as bytes, its message list compacted
    });
    // What the proxy did, for the caller's logs: tokens before → after, and who wrote each summary.
    const out = new Headers(answer.headers);
    out.set("x-ctxfold-tokens", `${result.tokensBefore}->${result.tokensAfter}`);
    out.set("x-ctxfold-compacted", result.compacted ? result.jobs.map((j) => j.source).join(",") : "no");
    out.set("x-ctxfold-resumed", String(result.resumed)); // messages the remembered compaction stood in for
    return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers: out });
  },
};
