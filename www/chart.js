// Tokens per message as an SVG bar chart: bar height = tokens, bar colour = the message's role, and the
// strip under each bar = what the plan does with it (keep, prune, summarize).
import { svg } from "./dom.js";

export const ROLE_COLORS = { system: "#64748b", developer: "#64748b", user: "#2563eb", assistant: "#16a34a", tool: "#ea580c", other: "#a855f7" };
export const ACTION_COLORS = { keep: "#cbd5e1", prune: "#facc15", summarize: "#7c3aed" };

const HEIGHT = 180;
const STRIP = 8;
const GAP = 3;
const AXIS = 16; // room under the strip for the first and last message numbers

/** `items`: [{ tokens, role, action, label }]. */
export function barChart(items, width) {
  const max = Math.max(1, ...items.map((i) => i.tokens));
  const step = width / Math.max(1, items.length);
  const barWidth = Math.max(1, step - (step > 4 ? 1 : 0));
  const total = HEIGHT + GAP + STRIP + AXIS;
  const root = svg("svg", {
    viewBox: `0 0 ${width} ${total}`, width, height: total, class: "bars", role: "img",
    "aria-label": `tokens of ${items.length} messages`,
  });
  const label = (x, anchor, text) => svg("text", { x, y: total - 3, "text-anchor": anchor, class: "axis" }, text);
  root.append(
    svg("text", { x: width - 2, y: 11, "text-anchor": "end", class: "axis" }, `tallest: ${max.toLocaleString("en-US")} tokens`),
    label(0, "start", "#0"),
    label(width, "end", `#${items.length - 1}`),
  );
  items.forEach((item, i) => {
    const h = Math.max(1, (item.tokens / max) * HEIGHT);
    const x = i * step;
    const group = svg("g", { class: `bar action-${item.action}`, "data-index": i });
    group.append(
      svg("title", {}, item.label),
      svg("rect", { x, y: HEIGHT - h, width: barWidth, height: h, fill: ROLE_COLORS[item.role] ?? ROLE_COLORS.other,
        "fill-opacity": item.action === "summarize" ? 0.55 : 1 }),
      svg("rect", { x, y: HEIGHT + GAP, width: barWidth, height: STRIP, fill: ACTION_COLORS[item.action] }),
    );
    root.append(group);
  });
  return root;
}
