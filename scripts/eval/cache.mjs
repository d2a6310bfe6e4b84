// The model's answers kept on disk (`--cache DIR`), so that a run comparing ctxfold's settings asks the model only
// what changed: the summaries of the same prompts and the answers about the same histories come from the cache.
// Worth it only with a model that gives the same answer to the same request, such as the local one (greedy).
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** What a replay (`readOnly`) throws for a request the cache does not hold: nothing is asked. */
export class NotCached extends Error {}

/**
 * `(kind, request, compute) => Promise<{ text, ms, cached }>`: the stored answer to `request` (any JSON) when the
 * cache has it, else `compute()`'s (`{ text, ms }`), stored. `ms` is always the time the model took when it was
 * asked, so latencies stay what was measured. Only answers are stored: a failure is asked again next time. With
 * no `dir`, every call computes; with `readOnly`, none does: a request not stored rejects with `NotCached`.
 */
export function answerCache(dir, model, { readOnly = false } = {}) {
  const counts = { hits: 0, misses: 0 };
  if (!dir) return Object.assign(async (_kind, _request, compute) => ({ ...(await compute()), cached: false }), { counts });
  mkdirSync(dir, { recursive: true });
  const lookup = async (kind, request, compute) => {
    const key = createHash("sha256").update(JSON.stringify({ model, kind, request })).digest("hex");
    const file = join(dir, `${key}.json`);
    try {
      const { text, ms } = JSON.parse(readFileSync(file, "utf8"));
      counts.hits++;
      return { text, ms, cached: true };
    } catch {
      if (readOnly) {
        counts.misses++;
        throw new NotCached(`${kind} not in the cache`);
      }
      const { text, ms } = await compute();
      counts.misses++;
      // Written whole, then renamed: a run stopped mid-write leaves no half entry.
      writeFileSync(`${file}.part`, JSON.stringify({ text, ms }));
      renameSync(`${file}.part`, file);
      return { text, ms, cached: false };
    }
  };
  return Object.assign(lookup, { counts });
}
