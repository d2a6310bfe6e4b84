// Text that is not prose, as tool outputs carry it: a generated, deterministic set of shapes for the accuracy
// benchmark (estimate.mjs). Each shape is one text of 3 000 to 100 000 characters; the random bytes come from a
// fixed linear congruential generator, so every run measures the same texts.
let seed = 1;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const bytes = (n) => Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256)));
const hex = (n) => bytes(n).toString("hex");
const uuid = () => {
  const h = hex(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

/** `{ name: text }`, the same on every call. */
export function shapes() {
  seed = 1;
  return {
    "base64 (one line)": bytes(22500).toString("base64"),
    "base64 (76-column lines)": bytes(22500).toString("base64").replace(/(.{76})/g, "$1\n"),
    "data URL in JSON": JSON.stringify({ name: "chart.png", url: `data:image/png;base64,${bytes(12000).toString("base64")}` }),
    "hex blob": hex(8000),
    "hex dump (xxd)": Array.from({ length: 300 }, (_, i) => `${(i * 16).toString(16).padStart(8, "0")}: ${hex(16).match(/.{4}/g).join(" ")}  ................`).join("\n"),
    "UUIDs, one per line": Array.from({ length: 400 }, uuid).join("\n"),
    "git log --oneline hashes": Array.from({ length: 300 }, (_, i) => `${hex(20)} Fix parser case ${i}`).join("\n"),
    "100 000 × y": "y".repeat(100000),
    "5 000 dashes": "-".repeat(5000),
    "3 000 × =": "=".repeat(3000),
    "4 000 spaces": " ".repeat(4000),
    "progress bar (\\r)": Array.from({ length: 200 }, (_, i) => `[${"#".repeat(i % 40)}${".".repeat(40 - (i % 40))}] ${(i % 40) * 2.5}%`).join("\r"),
    "minified JSON": JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ id: i, name: `item${i}`, price: Math.round(random() * 10000) / 100, tags: ["a", "b"], ok: random() > 0.5 }))),
    "minified JS": Array.from({ length: 200 }, (_, i) => `function f${i}(a,b){return a+b*${i}}var x${i}=f${i}(${i},2);if(x${i}>10){console.log("v",x${i})}`).join(";"),
    "box drawing": ("┌" + "─".repeat(60) + "┐\n│" + " ".repeat(60) + "│\n└" + "─".repeat(60) + "┘\n").repeat(20),
    // After the others, so that their random bytes stay what they were.
    "bit strings": Array.from({ length: 6 }, () => Array.from(bytes(193), (b) => b.toString(2).padStart(8, "0")).join("")).join("\n"),
    "19-digit ids, one per line": Array.from({ length: 400 }, () => `${1 + Math.floor(random() * 9)}${Array.from(bytes(18), (b) => b % 10).join("")}`).join("\n"),
  };
}
