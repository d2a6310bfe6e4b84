// Types of the ctxfold package. Hand-written next to the Rust binding (src/wasm/) so every option
// and result field carries its documentation; the package tests call every export through them.

/**
 * A message (or Responses input item, or Gemini content) in one of the supported formats: any object type, so your
 * SDK's own types (`ChatCompletionMessageParam`, `MessageParam`, `Content`, `ModelMessage`) or an interface of your
 * app's are taken as they are.
 */
export type Message = object;

/** A request body holding the messages: `{ model, messages }`, Anthropic's `{ system, messages }`, Gemini's `{ systemInstruction, contents }`, Responses' `{ instructions, input }`. */
export type RequestBody = { readonly messages: readonly object[] } | { readonly contents: readonly object[] } | { readonly input: readonly object[] };

/**
 * What every function takes as `messages`: the host's own array (readonly arrays too), or the request body that
 * holds it. A body comes back as a copy with its array replaced; its other fields are never read or changed, and its
 * system prompt is counted. Either may also be given as JSON text, a string or a `Uint8Array` of UTF-8 (a Worker's
 * `await request.text()`): read in one pass, and given back as text of the same kind, with every message the
 * function did not change copied byte for byte (changed ones are written with their keys in order).
 */
export type Messages = readonly object[] | RequestBody | string | Uint8Array;

/** What a function gives back for the `messages` it was given: an array of the same message type, the same body type, or text of the same kind. */
export type Returned<T> = T extends string ? string : T extends Uint8Array ? Uint8Array : T extends readonly (infer M)[] ? M[] : T;

/** For a request body given as `messages` (as an object, or as text): the result holds it under `body` too (the same value as `messages`). */
export type BodyOf<T> = T extends readonly unknown[] ? {} : T extends string | Uint8Array ? { body?: T } : { body: T };

/** The message type of a history: the array's element type (for a body, any message). */
export type Item<T> = T extends readonly (infer M)[] ? M : Message;

/** The supported formats, detected from the messages' shape unless `options.format` names one. */
export type Format = "openai-chat" | "openai-responses" | "anthropic" | "gemini" | "ai-sdk";

