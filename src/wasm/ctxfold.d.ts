// Types of the ctxfold package. Hand-written next to the Rust binding (src/wasm/) so every option
// and result field carries its documentation; the package tests call every export through them.

/** A message in one of the supported formats (this version: OpenAI Chat Completions). */
export type Message = Record<string, unknown>;

/** Options shared by every function. Unknown names are rejected with `INVALID_OPTION`. */
export interface Options {
  /** The input format; detected when omitted. This version reads `"openai-chat"`. */
  format?: "openai-chat";
  /** Tokenizer profile for estimates: `"o200k"` (GPT-4o and later, the default) or `"cl100k"` (GPT-4, GPT-3.5). */
  tokenizer?: "o200k" | "cl100k";
  /** A model name, used to pick the tokenizer profile when `tokenizer` is not given (e.g. `"gpt-4.1"` → o200k). */
  model?: string;
  /** The model's context window in tokens. Default 128 000. */
  contextWindow?: number;
  /** Tokens kept free for the model's answer. Default min(32 000, contextWindow / 4). */
  reservedOutput?: number;
  /** Compaction is needed above this fraction of (contextWindow − reservedOutput). Default 0.8. */
  threshold?: number;
  /** Keep at most this many recent user turns verbatim (0: no limit by turns). Default 2. */
  keepRecentTurns?: number;
  /** Keep at most this many recent tokens verbatim. Default a quarter of the limit. */
  keepRecentTokens?: number;
  /** Instead of `keepRecentTokens`: keep this fraction (0–1] of the history's tokens verbatim. */
  keepFraction?: number;
  /** Prune: the newest tool outputs, up to this many tokens, are never cleared. Default 20 000. */
  protectTokens?: number;
  /** Prune: clear nothing unless at least this many tokens would go. Default 10 000. */
  minimumPruneTokens?: number;
  /** Tool names whose outputs are never pruned. */
  protectedTools?: string[];
  /** Prune: the text that replaces a cleared output. Default `"[Old tool result content cleared]"`. */
  placeholder?: string;
  /** Plan a compaction even when the history is under the limit (a user's "/compact"). */
  force?: boolean;
}

/** The history against the model's window (present when `contextWindow` is given). */
export interface Budget {
  /** The model's context window. */
  contextWindow: number;
  /** Tokens kept free for the answer. */
  reservedOutput: number;
  /** Input tokens above which compaction is needed. */
  limit: number;
  /** Tokens left before the limit (0 when over it). */
  remaining: number;
  /** The total as a fraction of the limit (above 1 means over). */
  used: number;
}

export interface EstimateResult {
  /** Estimated tokens of the whole history: the sum of `perMessage`. */
  total: number;
  /** Estimated tokens of each input message, in order. */
  perMessage: number[];
  /** The format the messages were read as. */
  format: string;
  /** The tokenizer profile used. */
  tokenizer: string;
  /** Where the total stands against the window, when `contextWindow` is given. */
  budget?: Budget;
}

/** One cleared tool output. */
export interface PrunedOutput {
  /** Index of the tool-result message (the same in input and output). */
  index: number;
  /** The id of the tool call it answered. */
  toolCallId: string;
  /** The tool's name. */
  toolName: string;
  /** Tokens of the message before clearing. */
  tokensBefore: number;
  /** Tokens of the message after clearing. */
  tokensAfter: number;
}

export interface PruneResult {
  /** The history: the caller's own objects where unchanged, copies where an output was cleared. Same length as the input. */
  messages: Message[];
  /** What was cleared, in message order (empty when less than `minimumPruneTokens` would go). */
  pruned: PrunedOutput[];
  /** Estimated tokens before pruning. */
  tokensBefore: number;
  /** Estimated tokens after pruning. */
  tokensAfter: number;
  /** The format the messages were read as. */
  format: string;
}

/** A half-open range of message indices. */
export interface Range {
  /** The first index in the range. */
  start: number;
  /** One past the last index in the range. */
  end: number;
}

/** One summary to ask the host's LLM for. */
export interface Job {
  /** The job's id; key summaries by it when passing several. */
  id: string;
  /** The messages this summary replaces. */
  range: Range;
  /** The request to send: `system` as the system prompt, `user` as the user message. */
  prompt: { system: string; user: string };
  /** A sensible `max_tokens` for the summary request. */
  maxOutputTokens: number;
}

