// `node scripts/fit-shapes.mjs`: measures how the exact tokenizers cut text that is not prose, and writes
// src/counting/scanner/shapes_table.rs. Three shapes (see src/counting/scanner/shapes.rs for how they are found):
//
//   encoded  base64 (standard and URL-safe): random bytes encoded, 40 to 3 000 characters, 4 samples per
//            length; the cost is the least-squares slope of tokens over characters.
//   encoded text  the same for base64 of text: pieces of the corpus's conversations (pkg-tests/corpus,
//            tau-bench and mini-swe-agent texts, in order) encoded.
//   hex      the same for hexadecimal, lower and upper case.
//   numbers  long numbers, random decimal digits and random binary ones (`0` and `1` only), 16 to 3 000
//            digits, 4 samples per length, from a generator of their own (the other shapes' samples stay
//            as they were): the tokens of decimal ones fitted as a cost per group of three digits plus a
//            cost per digit (least squares, neither below 0), then binary ones' cost per digit with that
//            group cost. o200k and cl100k cut any run of digits into groups of three, a token each (their
//            digits cost nothing more); claude holds a decimal digit in about 0.42 tokens and a binary one
//            in 0.28 (its groups cost nothing more).
//   hex dash  a dash between hexadecimal digits (UUIDs: 8-4-4-4-12): 400 random UUIDs, lower and upper
//            case, the mean of (tokens − 32 × hex cost) / 4 per UUID. A vocabulary seldom merges a dash with
//            the digits around it, and the short groups merge less than a long hex string.
//   hex groups  groups of hexadecimal digits written apart, as a dump shows bytes (`7f45 4c46`): rows of 4 to
//            32 groups of 2, 4 and 8 random digits, lower and upper case, 4 samples each, from a generator of their
//            own; the cost per group beyond its digits at the hex cost, least squares through the origin. About a
//            token for o200k and cl100k (the space and the cut), under half one for claude.
//   JSON marks  a run of JSON's punctuation (`{"`, `":"`, `","`, `"},{"`: only `"{}[]:,`, two or more)
//            between the keys and values of minified JSON: tau-bench's tool outputs (JSON objects, pkg-tests/
//            corpus) written again without spaces, those of its first 40 runs (the rest are held out, and
//            the error on them printed with the runs' cost alone and in context). A run alone is about one
//            token in every vocabulary; what the estimate gets wrong is the keys and values between the
//            runs, which the scanner reads as code's identifiers: on the held-out texts they cost 15% too
//            much for claude, 6% for cl100k and 4% too little for o200k. So the cost is fitted in context:
//            the one that makes the package's estimate of the texts (everything but the runs costed as it
//            ships: scripts/class_counts.rs --json-marks, built after the other tables are written) equal
//            their exact count. fit-profiles.mjs takes the runs' tokens off the exact counts before it fits
//            the scanner's classes, so the two fits depend on each other: after either changes, run this,
//            then fit-profiles.mjs, until neither table changes (from the costs measured alone, four
//            rounds; the last moved nothing).
//   code marks  a run of two or more marks in minified code (`){`, `});`, `=function(`), fitted in context as
//            the JSON marks are, on the minified bundles in the dev dependencies (node_modules, the versions
//            package-lock.json pins), cut into pieces of 20 000 characters: `source-map`'s
//            `dist/source-map.min.js`, `protobufjs`'s `dist/minimal/protobuf.min.js` and `web-streams-polyfill`'s
//            `dist/polyfill.min.js` fitted on; the same packages' other builds (`dist/protobuf.min.js`,
//            `dist/polyfill.es2018.min.js`, which share much of their source with the fitted ones) held out.
//            Few bundles, so the shapes bench's generated minified code is the check that shares nothing
//            with them. fit-profiles.mjs needs nothing of it: no corpus text reads as minified code.
//   runs     one character repeated: for each printable ASCII character and each tokenizer, how many
//            characters one token covers in a run of 4 096 (BPE vocabularies hold runs of 2, 4, ... 64
//            of a character as one token; digits go by three), and which runs of 1 to 32 of it, no
//            longer than that, are one token. A run is cut greedily into the longest such pieces
//            (then powers of two from 64 up to the first length): on runs of 4 to 199 of every
//            non-alphanumeric character this comes within 0.5% of the exact counts in all.
//   symbols  the same for the symbols outside ASCII that tables and progress bars are drawn with
//            (`SYMBOLS`: box drawing's lines, corners and joints, blocks and shades);
//            a symbol a vocabulary cuts into two or three tokens costs that many per character.
//
// Against the exact counts of `exactCounters` (scripts/corpus-texts.mjs), as fit-profiles.mjs.
// Deterministic: the random bytes come from a fixed linear congruential generator.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { readCorpus } from "../pkg-tests/corpus.mjs";
import { classCountRows, exactCounters } from "./corpus-texts.mjs";