/** Options shared by every function. Unknown names are rejected with `INVALID_OPTION`. */
export interface Options {
  /**
   * The input format; detected when omitted. A history of plain text turns reads alike in several
   * formats and is read as `"openai-chat"`: name `"anthropic"` to get Anthropic's alternation rules.
   */
  format?: Format;
  /** Tokenizer profile for estimates: `"o200k"` (GPT-4o and later, the default), `"cl100k"` (GPT-4, GPT-3.5), `"claude"` or `"gemini"`. */
  tokenizer?: "o200k" | "cl100k" | "claude" | "gemini" | "o200k_base" | "cl100k_base";
  /** A model name, used to pick the tokenizer profile when `tokenizer` is not given (`"gpt-4.1"` → o200k, `"gpt-4-turbo"` → cl100k, `"claude-…"` → claude, `"gemini-…"` → gemini; unknown names → o200k), and, with an OpenAI profile, how images are billed: OpenAI's cheaper models count many more tokens per image (`"gpt-4o-mini"`: 2 833 + 5 667 per tile; `"gpt-4.1-mini"`, `"gpt-4.1-nano"`, `"o4-mini"`: 32-pixel patches × 1.62, 2.46, 1.72; `"o3"`: 75 + 150 per tile). */
  model?: string;
  /**
   * What the provider reported for the last request(s) of this history. The estimate then takes the first
   * `messageCount` messages at the reported count and estimates only the messages after them, scaled by how
   * far the profile was off (see `Calibration.scale`). An array of reports, oldest first, also measures the
   * growth between the oldest and the latest, which tells a scale from a fixed cost the host did not
   * describe (a system prompt or tools not passed here). `promptTokens` must be the whole input, cached tokens
   * included: OpenAI `usage.prompt_tokens`, Gemini `usageMetadata.promptTokenCount`, Anthropic
   * `input_tokens + cache_read_input_tokens + cache_creation_input_tokens`. `cachedTokens` (OpenAI
   * `prompt_tokens_details.cached_tokens`, Anthropic `cache_read_input_tokens`, Gemini
   * `cachedContentTokenCount`) is only reported back, never added.
   */
  usage?: UsageReport | UsageReport[];
  /** A system prompt sent beside the messages, for a host that passes the array alone (a request body's own `system`, `systemInstruction` or `instructions` is counted without it): a string or text blocks. Counted like a message. */
  system?: string | Array<string | { text: string }>;
  /** The tool definitions sent with the request, in the provider's own shape: each counts as its JSON text plus 8 tokens. */
  tools?: Record<string, unknown>[];
  /**
   * estimate() only: an exact counter, `(text) => tokens`, e.g. `(t) => countTokens(t)` from gpt-tokenizer. It is
   * called on each text (content, thinking, name, tool name, arguments, results, system, tool definitions); the
   * framing still comes from the profile. What it throws is
   * thrown back unchanged; a result that is not a finite number ≥ 0 is `INVALID_OPTION` at `options.counter`.
   * Its counts are cached per message object and counter function: it must give the same number for the same text.
   */
  counter?: (text: string) => number;
  /** The model's context window in tokens. Default 128 000. */
  contextWindow?: number;
  /** Tokens kept free for the model's answer. Default min(32 000, contextWindow / 4). */
  reservedOutput?: number;
  /** Compaction is needed above this fraction of (contextWindow − reservedOutput): the soft limit. Default 0.8. */
  threshold?: number;
  /** Above this fraction (at least `threshold`), compaction is urgent: `plan.urgent` says the request must not be sent as it is. Claude Code uses 0.70 / 0.90. No hard limit by default. */
  hardThreshold?: number;
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
  /** Tool names whose outputs are never pruned, and whose calls and results are never summarized (kept verbatim, like pins). */
  protectedTools?: string[];
  /** Prune: the text that replaces a cleared output; `{chars}` in it becomes the output's length in characters. Default `"[Old tool result content cleared]"`. */
  placeholder?: string;
  /** Plan a compaction even when the history is under the limit (a user's "/compact"). */
  force?: boolean;
  /**
   * The context window of the model that writes the summary (default: `contextWindow`). The summary request
   * is made to fit it: `maxOutputTokens` is at most a quarter of it, and the transcript is shortened to fit
   * the rest (tool outputs and long texts cut harder, then the oldest messages left out with a note), never
   * sent too large. `plan.warnings` says what was given up.
   */
  summarizerWindow?: number;
  /**
   * The form the summary is asked for: `"sections"` (the default: headed sections for coding agents), `"snapshot"`
   * (one `<state_snapshot>` XML element: overall goal, key knowledge, file-system state, recent actions, current
   * plan; `apply_summary` then refuses an answer without it with `SUMMARY_MALFORMED`), `"general"` (prose, for chat
   * apps), `"progress"` (Claude Code's four sections: task progress, key decisions, current file state, active
   * context), or your own `{ system?, user }` where `user` holds `{transcript}` (the delimited transcript goes there).
   */
  template?: "sections" | "snapshot" | "general" | "progress" | { system?: string; user: string };
  /**
   * Start from the documented behaviour of a known system; options given explicitly override it.
   * `"opencode"`: prune protects the newest 20 000 tokens of output and runs only when 10 000 would go; compact
   * when the input passes the window minus 32 000 for the answer; the summary answers a "What did we do so far?"
   * user turn. `"spring-ai"`: prune keeps the newest 4 outputs and makes the others `[truncated: N chars]`, `Skill`
   * untouched; compact above 60 000 tokens into a system message starting 【历史摘要】, with the user's current
   * request in view. `"claude-code"`: soft/hard limits at 0.70/0.90; keep the last 4 turns or 20 000 tokens;
   * the largest runs of tool exchanges are summarized first, each to about a fifth; summaries are never
   * summarized again; the `progress` template. `"gemini-cli"`: compact at 0.70, keep the newest 30%, cut only
   * before a user message, a `<state_snapshot>` the model acknowledges. `"smart"`: critical messages stay
   * verbatim (`keepCritical`), the rest is summarized in chunks of 20 messages (`hierarchical`).
   */
  preset?: "opencode" | "spring-ai" | "claude-code" | "gemini-cli" | "smart";
  /** Compaction is also needed above this many input tokens, whatever the window (the lower limit wins). */
  thresholdTokens?: number;
  /** Where the kept tail may start: `"exchange"` (default: before a user message when one is in reach, else between complete tool exchanges) or `"user"` (only before a user message, unless no user turn fits even at twice the tail's budget). */
  splitAt?: "exchange" | "user";
  /**
   * How the messages to summarize are chosen: `"tail"` (default: everything before the kept tail, one summary),
   * `"regions"` (the largest runs of tool exchanges first, each summarized on its own, until the history is at
   * three quarters of the limit; user and assistant text stay; if that cannot get under the limit, `"tail"`), or
   * `"hierarchical"` (everything before the tail, in chunks of `chunkMessages` summarized separately, possibly in
   * parallel, and joined into one summary).
   */
  strategy?: "tail" | "regions" | "hierarchical";
  /** `hierarchical`: about this many messages per chunk (each chunk ends where no tool exchange is split). Default 20. */
  chunkMessages?: number;
  /** Whether an earlier summary is merged into the next one (default true). With false, summaries stay as they are, and a history with nothing else to compact throws `CANNOT_COMPACT_FURTHER`. */
  resummarize?: boolean;
  /** Indices of messages never to summarize: they stay verbatim after the summary, each with its tool call or results. In formats whose turns alternate, a pin that would put two turns of one role side by side is summarized instead, with a warning. */
  pin?: number[];
  /** Keep critical messages verbatim (newest first, within a quarter of the limit): calls of `criticalTools`, tool results that report errors, and user messages that state constraints (must, never, don't, 不能, 必须, 禁止, 要求, 约束…). */
  keepCritical?: boolean;
  /** Append to each summary the facts of its messages it left out, verbatim (default true; see `ApplyResult.factsAppended`), within its output budget (at most a quarter of the tokens summarized) or, where the history has room to spare, up to an eighth below the limit (at most twice the output budget), except the user's constraints: they go in even past it (never past the history's size before), with the warning that the history is over it. A summary too long to leave room for them gives up its middle, down to a quarter of its size, with a warning. `false`: the summary exactly as given. */
  keepFacts?: boolean;
  /** Quote the user's own summarized messages after each summary, verbatim (default true; see `ApplyResult.userTextAppended`): the first (the task) always, cut in its middle when it alone is over the bound (at least 64 tokens), and the last (the request the kept turns answer) where it fits whole within twice the bound (at least 64 tokens), each even past the limit where the kept messages leave no room under it (never past the history's size before); then the newest others that fit, never past the limit, and with the first within an eighth of the limit and a quarter of the tokens summarized. The summary prompt names the messages quoted, so that the summary need not copy them. `false`: the summary exactly as given. */
  keepUserText?: boolean;
  /**
   * Plan a compaction when the newest user message starts a new topic: under the limit, its words barely occur in
   * the dozen messages before it (default false). The plan's `reason` is then `"topic_switch"`, and it summarizes
   * everything before that message, which stays as the tail.
   */
  topicSwitch?: boolean;
  /**
   * Drop what lies before the newest provider compaction item even under the limit (default false; over the limit
   * it goes first anyway): the provider's summary stands for it, and Anthropic's API, like OpenAI's guide, leaves
   * it out. The plan's `reason` is then `"provider_compaction"`, with `dropped` set and no job.
   */
  dropBeforeProviderCompaction?: boolean;
  /** With `keepCritical`: the tools whose calls are critical. Default: common file-writing and code-running tools (`write_file`, `edit`, `apply_patch`, `str_replace_editor`, `execute_code`, …). */
  criticalTools?: string[];
  /** How the summary goes back: `"message"` (default: one user message, merged into the next user turn where turns alternate), `"exchange"` (a "What did we do so far?" user turn and the summary as the assistant's answer), `"system"` (a system message; Anthropic and Gemini get `"message"`), `"acknowledged"` (the summary as a user turn, then an assistant turn acknowledging it). */
  summaryShape?: "message" | "exchange" | "system" | "acknowledged";
  /** One line (at most 64 bytes) the summary message starts with, such as `"【历史摘要】"`. */
  summaryPrefix?: string;
  /** Show the user's newest request to the summarizer after the transcript, so the summary keeps what answering it needs. */
  includeLatestRequest?: boolean;
  /** Prune: the newest this-many tool outputs are never cleared, whatever their size. Default 0. */
  protectResults?: number;
  /** Prune: in the calls whose outputs are cleared, strings longer than this many characters inside the arguments keep their start and a note of their length (`… [truncated: N chars]`); arguments held as JSON text stay valid JSON. Off by default. */
  maxArgumentChars?: number;
  /**
   * Cache-aware pruning: `prune` clears outputs only when the tokens saved over the next `horizon` requests pay for the
   * cached prefix the edit makes the provider write again (or when the history is over the limit); otherwise it clears
   * nothing and says why in `PruneResult.cache`. `true` takes Anthropic's documented prices.
   */
  cache?: boolean | CachePrices;
}

