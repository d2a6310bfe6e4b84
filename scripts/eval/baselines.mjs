// The baseline ctxfold is compared with: drop-oldest truncation to a token budget.
import { estimate } from "ctxfold";

/**
 * Drops whole messages from the start, after the leading system messages, until the estimate is within `budget`
 * (never the last message). A tool result whose call was dropped goes too, so the history stays one a provider
 * accepts. Returns `{ messages, dropped, tokens }`.
 */
export function truncateTo(messages, budget) {
  let head = 0;
  while (head < messages.length && messages[head].role === "system") head++;
  const keep = (from) => [...messages.slice(0, head), ...messages.slice(from)];
  // The next start: past one message and any tool results it leaves without their call.
  const next = (i) => {
    i++;
    while (i < messages.length - 1 && messages[i].role === "tool") i++;
    return i;
  };
  let from = head;
  // estimate() caches each message object's cost, so re-estimating the shrinking history is cheap.
  while (from < messages.length - 1 && estimate(keep(from)).total > budget) from = next(from);
  const kept = keep(from);
  return { messages: kept, dropped: from - head, tokens: estimate(kept).total };
}