const TOKENIZERS = await exactCounters();
const out = fileURLToPath(new URL("../src/counting/scanner/shapes_table.rs", import.meta.url));

let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const bytes = (n) => Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256)));

/** Tokens per character: the least-squares slope over samples of `make(length)`. */
function slope(count, make) {
  const points = [];
  for (const length of [40, 100, 300, 1000, 3000]) for (let k = 0; k < 4; k++) points.push([length, count(make(length))]);
  const n = points.length;
  const [sx, sy] = [points.reduce((s, p) => s + p[0], 0), points.reduce((s, p) => s + p[1], 0)];
  const [sxx, sxy] = [points.reduce((s, p) => s + p[0] ** 2, 0), points.reduce((s, p) => s + p[0] * p[1], 0)];
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

// Text to encode: the corpus's messages, read in order; each sample continues where the last one stopped.
const corpusText = ["tau-bench-airline.jsonl", "mini-swe-agent-tools.jsonl"]
  .flatMap((file) => readCorpus(file).slice(0, 20))
  .flatMap((c) => c.messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? ""))))
  .join("\n");
let textAt = 0;
const textBytes = (n) => {
  if (textAt + n > corpusText.length) textAt = 0;
  textAt += n;
  return Buffer.from(corpusText.slice(textAt - n, textAt));
};

let digitSeed = 11;
/** `n` random digits in `base` (10 or 2), from a generator of their own. */
function digits(n, base) {
  let s = "";
  for (let k = 0; k < n; k++) {
    digitSeed = (digitSeed * 1103515245 + 12345) % 2147483648;
    s += Math.floor((digitSeed / 2147483648) * base);
  }
  return s;
}

const SHAPES = {
  encoded: [(n) => bytes(n).toString("base64").slice(0, n), (n) => bytes(n).toString("base64url").slice(0, n)],
  encodedText: [(n) => textBytes(n).toString("base64").slice(0, n)],
  hex: [(n) => bytes(n).toString("hex").slice(0, n), (n) => bytes(n).toString("hex").toUpperCase().slice(0, n)],
};

/** Tokens of long numbers: `{ group, digit, binaryDigit }` (see the header). */
function numberCosts(count) {
  const lengths = [16, 17, 18, 19, 20, 24, 32, 40, 100, 300, 1000, 3000];
  const samples = (base) => lengths.flatMap((n) => [0, 1, 2, 3].map(() => [Math.ceil(n / 3), n, count(digits(n, base))]));
  const decimal = samples(10);
  const sum = (f) => decimal.reduce((s, p) => s + f(p), 0);
  const through0 = (points, x) => points.reduce((s, p) => s + x(p) * p[2], 0) / points.reduce((s, p) => s + x(p) ** 2, 0);
  const [gg, gd, dd, gy, dy] = [sum(([g]) => g * g), sum(([g, d]) => g * d), sum(([, d]) => d * d), sum(([g, , y]) => g * y), sum(([, d, y]) => d * y)];
  let group = (gy * dd - dy * gd) / (gg * dd - gd * gd);
  let digit = (dy * gg - gy * gd) / (gg * dd - gd * gd);
  if (group < 0) [group, digit] = [0, through0(decimal, ([, d]) => d)];
  if (digit < 0) [group, digit] = [through0(decimal, ([g]) => g), 0];
  const binary = samples(2).map(([g, d, y]) => [g, d, y - group * g]);
  return { group, digit, binaryDigit: Math.max(0, through0(binary, ([, d]) => d)) };
}