/** Prices of the provider's prompt cache, in any unit (only their ratios matter). */
export interface CachePrices {
  /** Price of an uncached input token. Default 1. */
  inputPrice?: number;
  /** Price of a token read from the cache. Default 0.1 × `inputPrice` (Anthropic). */
  readPrice?: number;
  /** Price of a token written to the cache. Default 1.25 × `inputPrice` (Anthropic's 5-minute cache; use 2× for the 1-hour one, 1× for OpenAI's automatic caching). */
  writePrice?: number;
  /** Tokens of the prefix the provider holds. Default: the messages of the latest `usage` report, else all but the newest message. */
  cachedPrefixTokens?: number;
  /** Requests over which an edit must pay for itself. Default 10. */
  horizon?: number;
}

/** What the cache rule decided (`options.cache`). */
export interface CacheDecision {
  /** Whether the edit was made. */
  applied: boolean;
  /** `"pays"`, `"costs more than it saves"` (nothing was changed) or `"over the limit"` (made whatever it costs). */
  reason: "pays" | "costs more than it saves" | "over the limit";
  /** The cached prefix assumed, in tokens. */
  cachedTokens: number;
  /** Cached tokens after the first edited message: what the next request would write again. */
  invalidatedTokens: number;
  /** Tokens the edit removes. */
  savedTokens: number;
  /** Cost without the edit minus cost with it over `horizon` requests, in input tokens (above 0: it pays). */
  netSaving: number;
  /** Requests the costs were added over. */
  horizon: number;
}

/** One usage report from the provider. */
export interface UsageReport {
  /** Input tokens the provider counted for the request, cached ones included. */
  promptTokens: number;
  /** How many of the messages (from the first) that request held. */
  messageCount: number;
  /** Of `promptTokens`, how many were read from the provider's cache (never added again). */
  cachedTokens?: number;
}

/** How reported usage set the total. */
export interface Calibration {
  /** The latest report's count, taken as exact for its messages. */
  promptTokens: number;
  /** How many messages it covered. */
  messageCount: number;
  /** As reported, never added. */
  cachedTokens?: number;
  /** ctxfold's own estimate of that request. */
  estimatedPrefix: number;
  /** `promptTokens − estimatedPrefix`. */
  correction: number;
  /**
   * The factor applied to the later messages (0.5 to 2): how far the profile counts from the provider.
   * It moves only when the latest request's ratio (reported ÷ estimated) and, with several reports, the
   * growth between the oldest and the latest agree on the direction, and then by the smaller of the two.
   * Upwards it is taken as measured (estimating low makes requests overflow); downwards only beyond the
   * noise of the tokens it was measured on. Ratios over fewer than 30 estimated tokens leave it at 1.
   */
  scale: number;
  /** The scaled estimate of the messages after `messageCount`. */
  estimatedTail: number;
}

/** The history against the model's window (present when `contextWindow` is given). */
export interface Budget {
  /** The model's context window. */
  contextWindow: number;
  /** Tokens kept free for the answer. */
  reservedOutput: number;
  /** Input tokens above which compaction is needed: `threshold` × (`contextWindow` − `reservedOutput`). */
  limit: number;
  /** The history's tokens (the estimate's `total`), which `used` compares with `limit`. */
  tokens: number;
  /** Tokens left before the limit (0 when over it). */
  remaining: number;
  /** The total as a fraction of the limit (above 1 means over). */
  used: number;
}

export interface EstimateResult {
  /**
   * Estimated input tokens of the whole request: `requestOverhead` + the sum of `perMessage`; with `usage`,
   * `calibration.promptTokens + calibration.estimatedTail`.
   */
  total: number;
  /** Estimated tokens of each input message, in order (framing included). */
  perMessage: number[];
  /** The format the messages were read as. */
  format: string;
  /** The tokenizer profile used. */
  tokenizer: string;
  /** Tokens outside the messages: the reply priming (3 for OpenAI), the request body's system prompt (or `options.system`), `tools`. */
  requestOverhead: number;
  /** True when `counter` counted the texts. */
  counted: boolean;
  /** Present when `usage` was given. */
  calibration?: Calibration;
  /** Where the total stands against the window, when `contextWindow` is given. */
  budget?: Budget;
  /** What the options left to a guess, e.g. a `model` ctxfold does not know (the profile used is named); absent when nothing was. */
  warnings?: string[];
}

/** One cleared tool output. A message can hold several (Anthropic, Gemini and AI SDK group results). */
export interface PrunedOutput {
  /** Index of the message holding the result (the same in input and output). */
  index: number;
  /** The id of the tool call it answered. */
  toolCallId: string;
  /** The tool's name. */
  toolName: string;
  /** Tokens of the output before clearing, its images and files included. */
  tokensBefore: number;
  /** Tokens of the placeholder that replaced it. */
  tokensAfter: number;
  /** True for the newest output when it alone is over `protectTokens`: it is never cleared, but keeps its head and tail within them, with a marker saying how many characters were cut. A newest output with an image is kept whole. */
  cut: boolean;
}

