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
 * Whether `expected` occurs in `text`, both normalized, not as part of a longer ASCII word or number (so "27"
 * is not found in "2787", nor "id" in "idea"); CJK text has no spaces, so there only ASCII neighbours count.
 */
export function matches(text, expected) {
  const hay = normalize(text);
  const needle = normalize(expected);
  if (!needle) return false;
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) {
    const before = hay[at - 1] ?? " ";
    const after = hay[at + needle.length] ?? " ";
    const edgeStart = asciiWord.test(needle[0]) && asciiWord.test(before);
    const edgeEnd = asciiWord.test(needle[needle.length - 1]) && asciiWord.test(after);
    if (!edgeStart && !edgeEnd) return true;
  }
  return false;
}