// Symbols outside ASCII that tables and progress bars are drawn with: box drawing's light, heavy, double and
// rounded lines, corners and joints, and the blocks and shades of progress bars. Not the ellipsis, dots or
// bullets: prose uses them (`莱昂纳多·迪卡普里奥`), and prose is the scanner's.
const SYMBOLS = [..."─━═│┃║┌┐└┘├┤┬┴┼┏┓┗┛┣┫┳┻╋┡┩╇╔╗╚╝╠╣╦╩╬╭╮╯╰█▌░▒▓"];
// src/counting/scanner/shapes.rs looks for them in U+2500–U+259F only.
for (const ch of SYMBOLS) if (ch.codePointAt(0) < 0x2500 || ch.codePointAt(0) > 0x259f) throw new Error(`${ch} is not box drawing or a block`);

/** How many characters one token covers in a long run of `ch`, and which runs of 1 to 32 of it (bit
 * `n - 1`), no longer than that, are one token. */
function runOf(count, ch) {
  const longest = Math.max(1, Math.round(4096 / count(ch.repeat(4096))));
  let mask = 1; // a single character is one token: checked for symbols, always so for ASCII
  for (let k = 2; k <= Math.min(longest, 32); k++) if (count(ch.repeat(k)) === 1) mask |= 2 ** (k - 1);
  return { longest, mask: mask >>> 0 };
}

// Minified JSON: tau-bench's tool outputs without their spaces; those of its first 40 runs are fitted on,
// the rest are held out (the fit's error on them is printed).
const minified = (conversations) =>
  conversations
    .flatMap((c) => c.messages.filter((m) => m.role === "tool"))
    .flatMap((m) => {
      try {
        return [JSON.stringify(JSON.parse(m.content))];
      } catch {
        return []; // an error message, not JSON
      }
    });