export interface PruneResult<T = Message[]> {
  /** The history, in the input's shape: the caller's own objects where unchanged, copies where an output was cleared (only the containers on the way are copied). Same length as the input. */
  messages: T;
  /** What was cleared, in message order (empty when less than `minimumPruneTokens` would go). */
  pruned: PrunedOutput[];
  /** With `maxArgumentChars`: the tool calls whose arguments were shortened; `index` is the calling message, and the tokens are the arguments'. */
  cutArguments: PrunedOutput[];
  /** Estimated tokens before pruning. */
  tokensBefore: number;
  /** Estimated tokens after pruning. */
  tokensAfter: number;
  /** The format the messages were read as. */
  format: string;
  /** With `options.cache`, when there was something to clear: whether clearing it paid for the cache it invalidates. */
  cache?: CacheDecision;
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

/** What `quality_probe` returns. */
export interface QualityProbe {
  /** In conversation order; kinds taken in turn, at most two per message. */
  questions: ProbeQuestion[];
}

/** One question of `quality_probe`: a cloze made from the line a fact was written in. */
export interface ProbeQuestion {
  /** `"constraint"`, `"error"`, `"number"`, `"url"`, `"identifier"` or `"path"`. */
  kind: string;
  /** The index of the message the fact was written in (inside the plan's summarized range). */
  message: number;
  /** E.g. `In the conversation, the user wrote: "My booking code is ____." What is the missing identifier (____)?` */
  question: string;
  /** What a right answer contains (a number's digits, an exception's name, a constraint's most specific word). */
  answer: string;
}

/** A compaction plan: plain data, safe to keep, serialize and pass back to `apply_summary`. */
export interface Plan {
  /** Whether the history should be compacted now. */
  needed: boolean;
  /**
   * Why: `"under_limit"`, `"over_limit"`, `"forced"`, `"topic_switch"` (the `topicSwitch` option),
   * `"provider_compaction"` (the `dropBeforeProviderCompaction` option, under the limit) or `"nothing_to_summarize"`.
   */
  reason: "under_limit" | "over_limit" | "forced" | "topic_switch" | "provider_compaction" | "nothing_to_summarize";
  /** The reason in a sentence. */
  detail: string;
  /** The format the messages were read as. */
  format: string;
  /** The tokenizer profile used. */
  tokenizer: string;
  /** Present when `model` bills images its own way (`"gpt-4o-mini"`, `"gpt-4.1-mini"`, `"gpt-4.1-nano"`, `"o4-mini"`, `"o3"`): the counts used its billing. */
  imageModel?: string;
  /** Estimated tokens of the history now. */
  tokensBefore: number;
  /** Input tokens above which compaction is needed (the soft limit). */
  limit: number;
  /** Input tokens above which compaction is urgent (with `hardThreshold`), else null. */
  hardLimit: number | null;
  /** Over the hard limit: compact before sending anything. */
  urgent: boolean;
  /** The context window used. */
  contextWindow: number;
  /** The tokens kept free for the answer. */
  reservedOutput: number;
  /** Expected tokens after applying a summary of `maxOutputTokens`. */
  estimatedTokensAfter: number;
  /** How many messages the plan was made from; messages appended later are kept as they are. */
  messageCount: number;
  /** The template the summary is asked in; `apply_summary` checks a `snapshot` answer's form. */
  template: "sections" | "snapshot" | "general" | "progress" | "custom";
  /** The preset the options started from, or null. */
  preset: string | null;
  /** How the summarized messages were chosen. */
  strategy: "tail" | "regions" | "hierarchical";
  /** How `apply_summary` writes the summary back. */
  summaryShape: "message" | "exchange" | "system" | "acknowledged";
  /** The line the summary message starts with, or null. */
  summaryPrefix: string | null;
  /** Whether `apply_summary` appends the facts a summary lost (the `keepFacts` option). */
  keepFacts: boolean;
  /** Whether `apply_summary` quotes the user's summarized messages (the `keepUserText` option). */
  keepUserText: boolean;
  /**
   * Messages left out without a summary: the ones before the newest provider compaction item (an Anthropic
   * `compaction` block, a Responses or xAI `compaction` item), which stands for them; system and developer
   * messages among them stay. Over the limit they go first, and when that is enough `jobs` is empty: pass
   * `apply_summary` any summary (or none) and it drops them. Else null.
   */
  dropped: Range | null;
  /** Ranges kept verbatim. */
  keep: Range[];
  /** Ranges replaced by a summary: one for `tail` and `hierarchical`, one per region for `regions`. Jobs whose ranges lie in one of them are joined into its summary. */
  summarize: Range[];
  /** Messages inside `summarize` ranges kept verbatim after the summary: system and developer messages, `pin`s, critical messages, each with its tool exchange. */
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
  /** How many distinct salient facts of the summarized messages were checked. */
  factsChecked: number;
  /** The text of each fact the summary still states (at most 50). */
  factsKept: string[];
  /** The text of each fact it lost, most important kind first (at most 50): the same facts as `missing`. */
  factsMissing: string[];
  /** The lost facts with their kind and the message they came from (at most 50). */
  missing: MissingFact[];
  /** Facts left out of the lists above to keep the result small: beyond 200 of a kind (not checked), or beyond 50 listed. */
  factsCut: number;
  /**
   * For each job whose summary lost facts, keyed by job id: a prompt asking the summarizer for the same summary with
   * them restored (the old summary and the facts are nonce-delimited data in it). Send it like a plan job's prompt and
   * pass the answers to `apply_summary` again, keyed by job id, beside the unchanged summaries of the other jobs.
   * Empty when nothing was lost.
   */
  revisionPrompts: Record<string, { system: string; user: string }>;
}

/** A salient fact of the summarized messages that the summary no longer states. */
export interface MissingFact {
  /**
   * `constraint`: a sentence of the user's with must, never, always, only, don't… (or 必须, 不要, 禁止, しないで, 必ず…);
   * `error`: an error line; `number`: a version, port, amount or quantity with its unit (not a bare number);
   * `url`; `identifier`: a name in code (`parse_config`, `UserService.login`, `ERR_TIMEOUT`), an issue or ticket id,
   * a commit hash, a booking code; `path`: a file path.
   * Constraints and error lines count as kept when two thirds of their words are in the summary; the others must appear exactly
   * (numbers: case and the space before the unit aside), identifiers as whole words (`parse` is not kept by `parse_config`;
   * `Java` is by `用Java写`: CJK and kana are not part of a word).
   */
  kind: "constraint" | "error" | "number" | "url" | "identifier" | "path";
  /** The fact as written in the conversation, on one line. */
  text: string;
  /** Index of the message it was found in. */
  message: number;
}

export interface ApplyResult<T = Message[]> {
  /** The compacted history, in the input's shape: the caller's own objects where kept, a new summary message in place of each summarized range (in Anthropic and Gemini, merged into the user turn that follows, so turns still alternate). */
  messages: T;
  /** Estimated tokens before. */
  tokensBefore: number;
  /** Estimated tokens after (always fewer). */
  tokensAfter: number;
  /** What was replaced and which facts the summary kept (after `factsAppended`). */
  audit: Audit;
  /**
   * With `keepFacts` (the default): the facts of the summarized messages (user constraints, error lines, numbers,
   * URLs, ids, e-mail addresses, paths) that the summary left out and that were appended to it under "Facts from
   * the summarized messages, verbatim:"; a number or an id in the words around it, with their writer ("assistant:
   * - **Reservation ID**: M20IZO", not a bare "M20IZO"), within the bound that `Options.keepFacts` gives. Then,
   * in the room left, the numbers and ids the summary states without a word of their line that tells them from the
   * other values (a name in a list of names; "reservation JG7FMM" where two reservations were listed), listed in
   * their line the same way: the audit counts those as kept.
   */
  factsAppended: string[];
  /**
   * With `keepUserText` (the default): the indices of the user messages quoted after the summary, under "The
   * user's messages, verbatim:" (before the facts). Never when they would leave the history over the limit or not
   * smaller.
   */
  userTextAppended: number[];
  /** E.g. a stall (less than 5% saved) or a history still over the limit. */
  warnings: string[];
}

/** A summary for a plan: one string (one job), one per job in order, or keyed by job id. */
/** The summaries: one string for a plan of one job, one per job in order, or keyed by job id. A plan with no job (it only drops what a provider's compaction item stands for) takes any, or none. */
export type Summary = string | string[] | Record<string, string> | null | undefined;

/** Something a provider would reject. */
export interface Problem {
  /** `orphan_result`, `duplicate_result`, `duplicate_call_id`, `missing_result`, `misplaced_result` or `alternation`. */
  kind: string;
  /** Index of the message it is in. */
  index: number;
  /** Where, e.g. `messages[2].content[0].tool_use_id`. */
  path: string;
  /** What is wrong, in a sentence. */
  message: string;
}

export interface ValidateResult {
  /** True when nothing was found. */
  valid: boolean;
  /** The format the messages were read as. */
  format: string;
  /** Every problem found, in message order. */
  problems: Problem[];
  /**
   * Tool calls at the end still waiting for their results: right while the tools run, but a request sent as it is
   * would be refused (OpenAI and Anthropic want every call answered first). `path` is the call's id field.
   */
  pending: { index: number; path: string; id: string; name: string }[];
}

/** One fix `repair` made. */
export interface Repaired {
  /** `dropped_result` (a result that answered no call, or a call a second time) or `inserted_missing_result`. */
  action: "dropped_result" | "inserted_missing_result";
  /** The problem's path in the input. */
  path: string;
  /** The problem, in a sentence. */
  message: string;
}

export interface RepairResult<T = Message[]> {
  /** The repaired history, in the input's shape; unchanged messages are the caller's own objects. */
  messages: T;
  /** The format the messages were read as. */
  format: string;
  /** What was done, in message order. */
  repairs: Repaired[];
  /** What is still wrong (misplaced results, broken alternation): reported, never guessed at. */
  remaining: Problem[];
}

/**
 * Errors are thrown as `Error`s (name `CtxfoldError`) with a stable `code` — `INVALID_INPUT`,
 * `INVALID_OPTION`, `INPUT_TOO_LARGE` (the messages are over 8 Mi characters of JSON), `INVALID_PLAN`, `STALE_PLAN`,
 * `SUMMARY_EMPTY`, `SUMMARY_MALFORMED`, `SUMMARY_NOT_SMALLER`, `NOTHING_TO_APPLY`, `CANNOT_COMPACT_FURTHER` (over the
 * limit with nothing left to compact, when `resummarize` is false), in browsers `NOT_INITIALIZED` (a function called
 * before `await init()`), and from the summarizer clients the `SUMMARIZER_*` codes of `SummarizerError` — and the
 * `path` of the offending field (e.g. `messages[3].tool_call_id`).
 */
export interface CtxfoldError extends Error {
  /** The stable error code. */
  code: string;
  /** Where the problem is, e.g. `messages[12].tool_calls[0].id` or `options.threshold`. */
  path: string;
}

/**
 * Estimates tokens per message and in total. What each message object cost is cached (keyed by the object, held
 * weakly), so re-estimating a history after a message was appended reads only the new one; the result is always
 * the same as without the cache. Messages are taken as immutable: a message changed in place keeps its cached
 * cost, so pass an edited copy instead.
 */
export function estimate(messages: Messages, options?: Options): EstimateResult;
/** Clears old tool outputs (no LLM): OpenCode's rule by default. */
export function prune<T extends Messages>(messages: T, options?: Options): PruneResult<Returned<T>> & BodyOf<T>;
/** Decides whether and what to summarize, and writes the summary prompt. */
export function plan_compaction(messages: Messages, options?: Options): Plan;
/** A deterministic digest for each job of the plan, written without an LLM: usable as the summary, or as the fallback when the LLM call fails. */
export function summarize_offline(messages: Messages, plan: Plan): Record<string, string>;
/** Splices the summary in place of the planned range; messages appended since planning are kept. */
export function apply_summary<T extends Messages>(messages: T, plan: Plan, summary?: Summary): ApplyResult<Returned<T>> & BodyOf<T>;
/**
 * Questions with known answers about what `plan` summarizes (ids, numbers, paths, URLs, error types, the user's
 * constraints), at most `maxQuestions` (default 8): ask your model each `question` with the compacted history and
 * check that its answer contains `answer`, to see what your summarizer and template keep. Made without an LLM.
 */
export function quality_probe(messages: Messages, plan: Plan, maxQuestions?: number): QualityProbe;
/**
 * Whether `error` is a provider's answer that the request was longer than the model's context: OpenAI Chat and
 * Responses (`context_length_exceeded`), Anthropic ("prompt is too long", "exceed context limit"), Gemini ("The input
 * token count (…) exceeds the maximum number of tokens allowed (…)"), as the HTTP body (text or parsed), an SDK's
 * error, the AI SDK's `APICallError`, or any error wrapping one (`cause`, a body quoted in a message). Gives the
 * provider and the numbers the message states, or null for any other error. `actual` is the provider's own count of
 * the request's input: a better figure than any estimate for the next plan (`limit`, less the answer's reserve).
 */
export function context_overflow(error: unknown): ContextOverflow | null;
/** What `context_overflow` found. */
export interface ContextOverflow {
  provider: "openai" | "anthropic" | "gemini";
  /** The model's input limit in tokens, when the error says it. */
  limit?: number;
  /** The request's input tokens as the provider counted them, when the error says it. */
  actual?: number;
}
/** Finds every problem a provider would reject (it does not throw for them, only for unreadable input). */
export function validate(messages: Messages, options?: Options): ValidateResult;
/** The minimal fix: drops results that answer no call, inserts clearly marked results for calls whose result is missing. */
export function repair<T extends Messages>(messages: T, options?: Options): RepairResult<Returned<T>> & BodyOf<T>;

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
  /** True for a revision round of `compact`: the job's summary and the facts it lost, to be written again. */
  revision?: boolean;
}

