// The session view: one bar per request (height = prompt tokens; the cached part in green, the rest, written
// to the cache, in grey), a mark above the requests before which the session pruned (yellow) or compacted
// (purple), and the session's health.
import { el, facts, fill, n, svg } from "./dom.js";

const HEIGHT = 160;
const MARK = 10;
const EDIT_COLORS = { prune: "#facc15", compaction: "#7c3aed" };

export function renderSession(timelineBox, factsBox, health, width) {
  const requests = health.timeline;
  const max = Math.max(1, ...requests.map((r) => r.usage?.promptTokens ?? 0));
  const step = width / Math.max(1, requests.length);
  const barWidth = Math.max(1, step - (step > 4 ? 1 : 0));
  const total = MARK + 2 + HEIGHT;
  const root = svg("svg", { viewBox: `0 0 ${width} ${total}`, width, height: total, role: "img", "aria-label": `${requests.length} requests` });
  requests.forEach((r, i) => {
    const prompt = r.usage?.promptTokens ?? 0;
    const cached = r.usage?.cachedTokens ?? 0;
    const h = Math.max(1, (prompt / max) * HEIGHT);
    const hc = (cached / max) * HEIGHT;
    const x = i * step;
    const group = svg("g", { class: "request", "data-index": i, "data-edit": r.edit ?? "none" });
    const saved = r.edit ? `; ${r.edit} before it saved ${n(r.tokensSaved)} tokens` : "";
    group.append(
      svg("title", {}, `request ${i}: ${n(prompt)} prompt tokens, ${n(cached)} cached${saved}`),
      svg("rect", { x, y: total - h, width: barWidth, height: h, fill: "#94a3b8" }),
      svg("rect", { x, y: total - hc, width: barWidth, height: hc, fill: "#16a34a" }),
    );
    if (r.edit) group.append(svg("rect", { x, y: 0, width: barWidth, height: MARK, fill: EDIT_COLORS[r.edit] }));
    root.append(group);
  });
  fill(timelineBox, root);
  const pct = (x) => `${(x * 100).toFixed(1)}%`;
  fill(factsBox, facts([
    ["Requests", `${n(health.requests)}, ${n(Math.round(health.tokensPerRequest))} prompt tokens each on average`],
    ["Cache hit rate", pct(health.cacheHitRate)],
    ["Prunes", `${n(health.prunes.count)}, ${n(health.prunes.tokensSaved)} tokens saved`],
    ["Compactions", `${n(health.compactions.count)}, ${n(health.compactions.tokensSaved)} tokens saved`],
    ["Deferred edits", `${n(health.deferred)} (they cost more cache than they saved)`],
    ["Stalls", n(health.stalls)],
    ["Cache thrashing", health.thrashing ? `${health.thrashing.requests} requests without a cache read: ${health.thrashing.cause}` : "none"],
  ]));
}

export const sessionLegend = () => el("p", { class: "hint" },
  "Bars: prompt tokens per request, cached part in green. Marks above: the session pruned (yellow) or compacted (purple) before that request.");
