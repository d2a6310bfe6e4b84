// Scoring without a judge: an answer counts when the expected text occurs in it after normalization.

/**
 * Case-folded, width-folded (NFKC) text in which every run of characters other than letters and digits is one
 * space, and thousands separators and leading zeros are gone ("$2,787" and "2787" read alike, as do "07" and
 * "7"; "src/app.py" reads "src app py").
 */
export function normalize(text) {
  return String(text)
    .normalize("NFKC")
    .toLowerCase()
    .replace(/(\d),(?=\d{3}(?!\d))/g, "$1")
    // Leading zeros: "07" (a month) and "7" are one number.
    .replace(/(?<![\p{N}.,])0+(?=\d)/gu, "")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

const asciiWord = /[a-z0-9]/;

/**
 * Where `needle` (normalized) occurs in `hay` (normalized), not as part of a longer ASCII word or number (so "27"
 * is not found in "2787", nor "id" in "idea"); CJK text has no spaces, so there only ASCII neighbours count.
 */
function* occurrences(hay, needle) {
  if (!needle) return;
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) {
    const before = hay[at - 1] ?? " ";
    const after = hay[at + needle.length] ?? " ";
    const edgeStart = asciiWord.test(needle[0]) && asciiWord.test(before);
    const edgeEnd = asciiWord.test(needle[needle.length - 1]) && asciiWord.test(after);
    if (!edgeStart && !edgeEnd) yield at;
  }
}

/** Whether `expected` occurs in `text`, both normalized (see `occurrences`). */
export function matches(text, expected) {
  return !occurrences(normalize(text), normalize(expected)).next().done;
}

/** How far from an answer (characters of normalized text, each side) the words of its question still place it. */
const CONTEXT_CHARS = 100;
const cjk = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

/**
 * The words of a question's quote that can place its answer: ASCII words of three or more characters and each
 * pair of CJK characters (CJK text has no spaces), without the blank and what the answer itself spells.
 */
function placingWords(quoted, answer) {
  const said = normalize(answer);
  const words = new Set();
  for (const word of normalize(quoted.replaceAll("____", " ")).split(" ")) {
    if (!word || said.includes(word)) continue;
    if (cjk.test(word)) for (let i = 0; i + 1 < word.length; i++) words.add(word.slice(i, i + 2));
    else if (word.length >= 3) words.add(word);
  }
  return [...words];
}

/** The quote of a cloze question ("… wrote: "<quote>" What is the missing …"), or the whole question. */
function quoteOf(question) {
  return question.match(/wrote: "([\s\S]*)" What is the missing/)?.[1] ?? question;
}

/**
 * Whether `expected` occurs in `text` with words that `question` quotes around it: two of them within
 * `CONTEXT_CHARS` (one, when the quote has only one). A model finds an answer by the words the question quotes;
 * a bare value among others of its kind (an id in a list) it can rarely tell apart.
 */
export function inContext(text, expected, question) {
  const hay = normalize(text);
  const needle = normalize(expected);
  const words = placingWords(quoteOf(question), expected);
  const wanted = Math.min(2, words.length);
  for (const at of occurrences(hay, needle)) {
    const around = hay.slice(Math.max(0, at - CONTEXT_CHARS), at + needle.length + CONTEXT_CHARS);
    if (words.filter((w) => around.includes(w)).length >= wanted) return true;
  }
  return false;
}
