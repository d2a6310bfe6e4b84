// The asynchronous exports, `compact`, `openai_summarizer` and `anthropic_summarizer`, shared by every
// entry (browser, Node ESM, Node CommonJS, workerd). Everything they decide is decided in Rust, in
// `__`-prefixed exports of the glue (src/wasm/compact.rs, src/wasm/summarizer.rs); this file only awaits:
// the host's `summarize`, which may be any function, and the built-in clients' `fetch`.
// scripts/build.mjs ships this file as dist/async.js and, for `require`, inlines it into the CommonJS
// entry (dropping the `export` keyword below), so it must keep to one exported function and no imports.

/** The asynchronous exports, built on `glue` (the wasm-bindgen glue module, initialised or not). */
export function asyncExports(glue) {
  /**
   * Plans, asks `summarize` for each job (up to `concurrency` at once), falls back to the offline digest
   * where it fails, and applies. `onProgress` hears of each job as it settles.
   */
  async function compact(messages, options) {
    const memory = options?.memory;
    if (memory == null) {
      const result = await compactOnce(messages, options);
      result.resumed = 0;
      return result;
    }
    // The conversation's last compaction, when the store has one whose messages this request starts with:
    // the compacted history takes their place, and a model is asked again only when it outgrows the limit.
    // Bytes are copied first: what the store is asked for and what is spliced must be the same bytes, and a
    // caller may reuse its buffer while the store is awaited (a copy: 0.04 ms a megabyte in Node 20).
    if (messages instanceof Uint8Array) messages = new Uint8Array(messages);
    const recall = glue.__memory_recall(messages, memory);
    let resumed = 0;
    if (recall) {
      const stored = await memory.get(recall.key);
      const found = typeof stored === "string" ? glue.__memory_resume(messages, stored, recall.contents, recall.list) : undefined;
      if (found) ({ messages, resumed } = found);
    }
    const result = await compactOnce(messages, options);
    result.resumed = resumed;
    if (recall && result.compacted) await memory.set(recall.key, glue.__memory_state(recall.contents, result.messages));
    return result;
  }

  async function compactOnce(messages, options) {
    const begun = glue.__compact_begin(messages, options);
    if (begun.result) return begun.result;
    const { run, summarize, fallback, concurrency, maxRevisions, onProgress, onFallback, prompts } = begun;
    // Kept in job order, whatever order the calls settle in.
    const texts = new Array(prompts.length);
    const failures = new Array(prompts.length);
    const revisions = new Array(prompts.length).fill(0);
    const revisionErrors = new Array(prompts.length);
    let next = 0;
    let done = 0;
    let finished = false;
    async function worker() {
      while (next < prompts.length) {
        const i = next++;
        const prompt = prompts[i];
        try {
          // Called without a `this`, and a returned value that is not a Promise is awaited as one.
          let text = glue.__compact_text(prompt.jobId, await summarize(prompt));
          // Revision rounds while the summary lost facts and the revision keeps more (decided in Rust).
          for (let round = 0; round < maxRevisions; round++) {
            const revision = glue.__compact_revision(run, i, text);
            if (!revision) break;
            let revised;
            try {
              revised = glue.__compact_text(prompt.jobId, await summarize(revision));
            } catch (error) {
              revisionErrors[i] = error; // the first summary stands; the error is reported with the job
              break;
            }
            if (!glue.__compact_keeps_revision(run, i, text, revised)) break;
            text = revised;
            revisions[i] += 1;
          }
          texts[i] = text;
        } catch (error) {
          // fallback: "none": the host's own error, unchanged.
          if (!fallback) throw error;
          failures[i] = error;
        }
        done += 1;
        if (onProgress) onProgress({ jobId: prompt.jobId, done, total: prompts.length, source: texts[i] === undefined ? "failed" : "llm" });
      }
    }
    try {
      await Promise.all(Array.from({ length: Math.min(concurrency, prompts.length) }, worker));
      finished = true;
      const result = glue.__compact_finish(run, texts, failures, revisions, revisionErrors);
      // Every job that fell back is heard of (its warning is in `result.warnings` too).
      if (onFallback) for (const job of result.jobs) if (job.source !== "llm") onFallback({ jobId: job.id, source: job.source, error: job.error });
      return result;
    } finally {
      if (!finished) glue.__compact_cancel(run);
    }
  }

  /**
   * `summarize(prompt)` for one endpoint protocol ("openai" or "anthropic"), checked when it is made. What
   * to send and what the answer or a failure means is decided in Rust (src/wasm/summarizer.rs); this sends
   * it with the global `fetch`, so that it runs wherever the host runs.
   */
  function summarizer(api, options) {
    const client = glue.__summarizer_new(api, options);
    return async function summarize(prompt) {
      const { url, headers, body, timeoutMs } = glue.__summary_request(client, prompt);
      // AbortSignal.timeout rather than a timer of our own: nothing to clear, and no timer is left pending
      // in a Worker after the request is done. The body is read inside the same timeout: a server that
      // sends headers and then stalls still fails.
      const signal = AbortSignal.timeout(timeoutMs);
      const unreachable = (thrown, cause = describe(thrown)) => {
        const error = glue.__summary_unreachable(client, thrown?.name === "TimeoutError" || signal.aborted, cause);
        if (thrown !== undefined) error.cause = thrown;
        return error;
      };
      let response, text;
      try {
        response = await fetch(url, { method: "POST", headers, body, signal });
      } catch (thrown) {
        throw unreachable(thrown);
      }
      // A polyfilled fetch may resolve to anything. Not `instanceof Response`: a polyfill's responses, and
      // those of another realm (an iframe's fetch), are responses too.
      if (typeof response?.status !== "number" || typeof response.text !== "function") {
        throw unreachable(undefined, "fetch() resolved to something other than a Response");
      }
      try {
        text = await response.text();
      } catch (thrown) {
        throw unreachable(thrown);
      }
      return glue.__summary_answer(client, response.status, response.statusText, text);
    };
  }

  /**
   * What was thrown, as text: an Error's "Name: message" and its causes ("TypeError: fetch failed (Error:
   * connect ECONNREFUSED 127.0.0.1:2)"), or the value itself.
   */
  function describe(thrown, depth = 0) {
    if (!(thrown instanceof Error)) {
      try {
        return String(thrown);
      } catch {
        return Object.prototype.toString.call(thrown); // an object with no way to be text
      }
    }
    const cause = thrown.cause === undefined || depth >= 3 ? "" : ` (${describe(thrown.cause, depth + 1)})`;
    return `${thrown.name}: ${thrown.message}${cause}`;
  }

  return {
    compact,
    openai_summarizer: (options) => summarizer("openai", options),
    anthropic_summarizer: (options) => summarizer("anthropic", options),
  };
}
