// DOM building for the demo. Conversation text is untrusted (it may hold "<script>" or "<img onerror>"),
// so nothing here ever parses HTML: strings always become text nodes, attributes are set one by one.

/** `el("p", { class: "x" }, "text", child)`: an element; strings become text nodes, never markup. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  node.append(...children.flat().filter((c) => c !== null && c !== undefined).map((c) => (c instanceof Node ? c : String(c))));
  return node;
}

const SVG = "http://www.w3.org/2000/svg";

/** The same for SVG elements. */
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  node.append(...children.map((c) => (c instanceof Node ? c : String(c))));
  return node;
}

/** Replaces a container's content. */
export function fill(container, ...children) {
  container.replaceChildren(...children.flat().map((c) => (c instanceof Node ? c : String(c))));
}

export const n = (x) => Number(x).toLocaleString("en-US");

/** `<dl>` rows from [term, description] pairs. */
export function facts(pairs) {
  return pairs.flatMap(([term, desc]) => [el("dt", {}, term), el("dd", {}, desc)]);
}