/** A compaction plan: plain data, safe to keep, serialize and pass back to `apply_summary`. */
export interface Plan {
  /** Whether the history should be compacted now. */
  needed: boolean;
  /** Why: `"under_limit"`, `"over_limit"`, `"forced"` or `"nothing_to_summarize"`. */
  reason: "under_limit" | "over_limit" | "forced" | "nothing_to_summarize";
  /** The reason in a sentence. */
  detail: string;
  /** The format the messages were read as. */
  format: string;
  /** The tokenizer profile used. */
  tokenizer: string;
  /** Estimated tokens of the history now. */
  tokensBefore: number;
  /** Input tokens above which compaction is needed. */
  limit: number;
  /** The context window used. */
  contextWindow: number;
  /** The tokens kept free for the answer. */
  reservedOutput: number;
  /** Expected tokens after applying a summary of `maxOutputTokens`. */
  estimatedTokensAfter: number;
  /** How many messages the plan was made from; messages appended later are kept as they are. */
  messageCount: number;
  /** Ranges kept verbatim. */
  keep: Range[];
  /** Ranges replaced by a summary. */
  summarize: Range[];
  /** System and developer messages inside `summarize` ranges, kept verbatim after the summary. */
  pinned: number[];
  /** Index of an earlier ctxfold summary that the new one merges and replaces. */
  previousSummary: number | null;
  /** The summaries to ask for (empty unless `needed` and something can be summarized). */
  jobs: Job[];
  /** Things the host should know, e.g. that even after compaction the history stays over the limit. */
  warnings: string[];
  /** Ties the plan to the messages it was made from and to its own decisions. */
  fingerprint: string;
}

/** What the summary replaced, and whether it kept the salient facts (checked without an LLM). */
export interface Audit {
  /** How many messages the summary replaced. */
  summarizedMessages: number;
  /** Their estimated tokens. */
  summarizedTokens: number;
  /** Estimated tokens of the summary message. */
  summaryTokens: number;
  /** File paths and error names from the summarized messages that the summary mentions. */
  factsKept: string[];
  /** Those it does not mention. */
  factsMissing: string[];
}

export interface ApplyResult {
  /** The compacted history: the caller's own objects where kept, a new summary message in place of each summarized range. */
  messages: Message[];
  /** Estimated tokens before. */
  tokensBefore: number;
  /** Estimated tokens after (always fewer). */
  tokensAfter: number;
  /** What was replaced and which facts the summary kept. */
  audit: Audit;
  /** E.g. a stall (less than 5% saved) or a history still over the limit. */
  warnings: string[];
}

/** A summary for a plan: one string (one job), one per job in order, or keyed by job id. */
export type Summary = string | string[] | Record<string, string>;

/**
 * Errors are thrown as `Error`s (name `CtxfoldError`) with a stable `code` — `INVALID_INPUT`,
 * `INVALID_OPTION`, `INVALID_PLAN`, `STALE_PLAN`, `SUMMARY_EMPTY`, `SUMMARY_NOT_SMALLER`,
 * `NOTHING_TO_APPLY`, and in browsers `NOT_INITIALIZED` (a function called before `await init()`) — and the `path` of the offending field (e.g. `messages[3].tool_call_id`).
 */
export interface CtxfoldError extends Error {
  /** The stable error code. */
  code: string;
  /** Where the problem is, e.g. `messages[12].tool_calls[0].id` or `options.threshold`. */
  path: string;
}

/** Estimates tokens per message and in total. */
export function estimate(messages: Message[], options?: Options): EstimateResult;
/** Clears old tool outputs (no LLM): OpenCode's rule by default. */
export function prune(messages: Message[], options?: Options): PruneResult;
/** Decides whether and what to summarize, and writes the summary prompt. */
export function plan_compaction(messages: Message[], options?: Options): Plan;
/** A deterministic digest for each job of the plan, written without an LLM: usable as the summary, or as the fallback when the LLM call fails. */
export function summarize_offline(messages: Message[], plan: Plan): Record<string, string>;
/** Splices the summary in place of the planned range; messages appended since planning are kept. */
export function apply_summary(messages: Message[], plan: Plan, summary: Summary): ApplyResult;

/**
 * Browsers: loads the WebAssembly module, streamed from `ctxfold_bg.wasm` beside the module by default (or from
 * `input`: a URL, a `Response`, a `WebAssembly.Module` or bytes). Idempotent: later and concurrent calls share one load.
 * Elsewhere (Node, Workers) the module is already initialised and this resolves at once.
 */
export default function init(input?: unknown): Promise<unknown>;
/** Initializes synchronously from a `WebAssembly.Module` or the module's bytes. */
export function initSync(input: { module: unknown }): unknown;

// ---------------------------------------------------------------------------------------------------
// compact and the built-in summarizer clients

/** What `compact` passes to `summarize` for each job: the job's prompt, its output budget and its id. */
export interface SummaryPrompt {
  /** The system prompt: how to summarize. */
  system: string;
  /** The user message: the transcript to summarize. */
  user: string;
  /** A sensible `max_tokens` for the answer. Optional when calling a client yourself. */
  maxOutputTokens?: number;
  /** The plan job this prompt belongs to. Ignored by the built-in clients. */
  jobId?: string;
}