/** Turns one job's prompt into the summary text (or a Promise of it). */
export type Summarize = (prompt: SummaryPrompt) => string | Promise<string>;

/** Options of `compact`: the usual options, plus who writes the summaries. */
export interface CompactOptions extends Options {
  /** Called once per job (jobs start in order, up to `concurrency` at once); `openai_summarizer(...)` and `anthropic_summarizer(...)` make one. */
  summarize: Summarize;
  /**
   * What to do when `summarize` throws, rejects or returns no string, or when its summary is refused
   * (empty, or not smaller): `"offline"` (default) uses `summarize_offline`'s digest for that job and
   * reports it in `jobs`; `"truncate"` (the default with the `claude-code` preset, as Claude Code does) drops
   * the job's messages with a notice in their place; `"none"` rethrows the error from `summarize` unchanged.
   */
  fallback?: "offline" | "truncate" | "none";
  /** Prune old tool outputs first (the ladder's first rung; with the same options as `prune`), then plan on what is left. Default true. */
  prune?: boolean;
  /** How many `summarize` calls may be in flight at once (plans with several jobs: `regions`, `hierarchical`). Results keep job order. Default 4. */
  concurrency?: number;
  /**
   * Revision rounds per job (0 to 5, default 1): when a summary lost salient facts (the audit's: constraints, errors,
   * numbers, URLs, ids, paths), `summarize` is called again with a prompt holding the summary and those facts
   * (`revision: true`), and the revision replaces the summary only when it keeps more of them within the job's size.
   * A revision that fails leaves the first summary in place (see `CompactJob.revisionError`).
   */
  maxRevisions?: number;
  /** Called each time a job's summary settles; what it throws is thrown back unchanged. */
  onProgress?: (progress: CompactProgress) => void;
  /**
   * Called once for each job that fell back (its `summarize` failed, or its summary was refused), after the history
   * was compacted; `result.warnings` says the same. What it throws is thrown back unchanged.
   */
  onFallback?: (fallback: CompactFallback) => void;
  /**
   * The provider's error for this history, when sending it failed because it was too long (what `context_overflow`
   * recognizes; anything else is `INVALID_OPTION`). Compaction is forced, and the limit the error states becomes the
   * window, scaled by how much higher the provider counted the history than the estimate did. Send once more; a
   * second overflow is the host's to throw.
   */
  overflow?: unknown;
  /**
   * Where a conversation's last compaction is kept for its next request: any store with `get(key)` and
   * `set(key, value)` (either may return a Promise); a `Map` works, and so does a wrapper around a KV store.
   * For a host that keeps no state of its own, such as a proxy, which is sent the whole uncompacted history each
   * time: once compacted, a request that starts with the same messages gets the compacted history in their
   * place, and the model is asked again only when that outgrows the limit. The key names the conversation's
   * opening (its messages through the first user message); the value, a string, holds the compacted messages
   * (keep the store as private as the conversations) and the fingerprint of the messages they replace: a
   * request whose earlier messages differ in any field or value but `cache_control` marks (an edited message,
   * another conversation that opens alike) is compacted as if nothing was stored. The messages the compaction
   * kept are taken from the request as it is now, with its marks. Read on every call, written after each compaction;
   * what `get` or `set` throws is thrown back unchanged.
   */
  memory?: CompactMemory;
}