const tauBench = readCorpus("tau-bench-airline.jsonl");
const minifiedJson = minified(tauBench.slice(0, 40));
const minifiedHeldOut = minified(tauBench.slice(40));
// The runs of ASCII punctuation made of JSON's marks only, as src/counting/scanner/shapes.rs finds them.
const jsonMarkRuns = minifiedJson.flatMap((t) => t.match(/[!-/:-@[-`{-~]{2,}/g) ?? []).filter((r) => /^["{}[\]:,]+$/.test(r));

/** Mean tokens of a run of JSON marks tokenized alone (what the table holds until the fit in context). */
const jsonMarksAlone = (count) => jsonMarkRuns.reduce((sum, r) => sum + count(r), 0) / jsonMarkRuns.length;

/**
 * Per text: the runs of JSON marks (`--json-marks`) or of code's marks (`--code-marks`) the package finds, and the
 * tokens of all the rest as it costs them (from the build).
 */
const marksAndRest = (flag, texts) => classCountRows([flag], texts);

/** The cost of a run of `flag`'s marks for each tokenizer that makes the package's estimate of `texts` equal their exact count. */
function marksInContext(flag, texts) {
  const lines = marksAndRest(flag, texts);
  const runs = lines.reduce((sum, l) => sum + l[0], 0);
  return Object.fromEntries(NAMES.map((name, k) => {
    const rest = lines.reduce((sum, l) => sum + l[1 + k], 0);
    const exact = texts.reduce((sum, t) => sum + TOKENIZERS[name](t), 0);
    return [name, (exact - rest) / runs];
  }));
}

/**
 * The package's error on `texts` (their `lines` from `marksAndRest`) with the runs at `cost`: in all, and the
 * median |error| of the texts of over 50 tokens.
 */
function marksError(texts, lines, cost) {
  return Object.fromEntries(NAMES.map((name, k) => {
    const rows = texts.map((t, i) => [lines[i][1 + k] + cost[name] * lines[i][0], TOKENIZERS[name](t)]);
    const total = rows.reduce((s, r) => s + r[0], 0) / rows.reduce((s, r) => s + r[1], 0) - 1;
    const errors = rows.filter((r) => r[1] > 50).map((r) => Math.abs(r[0] / r[1] - 1)).sort((a, b) => a - b);
    return [name, { total, median: errors[errors.length >> 1] }];
  }));
}

// Minified code: bundles cut into pieces (see the header).
const bundle = (path) => {
  const text = readFileSync(fileURLToPath(new URL(`../node_modules/${path}`, import.meta.url)), "utf8");
  return Array.from({ length: Math.ceil(text.length / 20_000) }, (_, k) => text.slice(k * 20_000, (k + 1) * 20_000));
};
const minifiedCode = ["source-map/dist/source-map.min.js", "protobufjs/dist/minimal/protobuf.min.js", "web-streams-polyfill/dist/polyfill.min.js"].flatMap(bundle);
const minifiedCodeHeldOut = ["protobufjs/dist/protobuf.min.js", "web-streams-polyfill/dist/polyfill.es2018.min.js"].flatMap(bundle);
// The runs of two or more marks, as src/counting/scanner/shapes.rs finds them in minified code.
const codeMarkRuns = minifiedCode.flatMap((t) => t.match(/[!-/:-@[-`{-~]{2,}/g) ?? []).filter((r) => !/^["{}[\]:,]+$/.test(r));
const codeMarksAlone = (count) => codeMarkRuns.reduce((sum, r) => sum + count(r), 0) / codeMarkRuns.length;

/** Tokens per dash of a UUID beyond its 32 hexadecimal digits at `hex` tokens each (the higher of lower and upper case). */
function hexDash(count, hex) {
  const uuid = (upper) => {
    const h = upper ? bytes(16).toString("hex").toUpperCase() : bytes(16).toString("hex");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  };
  const perDash = (upper) => {
    let sum = 0;
    for (let k = 0; k < 400; k++) sum += (count(uuid(upper)) - 32 * hex) / 4;
    return sum / 400;
  };
  return Math.max(perDash(false), perDash(true));
}

let groupSeed = 13;
/** `n` random hexadecimal digits, from a generator of their own (the other shapes' samples stay as they were). */
function hexDigits(n, upper) {
  let s = "";
  for (let k = 0; k < n; k++) {
    groupSeed = (groupSeed * 1103515245 + 12345) % 2147483648;
    s += "0123456789abcdef"[Math.floor((groupSeed / 2147483648) * 16)];
  }
  return upper ? s.toUpperCase() : s;
}

/** Tokens per group of hexadecimal digits written apart, beyond its digits at `hex` tokens each (the higher of lower and upper case). */
function hexGroup(count, hex) {
  const perGroup = (upper) => {
    let [sxy, sxx] = [0, 0];
    for (const width of [2, 4, 8]) {
      for (const groups of [4, 8, 16, 32]) {
        for (let k = 0; k < 4; k++) {
          const row = Array.from({ length: groups }, () => hexDigits(width, upper)).join(" ");
          sxy += groups * (count(row) - hex * groups * width);
          sxx += groups * groups;
        }
      }
    }
    return sxy / sxx;
  };
  return Math.max(perGroup(false), perGroup(true));
}

const round = (x) => Math.round(x * 1e4) / 1e4;
/** `x` rounded, as a Rust float literal (`1.0`, not `1`). */
const literal = (x) => (Number.isInteger(round(x)) ? round(x).toFixed(1) : String(round(x)));
const rates = {};
const symbols = {};
const runs = {};
const pieces = {};
for (const [name, count] of Object.entries(TOKENIZERS)) {
  // The higher of the variants: estimating low is the dangerous side.
  rates[name] = Object.fromEntries(Object.entries(SHAPES).map(([shape, makers]) => [shape, Math.max(...makers.map((m) => slope(count, m)))]));
  runs[name] = [];
  pieces[name] = [];
  for (let c = 32; c < 127; c++) {
    const { longest, mask } = runOf(count, String.fromCharCode(c));
    runs[name].push(longest);
    pieces[name].push(mask);
  }
  symbols[name] = SYMBOLS.map((ch) => (count(ch) === 1 ? { one: 1, ...runOf(count, ch) } : { one: count(ch), longest: 1, mask: 1 }));
}
// After the rates of every tokenizer, so that their samples are the same with or without this one.
for (const [name, count] of Object.entries(TOKENIZERS)) {
  rates[name].hexDash = hexDash(count, round(rates[name].hex));
  rates[name].hexGroup = hexGroup(count, round(rates[name].hex));
  rates[name].jsonMarks = jsonMarksAlone(count);
  rates[name].codeMarks = codeMarksAlone(count);
  rates[name].numbers = numberCosts(count);
  console.log(`${name}: encoded ${rates[name].encoded.toFixed(4)}, encoded text ${rates[name].encodedText.toFixed(4)}, hex ${rates[name].hex.toFixed(4)} tokens per character, ${rates[name].hexDash.toFixed(4)} per dash between hex digits, ${rates[name].hexGroup.toFixed(4)} per group of hex digits written apart, ${rates[name].jsonMarks.toFixed(4)} per run of JSON marks alone (${jsonMarkRuns.length} runs); long numbers ${rates[name].numbers.group.toFixed(4)} per group of three digits, ${rates[name].numbers.digit.toFixed(4)} per decimal digit, ${rates[name].numbers.binaryDigit.toFixed(4)} per binary digit`);
}

const table = (name) => `    [${runs[name].join(", ")}],`;
const hex32 = (n) => `0x${n.toString(16)}`;
const pieceTable = (name) => `    [${pieces[name].map(hex32).join(", ")}],`;
const NAMES = ["o200k", "cl100k", "claude"];
const symbolRow = (ch, k) => {
  const field = (f) => NAMES.map((n) => f(symbols[n][k])).join(", ");
  return `    SymbolRun { symbol: '${ch}', one: [${field((s) => s.one)}], longest: [${field((s) => s.longest)}], pieces: [${field((s) => hex32(s.mask))}] },`;
};
/** Writes the table, as the package builds it. */
const writeTable = () => writeFileSync(
  out,
  `// Generated by scripts/fit-shapes.mjs against the exact tokenizers; do not edit by hand: refit instead.

/// Tokens per character of base64 (of binary data, and of text) and of hexadecimal, for o200k, cl100k
/// and claude.
pub const ENCODED: [f32; 3] = [${["o200k", "cl100k", "claude"].map((n) => round(rates[n].encoded)).join(", ")}];
pub const ENCODED_TEXT: [f32; 3] = [${["o200k", "cl100k", "claude"].map((n) => round(rates[n].encodedText)).join(", ")}];
pub const HEX: [f32; 3] = [${["o200k", "cl100k", "claude"].map((n) => round(rates[n].hex)).join(", ")}];
/// Tokens of long numbers for o200k, cl100k and claude: per group of three digits, and per digit of
/// decimal and of binary ones.
pub const NUMBER_GROUP: [f32; 3] = [${["o200k", "cl100k", "claude"].map((n) => literal(rates[n].numbers.group)).join(", ")}];
pub const NUMBER_DIGIT: [f32; 3] = [${["o200k", "cl100k", "claude"].map((n) => literal(rates[n].numbers.digit)).join(", ")}];
pub const BINARY_DIGIT: [f32; 3] = [${["o200k", "cl100k", "claude"].map((n) => literal(rates[n].numbers.binaryDigit)).join(", ")}];
/// Tokens per dash between hexadecimal digits (a UUID's), for o200k, cl100k and claude.
pub const HEX_DASH: [f32; 3] = [${["o200k", "cl100k", "claude"].map((n) => round(rates[n].hexDash)).join(", ")}];
/// Tokens per group of hexadecimal digits written apart (a dump's \`7f45 4c46\`), besides its digits' as
/// \`HEX\`, for o200k, cl100k and claude.
pub const HEX_GROUP: [f32; 3] = [${["o200k", "cl100k", "claude"].map((n) => round(rates[n].hexGroup)).join(", ")}];
/// Tokens per run of JSON marks in minified JSON (\`":"\`, \`","\`, \`"},{"\`), for o200k, cl100k and claude:
/// what a run adds to the estimate of minified JSON, the words and numbers around it costed as the scanner costs
/// them.
pub const JSON_MARKS: [f32; 3] = [${["o200k", "cl100k", "claude"].map((n) => round(rates[n].jsonMarks)).join(", ")}];
/// Tokens per run of marks in minified code (\`){\`, \`});\`, \`=function(\`), for o200k, cl100k and claude: what a
/// run adds to the estimate of a minified bundle, the identifiers and numbers around it costed as the scanner
/// costs them.
pub const CODE_MARKS: [f32; 3] = [${["o200k", "cl100k", "claude"].map((n) => round(rates[n].codeMarks)).join(", ")}];

/// For o200k, cl100k and claude: how many characters one token covers in a run of one repeated character,
/// for each printable ASCII character from the space (0x20) to \`~\` (0x7E).
#[rustfmt::skip]
pub const RUN_LENGTH: [[u16; 95]; 3] = [
${table("o200k")}
${table("cl100k")}
${table("claude")}
];

/// For o200k, cl100k and claude, and each printable ASCII character: which runs of it of 1 to 32 (bit
/// \`n - 1\` for a run of \`n\`), no longer than its \`RUN_LENGTH\`, are one token.
#[rustfmt::skip]
pub const RUN_PIECES: [[u32; 95]; 3] = [
${pieceTable("o200k")}
${pieceTable("cl100k")}
${pieceTable("claude")}
];

/// How o200k, cl100k and claude cut runs of a symbol: the tokens of one alone (1 to 3), and for a symbol of
/// one token, how many characters one token covers in a long run of it and its pieces of 1 to 32 as in
/// \`RUN_PIECES\` (1 and 1 for the others).
pub struct SymbolRun {
    pub symbol: char,
    pub one: [u8; 3],
    pub longest: [u16; 3],
    pub pieces: [u32; 3],
}

/// The symbols outside ASCII that tables and progress bars are drawn with.
#[rustfmt::skip]
pub const SYMBOL_RUNS: [SymbolRun; ${SYMBOLS.length}] = [
${SYMBOLS.map(symbolRow).join("\n")}
];
`,
);
writeTable();
const percent = (x) => `${(100 * x).toFixed(1)}%`;
for (const [what, key, flag, fitted, heldOut] of [
  ["JSON marks in minified JSON", "jsonMarks", "--json-marks", minifiedJson, minifiedHeldOut],
  ["code's marks in minified code", "codeMarks", "--code-marks", minifiedCode, minifiedCodeHeldOut],
]) {
  const alone = Object.fromEntries(NAMES.map((n) => [n, round(rates[n][key])]));
  const inContext = marksInContext(flag, fitted);
  for (const name of NAMES) rates[name][key] = inContext[name];
  console.log(`per run of ${what}, fitted in context (${fitted.length} texts): ${NAMES.map((n) => `${n} ${inContext[n].toFixed(4)}`).join(", ")}`);
  const heldOutLines = marksAndRest(flag, heldOut);
  for (const [how, cost] of [["alone", alone], ["in context", inContext]]) {
    const error = marksError(heldOut, heldOutLines, cost);
    console.log(`  held out (${heldOut.length} texts), the runs' cost ${how}: error in all / median |error| ${NAMES.map((n) => `${n} ${percent(error[n].total)} / ${percent(error[n].median)}`).join(", ")}`);
  }
}
writeTable();
console.log(`wrote ${out}`);