/** Turns one job's prompt into the summary text (or a Promise of it). */
export type Summarize = (prompt: SummaryPrompt) => string | Promise<string>;

/** Options of `compact`: the usual options, plus who writes the summaries. */
export interface CompactOptions extends Options {
  /** Called once per job, in order; `openai_summarizer(...)` and `anthropic_summarizer(...)` make one. */
  summarize: Summarize;
  /**
   * What to do when `summarize` throws, rejects or returns no string, or when its summary is refused
   * (empty, or not smaller): `"offline"` (default) uses `summarize_offline`'s digest for that job and
   * reports it in `jobs`; `"none"` rethrows the error from `summarize` unchanged.
   */
  fallback?: "offline" | "none";
}

/** How one job of a `compact` call was summarized. */
export interface CompactJob {
  /** The plan job's id. */
  id: string;
  /** `"llm"`: `summarize`'s text; `"offline"`: the offline digest stood in. */
  source: "llm" | "offline";
  /** Why the digest stood in: the error `summarize` threw (unchanged), or the refusal of its summary (`SUMMARY_NOT_SMALLER`, `SUMMARY_EMPTY`). */
  error?: unknown;
}

/** The result of `compact`. */
export interface CompactResult {
  /** Whether the history was compacted (false when the plan says it is not needed, or nothing can be summarized). */
  compacted: boolean;
  /** The history: compacted, or (when `compacted` is false) a new array of the very same message objects. */
  messages: Message[];
  /** Estimated tokens before. */
  tokensBefore: number;
  /** Estimated tokens after (equal to `tokensBefore` when nothing was compacted). */
  tokensAfter: number;
  /** What was replaced and which facts the summary kept; null when nothing was compacted. */
  audit: Audit | null;
  /** Warnings from the plan or from applying the summary. */
  warnings: string[];
  /** The plan the compaction followed. */
  plan: Plan;
  /** One entry per plan job: where its summary came from. Empty when nothing was compacted. */
  jobs: CompactJob[];
}

/**
 * Plans, asks `summarize` for each job, falls back to the offline digest where it fails, and applies:
 * `plan_compaction` → `summarize` → (`summarize_offline`) → `apply_summary` in one call.
 * The messages are read when it is called: the result holds those objects, even if the host's array changes meanwhile
 * (messages it appends while the summaries are written are not in the result: append them again).
 */
export function compact(messages: Message[], options: CompactOptions): Promise<CompactResult>;

/** Configuration of a built-in summarizer client. The key stays in the client: it is sent in one header and never appears in an error. */
export interface SummarizerOptions {
  /**
   * The endpoint's base URL: `https://api.openai.com/v1` or any OpenAI-compatible server (`/chat/completions` is appended unless
   * already there); for Anthropic, default `https://api.anthropic.com` (`/v1/messages` is appended).
   */
  baseUrl?: string;
  /** The API key: sent as `Authorization: Bearer …` (OpenAI) or `x-api-key` (Anthropic). Omit for servers that need none. */
  apiKey?: string;
  /** The model that writes the summaries. */
  model: string;
  /** Extra request headers (e.g. an organization or a gateway's header); they override the client's own. */
  headers?: Record<string, string>;
  /** Give up after this many milliseconds, body included (`SUMMARIZER_TIMEOUT`). Default 60 000. */
  timeoutMs?: number;
}

/**
 * A failed summary request, thrown (as a rejection) by a built-in client: a `CtxfoldError` whose `code` is
 * `SUMMARIZER_HTTP` (the endpoint answered with an error status), `SUMMARIZER_RESPONSE` (it answered without
 * summary text), `SUMMARIZER_TIMEOUT` or `SUMMARIZER_NETWORK` (no answer). The message never contains the key.
 */
export interface SummarizerError extends CtxfoldError {
  /** The HTTP status, when the endpoint answered. */
  status?: number;
}

/**
 * A `summarize` function for an OpenAI-compatible Chat Completions endpoint (OpenAI, OpenRouter, vLLM, Ollama, ...):
 * POSTs `{ model, messages: [system, user], max_tokens }` with the global `fetch` and resolves to the answer's text.
 * Throws `INVALID_OPTION` at once for a bad configuration; its promise rejects with a `SummarizerError`.
 */
export function openai_summarizer(options: SummarizerOptions & { baseUrl: string }): (prompt: SummaryPrompt) => Promise<string>;
/** The same for the Anthropic Messages API (`POST /v1/messages`, `anthropic-version: 2023-06-01`). */
export function anthropic_summarizer(options: SummarizerOptions): (prompt: SummaryPrompt) => Promise<string>;