/** A store for `CompactOptions.memory`: a `Map<string, string>`, or a wrapper around any key-value store. */
export interface CompactMemory {
  get(key: string): string | undefined | null | Promise<string | undefined | null>;
  set(key: string, value: string): unknown;
}

/** A job that did not get the model's summary, in `compact`. */
export interface CompactFallback {
  jobId: string;
  /** What stood in: the offline digest, or a notice that the messages were dropped. */
  source: "offline" | "truncated";
  /** Why: the error `summarize` threw (unchanged), or the refusal of its summary. */
  error: unknown;
}

/** One job settled, in `compact`. */
export interface CompactProgress {
  /** The job that settled. */
  jobId: string;
  /** How many jobs have settled, this one included. */
  done: number;
  /** How many jobs the plan has. */
  total: number;
  /** `"llm"`: `summarize` gave text; `"failed"`: it threw or gave no string (the offline digest will stand in). */
  source: "llm" | "failed";
}

/** How one job of a `compact` call was summarized. */
export interface CompactJob {
  /** The plan job's id. */
  id: string;
  /** `"llm"`: `summarize`'s text; `"offline"`: the offline digest stood in; `"truncated"`: the messages were dropped with a notice. */
  source: "llm" | "offline" | "truncated";
  /** Why the digest stood in: the error `summarize` threw (unchanged), or the refusal of its summary (`SUMMARY_NOT_SMALLER`, `SUMMARY_EMPTY`). */
  error?: unknown;
  /** The revision rounds whose summary was kept (see `maxRevisions`). */
  revisions: number;
  /** The error of a revision round that failed (its summary stayed as it was). */
  revisionError?: unknown;
}

/** The result of `compact`. */
export interface CompactResult<T = Message[]> {
  /** Whether the history was compacted (false when the plan says it is not needed, or nothing can be summarized). */
  compacted: boolean;
  /** The history, in the input's shape: compacted, or (when `compacted` is false) a new array (or body copy) of the very same message objects. */
  messages: T;
  /** Estimated tokens before (before pruning). */
  tokensBefore: number;
  /** Estimated tokens after pruning and compacting. */
  tokensAfter: number;
  /** What was replaced and which facts the summary kept; null when nothing was compacted. */
  audit: Audit | null;
  /** The facts the summaries lost that were appended to them (`keepFacts`); empty when nothing was compacted. */
  factsAppended: string[];
  /** The user messages quoted after the summaries (`keepUserText`); empty when nothing was compacted. */
  userTextAppended: number[];
  /** Warnings from the plan or from applying the summary. */
  warnings: string[];
  /** The plan the compaction followed (made after pruning). */
  plan: Plan;
  /** What pruning cleared first (indices into the history as it was before pruning, which keeps the message count). Empty when nothing was. */
  pruned: PrunedOutput[];
  /** One entry per plan job: where its summary came from. Empty when nothing was compacted. */
  jobs: CompactJob[];
  /**
   * With `memory`: how many of the given messages the remembered compaction stood in for (0 when none did). The
   * rest of the result then describes that history: `tokensBefore` counts it, and `messages` holds new objects
   * (or text) for the compacted part, then the caller's own messages that came after it.
   */
  resumed: number;
}

/**
 * Plans, asks `summarize` for each job, falls back to the offline digest where it fails, and applies:
 * `plan_compaction` → `summarize` → (`summarize_offline`) → `apply_summary` in one call.
 * The messages are read when it is called: the result holds those objects, even if the host's array changes meanwhile
 * (messages it appends while the summaries are written are not in the result: append them again).
 */
export function compact<T extends Messages>(messages: T, options: CompactOptions): Promise<CompactResult<Returned<T>> & BodyOf<T>>;

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
  /**
   * Extra body fields sent with every request (`temperature`, `reasoning_effort`, `service_tier`, Anthropic's
   * `thinking`, ...). The fields the client writes itself (`model`, `messages`, the length limit, Anthropic's
   * `system`) are refused with `INVALID_OPTION`.
   */
  body?: Record<string, unknown>;
}

