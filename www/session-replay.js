// Replays a conversation as a host using `Session` would run it: a request before each assistant message,
// compactions summarized with the offline digest, and a simulated provider prompt cache (the longest run of
// messages shared with the previous request, compared by identity, is cached; nothing under 1024 tokens, as
// on Anthropic). No DOM here: the page draws the result, and the package test recomputes it in Node.
// `api` is the ctxfold module (passed in so the same code runs against any build of it).

const MIN_CACHEABLE = 1024;
const sum = (xs) => xs.reduce((a, b) => a + b, 0);

/** Runs the conversation through a Session; returns its `health()`. */
export function replaySession(api, messages, options) {
  const session = new api.Session([], options);
  try {
    let previous = [];
    messages.forEach((m, k) => {
      const asks = k > 0 && (m?.role === "assistant" || m?.role === "model");
      if (asks) {
        let prepared = session.prepare();
        if (prepared.action === "compact") {
          session.apply_summary(api.summarize_offline(session.messages, prepared.plan));
          prepared = session.prepare();
        }
        const sent = prepared.messages;
        const perMessage = api.estimate(sent, options).perMessage;
        let common = 0;
        while (common < sent.length && common < previous.length && sent[common] === previous[common]) common++;
        const prefix = sum(perMessage.slice(0, common));
        const promptTokens = sum(perMessage);
        const cachedTokens = prefix >= MIN_CACHEABLE ? prefix : 0;
        session.record({ promptTokens, cachedTokens, cacheWriteTokens: promptTokens - cachedTokens });
        previous = sent;
      }
      session.append(m);
    });
    return session.health();
  } finally {
    session.free();
  }
}
