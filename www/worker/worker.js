// A Cloudflare Worker: a proxy that keeps every conversation inside the model's context window. Point your
// client's base URL at the Worker instead of the provider. It serves OpenAI's Chat Completions
// (`POST …/chat/completions`, to any OpenAI-compatible provider) and Responses (`POST …/responses`), and
// Anthropic's Messages (`POST …/v1/messages`): each body has its messages pruned and, when needed, compacted
// (the summary is written by the upstream provider itself, or by the offline digest if that call fails), then
// it is forwarded, and the upstream answer (streamed or not) is passed back as is. The body goes through as
// UTF-8 bytes: ctxfold reads them in one pass and gives back the same bytes with only the message list
// rewritten, every message it kept and every other field byte for byte (as bytes rather than text, the body is
// never decoded to a JavaScript string and encoded again).
//
// Configuration (wrangler.toml [vars], or secrets):
//   UPSTREAM_URL             the OpenAI-compatible provider's base URL, e.g. https://api.openai.com/v1 (for
//                            …/chat/completions and …/responses)
//   ANTHROPIC_URL            Anthropic's base URL (default https://api.anthropic.com; for …/v1/messages)
//   CONTEXT_WINDOW           the model's context window in tokens (default 128000)
//   SUMMARY_URL              where summaries of OpenAI requests are asked for, by Chat Completions (default:
//                            UPSTREAM_URL)
//   SUMMARY_MODEL            the model that writes them (default: the request's model)
//   ANTHROPIC_SUMMARY_MODEL  the model that writes summaries of Messages requests (default: the request's model)
//   MEMORY                   optional KV namespace binding that keeps each conversation's last compaction (below)
// The caller's credentials (Authorization; for Anthropic x-api-key, with anthropic-version and anthropic-beta)
// are forwarded upstream and used for the summary request too.
//
// The caller sends the whole history every time, uncompacted. Once a conversation has been compacted, its next
// requests start with the same messages: `memory` keeps the compacted history and puts it back in their place,
// so the model is asked for a summary again only when the conversation outgrows the window once more, not on
// every request. A stored history is used only for a request whose earlier messages are the ones it was made
// from, every field and value but Anthropic's cache_control marks (which clients move). Kept in KV when MEMORY
// is bound (shared by every isolate, a day at most), else in this isolate's memory (the newest conversations,
// up to 8 Mi characters: an isolate has 128 MB, and serves many requests, but not all of them).
import { anthropic_summarizer, compact, openai_summarizer } from "ctxfold";

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

/**
 * The protocol of a request path: where it goes upstream, which of the caller's headers go with it, and who
 * writes the summaries; undefined for a path this proxy does not serve.
 */
function routeOf(pathname, env, headers) {
  const openai = ["/chat/completions", "/responses"].find((endpoint) => pathname.endsWith(endpoint));
  if (openai) {
    if (!env.UPSTREAM_URL) return { missing: "UPSTREAM_URL" };
    const upstream = env.UPSTREAM_URL.replace(/\/+$/, "");
    const authorization = headers.get("authorization");
    return {
      url: `${upstream}${openai}`,
      forwarded: { authorization },
      summarizer: (model) =>
        openai_summarizer({ baseUrl: env.SUMMARY_URL ?? upstream, apiKey: authorization?.match(/^Bearer (.+)$/)?.[1], model: env.SUMMARY_MODEL ?? model }),
    };
  }
  if (pathname.endsWith("/v1/messages")) {
    const upstream = (env.ANTHROPIC_URL ?? "https://api.anthropic.com").replace(/\/+$/, "");
    const forwarded = Object.fromEntries(["x-api-key", "authorization", "anthropic-version", "anthropic-beta"].map((h) => [h, headers.get(h)]));
    return {
      url: `${upstream}/v1/messages`,
      forwarded,
      summarizer: (model) =>
        anthropic_summarizer({ baseUrl: upstream, apiKey: forwarded["x-api-key"] ?? undefined, model: env.ANTHROPIC_SUMMARY_MODEL ?? model }),
    };
  }
  return undefined;
}

export default {
  async fetch(request, env) {
    const route = request.method === "POST" ? routeOf(new URL(request.url).pathname, env, request.headers) : undefined;
    if (!route) return fail(404, "this proxy serves POST /v1/chat/completions, /v1/responses and /v1/messages");
    if (route.missing) return fail(500, `the Worker has no ${route.missing} configured`);

    const body = new Uint8Array(await request.arrayBuffer());
    const options = { contextWindow: Number(env.CONTEXT_WINDOW ?? 128_000) };
    // Only a summary needs the request's model: the body is parsed for it then, not on every request.
    const summarize = (prompt) => route.summarizer(modelOf(body))(prompt);

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
    for (const [name, value] of Object.entries(route.forwarded)) if (value) headers[name] = value;
    const answer = await fetch(route.url, {
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