/** Options of `openai_summarizer`. */
export interface OpenAISummarizerOptions extends SummarizerOptions {
  baseUrl: string;
  /**
   * Where the answer's length limit goes. Default by model: `"max_completion_tokens"` for OpenAI's reasoning models
   * (`o1`, `o3`, `o4-mini`, the `gpt-5` family; the last segment of `openai/o3` counts), which refuse `max_tokens`
   * with a 400; `"max_tokens"` for every other model, as most OpenAI-compatible servers read it.
   */
  maxTokensField?: "max_tokens" | "max_completion_tokens";
}

/**
 * A failed summary request, thrown (as a rejection) by a built-in client: a `CtxfoldError` whose `code` is
 * `SUMMARIZER_HTTP` (the endpoint answered with an error status), `SUMMARIZER_RESPONSE` (it answered without
 * summary text), `SUMMARIZER_TIMEOUT` or `SUMMARIZER_NETWORK` (no answer). The message never contains the key.
 */
export interface SummarizerError extends CtxfoldError {
  /** The HTTP status, when the endpoint answered. */
  status?: number;
  /** What `fetch` threw, for `SUMMARIZER_NETWORK` and `SUMMARIZER_TIMEOUT` (its own `cause` says why: `ECONNREFUSED`, the host and the port; the message quotes it). */
  cause?: unknown;
}

/**
 * A `summarize` function for an OpenAI-compatible Chat Completions endpoint (OpenAI, OpenRouter, vLLM, Ollama, ...):
 * POSTs `{ model, messages: [system, user], max_tokens }` (or `max_completion_tokens`, see `maxTokensField`) and the
 * `body` fields with the global `fetch`, and resolves to the answer's text. An answer cut off at the length limit
 * (`finish_reason: "length"`; Anthropic's `stop_reason: "max_tokens"`) ends where the model was writing: its unfinished
 * last word goes (half an id would read as a fact), with a heading it leaves empty.
 * Throws `INVALID_OPTION` at once for a bad configuration; its promise rejects with a `SummarizerError`.
 */
export function openai_summarizer(options: OpenAISummarizerOptions): (prompt: SummaryPrompt) => Promise<string>;
/** The same for the Anthropic Messages API (`POST /v1/messages`, `anthropic-version: 2023-06-01`). */
export function anthropic_summarizer(options: SummarizerOptions): (prompt: SummaryPrompt) => Promise<string>;

/** Options of `cache_breakpoints`: the shared options (`model` also picks the minimum cacheable length; the tokenizer defaults to `"claude"`), and these. */
export interface BreakpointOptions extends Options {
  /** Also return `messages`: a copy of the request with the markers applied (edited messages are copies; the rest are the caller's objects). */
  apply?: boolean;
  /** `cache_control.ttl` of the markers written: `"5m"` or `"1h"`. Omitted: the API's default (5 minutes). */
  ttl?: "5m" | "1h";
  /** The shortest prefix worth a marker. Default from `model`, per Anthropic's documentation: 4096 for Claude Opus 4.5/4.6 and Haiku 4.5, 2048 for Sonnet 4.6 and Haiku 3/3.5, 1024 otherwise. */
  minCacheableTokens?: number;
}

/** One `cache_control` marker chosen by `cache_breakpoints`. */
export interface Breakpoint {
  /** What it marks: the last tool definition, a block of the system prompt, or a block of a message. */
  target: "tools" | "system" | "message";
  /** The message's index, for `"message"`. */
  index?: number;
  /** The block that carries the marker: in the message's `content`, in `system` or in `tools` (a string content becomes one text block). */
  block: number;
  /** Estimated tokens of the prefix the marker ends. */
  tokens: number;
  /** What the marker adds to the expected cached tokens of this request and the next one. */
  expectedTokens: number;
  /** Why it was chosen, in words. */
  reason: string;
}

export interface BreakpointResult<T = Message[]> {
  /** The chosen markers in request order; with the host's own markers, never more than 4. */
  breakpoints: Breakpoint[];
  /** `cache_control` markers already in the request (they count toward Anthropic's 4). */
  existing: number;
  /** The shortest prefix a marker was allowed to end. */
  minTokens: number;
  /** The first message a prune or a compaction would rewrite next (markers after it are less likely to be read again). */
  volatileFrom: number;
  /** Problems found, e.g. more than 4 markers already. */
  warnings: string[];
  /** With `apply: true`: the request with the markers, in the input's shape. */
  messages?: T;
}

/**
 * Chooses up to 4 Anthropic `cache_control` positions (end of the tools and system prompt, the last stable message, the newest
 * message, the end of the previous request) by expected cached tokens: the prefix each covers × the chance it is reused.
 * Anthropic format only (a plain-text history is read as Anthropic's).
 */
export function cache_breakpoints<T extends Messages>(messages: T, options?: BreakpointOptions): BreakpointResult<Returned<T>>;

/** One piece of injected context: a reminder, hook output, an editor selection. */
export interface ContextItem {
  /** The tag it is wrapped in (`system-reminder`, `hook-output`, `selection`): letters, digits, `_ - . :`, starting with a letter or `_`. */
  tag: string;
  /** The text inside the tag; any `</tag` in it is escaped so it cannot close the tag. */
  text: string;
  /** Attributes of the opening tag (`{ file: "src/app.py" }`); values are escaped. */
  attributes?: Record<string, string>;
}

/** What the next user turn is made of. */
export interface TurnInput {
  /** Results of the calls the last assistant message made, first in the turn. */
  toolResults?: { toolCallId: string; content: unknown; isError?: boolean; /** The tool's name; looked up in the history by `toolCallId` when omitted. */ name?: string }[];
  /** Injected context, after the results, each in its own tag. */
  context?: ContextItem[];
  /** What the user typed, last. */
  text?: string;
}

export interface TurnResult {
  /** The messages to append, in the history's format: one user message (Anthropic, Gemini), or the tool messages and then one user message (OpenAI Chat, Responses, AI SDK). */
  messages: Message[];
  /** The format they were written in. */
  format: Format;
  /** The pieces that were longer than `maxInputChars` and were cut in the middle, with their full length in characters. */
  cut: { path: string; chars: number }[];
}

/**
 * Builds the next user turn: pending tool results, then tagged context, then the user's text, in the history's format.
 * Options: `format` (detected from `messages`; an empty history reads as OpenAI Chat), `maxInputChars` (per piece, default 30 000).
 */
export function assemble_turn(messages: Messages, turn: TurnInput, options?: { format?: Format; maxInputChars?: number }): TurnResult;

/** Options of a `Session`: the shared options (`cache` is on by default; `false` prunes whenever `prune` would), and `thrashAfter`. */
export interface SessionOptions extends Options {
  /** Requests in a row without a cache read (after the first request) before `health().thrashing` is reported. Default 3. */
  thrashAfter?: number;
}

/**
 * A provider's usage report, in any of these shapes (or the whole response holding `usage` / `usageMetadata`):
 * ctxfold's `{ promptTokens, cachedTokens | cacheReadTokens, cacheWriteTokens, outputTokens }`, OpenAI Chat's
 * `{ prompt_tokens, completion_tokens, prompt_tokens_details: { cached_tokens } }`, OpenAI Responses'
 * `{ input_tokens, input_tokens_details: { cached_tokens }, output_tokens }`, Anthropic's `{ input_tokens,
 * cache_read_input_tokens, cache_creation_input_tokens, output_tokens }` (the prompt is their sum), Gemini's
 * `{ promptTokenCount, cachedContentTokenCount, candidatesTokenCount }`, the AI SDK's `{ inputTokens, cachedInputTokens, outputTokens }`.
 */
export type ProviderUsage = Record<string, unknown>;

/** A usage report read into one shape. */
export interface Usage {
  /** The whole input, cached tokens included. */
  promptTokens: number;
  /** Input tokens read from the provider's cache. */
  cachedTokens: number;
  /** Input tokens written to the cache (Anthropic). */
  cacheWriteTokens: number;
  /** Tokens of the answer. */
  outputTokens: number;
}

/** One request of the session's timeline. */
export interface RequestLog {
  /** ctxfold's estimate of the messages sent. */
  estimatedTokens: number;
  /** How many messages were sent. */
  messages: number;
  /** The provider's report, once `record` was called. */
  usage?: Usage;
  /** The edit the session made before this request. */
  edit?: "prune" | "compaction";
  /** Tokens that edit removed (0 without one). */
  tokensSaved: number;
  /** The first message that differs from the previous request's; absent when this request extends the previous one. */
  changedAt?: number;
  /** The request was over the limit and nothing could shrink it. */
  stalled: boolean;
}

/** Requests in a row that read nothing from the cache, and the likely cause. */
export interface Thrash {
  /** The timeline index of the first request of the run. */
  since: number;
  /** How many requests in a row. */
  requests: number;
  /** Where the prompt prefix changed, when it did. */
  changedAt?: number;
  /** What changed it: an edit of this session, or the host. */
  edit?: "prune" | "compaction" | "host";
  /** The cause in words. */
  cause: string;
}

/** A session's health. */
export interface Health {
  /** Requests prepared and sent. */
  requests: number;
  /** Reported prompt tokens, summed. */
  promptTokens: number;
  /** Reported cached tokens, summed. */
  cachedTokens: number;
  /** Reported cache writes, summed. */
  cacheWriteTokens: number;
  /** Reported output tokens, summed. */
  outputTokens: number;
  /** Reported prompt tokens per reported request. */
  tokensPerRequest: number;
  /** `cachedTokens / promptTokens` (0 to 1). */
  cacheHitRate: number;
  /** Prunes made, and the tokens they removed. */
  prunes: { count: number; tokensSaved: number };
  /** Compactions applied, and the tokens they removed. */
  compactions: { count: number; tokensSaved: number };
  /** Edits put off because they cost more cache than they saved. */
  deferred: number;
  /** Requests over the limit that nothing could shrink, and summaries that did not shrink the history. */
  stalls: number;
  /** Set while the latest requests read nothing from the cache. */
  thrashing?: Thrash;
  /** Every request, oldest first. */
  timeline: RequestLog[];
}

/** What `Session.prepare` decided. */
export interface Prepared<T = Message[]> {
  /** `"send"`: send `messages` as they are; `"pruned"`: old outputs were cleared, send `messages`; `"compact"`: summarize `plan.jobs` with your LLM, call `apply_summary`, then `prepare` again (nothing is sent meanwhile). */
  action: "send" | "pruned" | "compact";
  /** The history to send. */
  messages: T;
  /** Estimated tokens of it. */
  tokens: number;
  /** What was cleared (with `"pruned"`). */
  pruned: PrunedOutput[];
  /** The cache rule's verdict on the edit it weighed. */
  cache?: CacheDecision;
  /** The compaction to do (with `"compact"`). */
  plan?: Plan;
}

/** A session's history: what it was given, as objects (text is read into objects once). */
export type SessionHistory<T> = T extends string | Uint8Array ? object[] | RequestBody : Returned<T>;

/**
 * State for hosts that want it: holds the history, decides when to prune and compact (weighing the prompt cache), and
 * keeps health metrics. Per turn: `append` the user's message, `prepare()`, send `prepared.messages`, `record(usage)`,
 * `append` the reply. Call `free()` when done to release its WebAssembly memory.
 */
export class Session<T extends Messages = Message[]> {
  /** `messages`: the history so far (an array or a request body; copied, the objects are kept; JSON text is read into objects once). */
  constructor(messages?: T, options?: SessionOptions);
  /** The history as it stands: your objects, copies where the session edited (objects too when it was given text). */
  readonly messages: SessionHistory<T>;
  /** Adds a message or an array of messages at the end. */
  append(items: Item<T> | readonly Item<T>[]): void;
  /** Decides what to do before the next request, and logs the request as sent unless the action is `"compact"`. */
  prepare(): Prepared<SessionHistory<T>>;
  /** Splices in the summary of the pending compaction (a string, or summaries by job id; none for a plan with no job, see `Plan.dropped`). */
  apply_summary(summary?: Summary): ApplyResult<SessionHistory<T>>;
  /**
   * The provider's usage for the request just sent; returns the request's log entry. Until the next prune or
   * compaction (or a change of the messages it covered), the latest report anchors the session's estimate and,
   * with the oldest, corrects its scale (see `Calibration.scale`), so `prepare()` compacts on the provider's count.
   */
  record(usage: ProviderUsage): RequestLog;
  /**
   * When the request just sent failed: if `error` is the provider's answer that it was too long (what
   * `context_overflow` recognizes), the token count it states is recorded like `usage`, and the next `prepare()`
   * compacts, to the limit it states in the estimate's units. Returns what `context_overflow` found; `null`, and
   * nothing changes, for any other error.
   */
  overflowed(error: unknown): ContextOverflow | null;
  /** Metrics, the timeline and thrashing. */
  health(): Health;
  /** Releases the WebAssembly memory. */
  free(): void;
}
