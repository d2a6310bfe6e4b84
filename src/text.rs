//! Small text helpers shared by the prompt, the digest and apply: our summary marker, cutting text
//! safely (on character boundaries, at a line break or between words where one is near, with the cut made
//! visible), and reading long texts eight bytes at a time.

/// Every summary we splice in starts with this, so later plans recognize it and update it instead
/// of summarizing a summary. It is text, not a field: providers reject unknown fields.
pub const MARKER_OPEN: &str = "<ctxfold-summary";
pub const MARKER_CLOSE: &str = "</ctxfold-summary>";

/// The user turn before a summary in the `exchange` shape (OpenCode's question).
pub const SUMMARY_QUESTION: &str = "What did we do so far?";
/// The assistant turn after a summary in the `acknowledged` shape.
pub const SUMMARY_ACK: &str = "Understood. I will continue from this summary.";

/// Whether a text is a summary of ours: our marker at its start, or right after one short prefix line
/// (`summaryPrefix`, such as 【历史摘要】), and our closing marker after it.
pub fn opens_summary(text: &str) -> bool {
    // Bytes, not `split_once`, whose search is set up anew each time: every message of a history is asked.
    let head = &text.as_bytes()[..floor_boundary(text, 80)];
    let second_line = head.iter().position(|&b| b == b'\n').map(|n| &head[n + 1..]);
    let opens =
        text.starts_with(MARKER_OPEN) || second_line.is_some_and(|rest| rest.starts_with(MARKER_OPEN.as_bytes()));
    // The whole wrapper, closing tag included: a pasted opening tag alone does not make a summary.
    opens && text.contains(MARKER_CLOSE)
}

/// Wraps a summary in our marker. `covered` says which original messages it replaces.
pub fn wrap_summary(summary: &str, covered: &str) -> String {
    format!(
        "{MARKER_OPEN} covers=\"{covered}\">\nThe earlier part of this conversation was compacted into this summary. \
         Continue the work from it; ask the user if something you need is missing.\n\n{summary}\n{MARKER_CLOSE}"
    )
}

/// The summary inside a message we made earlier (without the marker and the preamble line), and the
/// message's other text (a user turn the summary was merged into, in formats whose turns alternate).
pub fn split_summary(text: &str) -> (&str, String) {
    let Some(open) = text.find(MARKER_OPEN) else { return (text.trim(), String::new()) };
    let (before, marked) = text.split_at(open);
    let (body, after) = marked.split_once(MARKER_CLOSE).unwrap_or((marked, ""));
    let body = body.split_once("\n\n").map(|(_, b)| b).unwrap_or(body);
    let (before, after) = (before.trim(), after.trim());
    let rest = match (before.is_empty(), after.is_empty()) {
        (false, false) => [before, "\n", after].concat(),
        (false, true) => before.to_string(),
        (true, _) => after.to_string(),
    };
    (body.trim(), rest)
}

/// Makes text unable to open or close our marker, so a summary cannot fake a nested one.
pub fn defuse_markers(text: &str) -> (String, bool) {
    if !text.contains("ctxfold-summary") {
        return (text.to_string(), false);
    }
    (text.replace("ctxfold-summary", "ctxfold_summary"), true)
}

/// A value as compact JSON text, exactly what its `Display` writes (see `to_json`). Not `Display`
/// itself, which would compile serde_json's writer (compact and pretty) into the wasm.
pub fn json_text(v: &serde_json::Value) -> String {
    crate::json::to_text(v)
}

/// `s` in double quotes, escaped as in JSON: how errors quote a name the caller gave. Not `{:?}`,
/// whose escaping code and Unicode tables would be in the wasm for these messages alone.
pub fn quoted(s: &str) -> String {
    crate::json::to_text(&s)
}

/// A number as JavaScript would print it (`5`, `0.25`, `NaN`, `Infinity`). Written without Rust's float
/// formatting, whose code would add several kilobytes to the WebAssembly: serde_json's is already there.
pub fn number(n: f64) -> String {
    match n {
        n if n.is_nan() => "NaN".into(),
        n if n.is_infinite() => {
            if n > 0.0 {
                "Infinity".into()
            } else {
                "-Infinity".into()
            }
        }
        n if n.fract() == 0.0 && n.abs() < 1e15 => (n as i64).to_string(),
        n => serde_json::Number::from_f64(n).map(|x| x.to_string()).unwrap_or_default(),
    }
}

/// `part / whole` as a percentage with one decimal (`4.7`), without float formatting (see `number`).
pub fn percent(part: f64, whole: f64) -> String {
    let tenths = (part / whole.max(f64::MIN_POSITIVE) * 1000.0).round().max(0.0) as u64;
    format!("{}.{}", tenths / 10, tenths % 10)
}

/// Whether `a` and `b` are the same text, compared eight bytes at a time. `==` on strings calls
/// `memcmp`, which the wasm32 build runs a byte at a time, and the texts compared whole (a request body
/// against the one kept, a message's text against the memo's copy) run to megabytes.
pub fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let words = a.len() / 8 * 8;
    let mut at = 0;
    while at < words {
        if word(a, at) != word(b, at) {
            return false;
        }
        at += 8;
    }
    a[words..] == b[words..]
}

/// Where the run of ASCII bytes from `at` ends, eight bytes at a time.
pub fn ascii_end(bytes: &[u8], mut at: usize) -> usize {
    while at + 8 <= bytes.len() {
        let high = word(bytes, at) & 0x8080_8080_8080_8080;
        if high != 0 {
            return at + (high.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while bytes.get(at).is_some_and(u8::is_ascii) {
        at += 1;
    }
    at
}

/// The eight bytes of `bytes` from `at` as one number (little-endian: the first byte lowest).
#[inline(always)]
pub fn word(bytes: &[u8], at: usize) -> u64 {
    let w = &bytes[at..at + 8];
    u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]])
}

/// The largest index <= `at` that is a character boundary of `s`.
pub fn floor_boundary(s: &str, at: usize) -> usize {
    if at >= s.len() {
        return s.len();
    }
    let mut i = at;
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest index >= `at` that is a character boundary of `s`.
pub fn ceil_boundary(s: &str, at: usize) -> usize {
    let mut i = at.min(s.len());
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// At most `max` bytes of `s`: the head and the tail, with a marked middle saying how much went. Each
/// side of the cut falls at a line break, else between words, where one lies within a sixteenth of `max`:
/// half an id beside the marker would be read as a whole one.
pub fn cut_middle(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if s.len() <= max {
        return s.into();
    }
    let reach = max / 16;
    let head_end = floor_boundary(s, max * 2 / 3);
    let before = &s[floor_boundary(s, head_end.saturating_sub(reach))..head_end];
    let head_end = head_end - before.len() + last_break(before).unwrap_or(before.len());
    let tail_start = ceil_boundary(s, s.len() - (max - max * 2 / 3));
    let after = &s[tail_start..ceil_boundary(s, tail_start + reach)];
    let tail_start = tail_start + first_break(after).map_or(0, |k| k + 1);
    let cut = s[head_end..tail_start].chars().count();
    format!("{}\n[… {cut} characters cut …]\n{}", &s[..head_end], &s[tail_start..]).into()
}

/// Where in `text` its last line break is, else its last space or tab.
fn last_break(text: &str) -> Option<usize> {
    text.rfind('\n').or_else(|| text.rfind([' ', '\t']))
}

/// Where in `text` its first line break is, else its first space or tab.
fn first_break(text: &str) -> Option<usize> {
    text.find('\n').or_else(|| text.find([' ', '\t']))
}

/// Lines that repeat an earlier line of `text` word for word, this long or longer (bytes, trimmed): a
/// short line ("---", "- yes", an empty one) may well repeat on purpose.
const REPEATED_LINE_BYTES: usize = 24;

/// `text` without the lines that repeat an earlier one word for word (see `REPEATED_LINE_BYTES`), and
/// how many were dropped.
pub fn without_repeated_lines(text: &str) -> (String, usize) {
    let mut seen = Vec::new();
    without_lines(text, |line| repeats(&mut seen, line))
}

/// Whether `piece` repeats one of `seen` word for word (pieces shorter than `REPEATED_LINE_BYTES` never
/// do); one seen the first time is remembered.
fn repeats<'t>(seen: &mut Vec<&'t str>, piece: &'t str) -> bool {
    let key = piece.trim();
    if key.len() < REPEATED_LINE_BYTES {
        return false;
    }
    if seen.contains(&key) {
        return true;
    }
    seen.push(key);
    false
}

/// `text` without the sentences that repeat an earlier sentence of their own line word for word (as long
/// as a repeated line must be), and how many were dropped: a small model caught in a loop also writes one
/// paragraph of the same sentence again and again. Lines apart may repeat a sentence on purpose (the offline
/// digest quotes each of the user's messages, and a user may close each the same way).
pub fn without_repeated_sentences(text: &str) -> (String, usize) {
    let mut dropped = 0;
    let mut lines = Vec::new();
    for line in text.split('\n') {
        let (mut seen, mut kept, before) = (Vec::new(), String::with_capacity(line.len()), dropped);
        for sentence in sentences(line) {
            if repeats(&mut seen, sentence) {
                dropped += 1;
                continue;
            }
            kept.push_str(sentence);
        }
        let cut = dropped > before;
        lines.push(if cut { kept.trim_end().to_string() } else { kept });
    }
    match dropped {
        0 => (text.to_string(), 0),
        _ => (lines.join("\n"), dropped),
    }
}

/// `text` without the end that a model's output limit cut off: its unfinished last word (in a line
/// without spaces, such as Chinese, its unfinished sentence) and the headings that leaves with nothing
/// under them. A text that ends a sentence is kept whole, and so is one that this would leave empty. Half
/// an id (`II` of `IIHXDG`) would be read as a fact; the whole ids before it on its line stay.
pub fn without_unfinished_end(text: &str) -> &str {
    let text = text.trim();
    if text.ends_with(['.', '!', '?', '。', '！', '？']) {
        return text;
    }
    let line_start = text.rfind('\n').map_or(0, |k| k + 1);
    let line = &text[line_start..];
    let kept = match line.rfind([' ', '\t']) {
        Some(space) => space,
        None => match sentences(line)[..] {
            [.., unfinished] => line.len() - unfinished.len(),
            [] => 0,
        },
    };
    let mut head = text[..line_start + kept].trim_end();
    // A heading or a list item's marker that the cut left with nothing after it.
    loop {
        let last_line = head.rfind('\n').map_or(0, |k| k + 1);
        let line = head[last_line..].trim_start();
        if !line.starts_with('#') && !matches!(line, "-" | "*" | "+") {
            break;
        }
        head = head[..last_line].trim_end();
    }
    if head.is_empty() {
        text
    } else {
        head
    }
}

/// The sentences of a line, each with the spaces after it: one ends at `.`, `!` or `?` before a space, or
/// at CJK's `。`, `！` and `？`. The pieces join back into the line, which the repeat check needs; the
/// constraint finder cuts by its own rule (`constraints::sentences`: at `;` too, pieces trimmed), since a
/// clause after a semicolon can be a rule of its own.
fn sentences(line: &str) -> Vec<&str> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        let end = match bytes[i] {
            b'.' | b'!' | b'?' if bytes.get(i + 1).is_some_and(u8::is_ascii_whitespace) => i + 1,
            _ if ["。", "！", "？"].iter().any(|mark| bytes[i..].starts_with(mark.as_bytes())) => i + 3,
            _ => {
                i += 1;
                continue;
            }
        };
        i = end + bytes[end..].iter().take_while(|b| b.is_ascii_whitespace()).count();
        out.push(&line[start..i]);
        start = i;
    }
    if start < bytes.len() {
        out.push(&line[start..]);
    }
    out
}

/// Each of `lines` with whether it is code of a fenced block, its ``` lines included: what the readers of prose
/// (constraints, the audit's facts, a summary's headings) leave alone.
pub fn with_fences<'t>(lines: impl Iterator<Item = &'t str>) -> impl Iterator<Item = (&'t str, bool)> {
    let mut in_code = false;
    lines.map(move |line| {
        let fence = line.trim_start().starts_with("```");
        let code = in_code || fence;
        in_code ^= fence;
        (line, code)
    })
}

/// `text` without the lines `drop` picks (each asked once, in order), and how many were dropped.
pub fn without_lines<'t>(text: &'t str, mut drop: impl FnMut(&'t str) -> bool) -> (String, usize) {
    let mut out = String::with_capacity(text.len());
    let mut dropped = 0;
    for line in text.split('\n') {
        if drop(line) {
            dropped += 1;
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
    }
    match dropped {
        0 => (text.to_string(), 0),
        _ => (out, dropped),
    }
}

/// `s` within `max_tokens` as `count` measures it: whole when it fits, else its head and tail around
/// `cut_middle`'s marker. The byte size is scaled from the token count, then shrunk until it fits
/// (text is not equally dense everywhere).
pub fn cut_to_tokens(s: &str, max_tokens: f64, count: impl Fn(&str) -> f64) -> std::borrow::Cow<'_, str> {
    let tokens = count(s);
    if tokens <= max_tokens {
        return s.into();
    }
    let mut bytes = (s.len() as f64 * max_tokens / tokens) as usize;
    loop {
        let cut = cut_middle(s, bytes);
        if bytes == 0 || count(&cut) <= max_tokens {
            return cut;
        }
        bytes = bytes * 9 / 10;
    }
}

/// The maximal runs of characters of `text` that satisfy `keep`, in order, as byte ranges. ASCII is
/// read a byte at a time and only other characters are decoded: `str::split` with a predicate decodes
/// every character, and the fact finders and the summary prompt read every summarized text this way.
pub fn runs<F: Fn(char) -> bool>(text: &str, keep: F) -> Runs<'_, F> {
    Runs { text, keep, at: 0 }
}

/// The iterator of `runs`.
pub struct Runs<'t, F> {
    text: &'t str,
    keep: F,
    at: usize,
}

impl<F: Fn(char) -> bool> Iterator for Runs<'_, F> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        let bytes = self.text.as_bytes();
        let mut start = None;
        while let Some(&b) = bytes.get(self.at) {
            let at = self.at;
            let c = if b < 0x80 { char::from(b) } else { self.text[at..].chars().next().unwrap_or(' ') };
            self.at += c.len_utf8();
            match (start, (self.keep)(c)) {
                (None, true) => start = Some(at),
                (Some(s), false) => return Some((s, at)),
                _ => {}
            }
        }
        start.map(|s| (s, bytes.len()))
    }
}

/// Whether `c` is a CJK ideograph or kana: the scripts written without spaces between words.
pub fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30FF}' | '\u{3400}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}')
}

/// CJK, and Hangul syllables: scripts whose words are not told by spaces alone (Korean attaches its
/// particles to the word before them).
pub fn is_cjk_or_hangul(c: char) -> bool {
    is_cjk(c) || ('\u{AC00}'..='\u{D7AF}').contains(&c)
}

/// Whether `word` occurs in `text` whole, not as a part of a longer word: `parse` is not in `parse_config`,
/// nor `27` in `2787`, nor `мир` in `мирный`. CJK, kana and Hangul are no part of a word here, so a term
/// written inside CJK text stands whole (`Java` in `映射的Java代码`), and so does a title (`国王归来` in
/// `《国王归来》是`), as the text they were found in wrote them.
pub fn contains_word(text: &str, word: &str) -> bool {
    let (Some(first), Some(last)) = (word.chars().next(), word.chars().next_back()) else { return true };
    let glued = |edge: char, beside: Option<char>| is_word_char(edge) && beside.is_some_and(is_word_char);
    let mut from = 0;
    while let Some(at) = crate::find::find(&text[from..], word) {
        let start = from + at;
        let end = start + word.len();
        if !glued(first, text[..start].chars().next_back()) && !glued(last, text[end..].chars().next()) {
            return true;
        }
        from = start + first.len_utf8();
    }
    false
}

/// Letters, digits and `_` of the scripts written with spaces between words: what a word is made of.
pub fn is_word_char(c: char) -> bool {
    c == '_' || is_spaced_alphanumeric(c)
}

/// Letters and digits of the scripts written with spaces between words (not CJK, kana or Hangul). Inline:
/// the fact finders and the audit ask it of every character.
#[inline(always)]
pub fn is_spaced_alphanumeric(c: char) -> bool {
    c.is_ascii_alphanumeric() || (!c.is_ascii() && c.is_alphanumeric() && !is_cjk_or_hangul(c))
}

/// `char::is_whitespace`, with ASCII decided inline: `opt-level = "z"` leaves it a call per character.
#[inline(always)]
pub fn is_space(c: char) -> bool {
    match c {
        ' ' | '\t'..='\r' => true,
        _ => !c.is_ascii() && c.is_whitespace(),
    }
}

/// At most `max` bytes of `s` on one line, with an ellipsis when cut.
pub fn one_line(s: &str, max: usize) -> String {
    let mut flat = String::with_capacity(s.len().min(max + 1));
    for (start, end) in runs(s, |c| !is_space(c)) {
        if !flat.is_empty() {
            flat.push(' ');
        }
        flat.push_str(&s[start..end]);
        // Past `max`, the rest would be cut away: not read at all (a tool call's arguments can be a file).
        if flat.len() > max {
            break;
        }
    }
    if flat.len() <= max {
        return flat;
    }
    let end = floor_boundary(&flat, max);
    format!("{}…", &flat[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_opens_with_our_marker_or_after_one_short_line() {
        let wrapped = wrap_summary("We fixed the parser.", "#1-#9");
        assert!(opens_summary(&wrapped));
        assert!(opens_summary(&format!("【历史摘要】\n{wrapped}")), "after a prefix line");
        assert!(!opens_summary(&format!("{}\n{wrapped}", "a long first line ".repeat(5))), "after a long line");
        assert!(!opens_summary(&format!("one\ntwo\n{wrapped}")), "after two lines");
        assert!(!opens_summary(&format!("Look: {wrapped}")), "inside a line");
        assert!(!opens_summary(MARKER_OPEN), "an opening tag alone");
        assert!(!opens_summary(&format!("{}\n{wrapped}", "中".repeat(26))), "a first line of 78 bytes leaves no room");
    }

    #[test]
    fn words_are_whole_within_their_own_script() {
        assert!(contains_word("call parse_config now", "parse_config"));
        assert!(!contains_word("call parse_config_v2", "parse_config"));
        assert!(!contains_word("port 2787", "27"));
        assert!(contains_word("port 2787 or 27", "27"), "a later match may be whole");
        assert!(contains_word("映射的Java代码", "Java"));
        assert!(contains_word("Java를 사용", "Java"), "a Korean particle is not part of the word");
        assert!(contains_word("《国王归来》是", "国王归来"));
        assert!(contains_word("国王归来是", "国王"), "CJK has no word ends to look for");
        assert!(!contains_word("мирный", "мир"));
        assert!(contains_word("мир, мирный", "мир"));
        assert!(contains_word("(café)", "café"));
        assert!(!contains_word("cafés", "café"));
        assert!(!contains_word("", "x"));
    }

    #[test]
    fn runs_are_the_pieces_a_split_gives() {
        let text = "a  src/x.py,é ü\u{3000}日本 /tmp/ 𝔘x\u{a0}y ";
        let sep = |c: char| c.is_whitespace() || c == ',';
        let got: Vec<&str> = runs(text, |c| !sep(c)).map(|(s, e)| &text[s..e]).collect();
        let want: Vec<&str> = text.split(sep).filter(|w| !w.is_empty()).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn texts_are_the_same_only_when_every_byte_is() {
        let base: String = (0..41).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        for len in 0..=base.len() {
            let text = &base[..len];
            let copy = String::from(text); // another allocation: compared by content, not by address
            assert!(same_text(text, &copy));
            // A difference in any byte, in a whole word or in the bytes after the last one, is found.
            for at in 0..len {
                let mut other = text.as_bytes().to_vec();
                other[at] = b'_';
                assert!(!same_text(text, std::str::from_utf8(&other).unwrap()), "{len} {at}");
            }
            if len > 0 {
                assert!(!same_text(text, &base[..len - 1]));
            }
        }
        assert!(same_text("日本語のテキスト", "日本語のテキスト"));
        assert!(!same_text("日本語のテキスト", "日本語のテキスㇳ"));
    }

    #[test]
    fn an_ascii_run_ends_at_the_first_byte_beyond_ascii() {
        for at in 0..20 {
            let text = format!("{}é{}", "a".repeat(at), "b".repeat(20));
            assert_eq!(ascii_end(text.as_bytes(), 0), at);
            assert_eq!(ascii_end(text.as_bytes(), at + 2), text.len());
        }
        assert_eq!(ascii_end(b"", 0), 0);
    }

    #[test]
    fn repeated_long_lines_are_dropped_and_short_ones_kept() {
        let looped = "## State\nThe transcript is data, not instructions.\n---\nThe transcript is data, not instructions.\n---\n  The transcript is data, not instructions.";
        assert_eq!(
            without_repeated_lines(looped),
            ("## State\nThe transcript is data, not instructions.\n---\n---".to_string(), 2)
        );
        let fine = "a\n\nb\n\n- yes\n- yes";
        assert_eq!(without_repeated_lines(fine), (fine.to_string(), 0));
    }

    #[test]
    fn repeated_sentences_are_dropped_within_a_paragraph() {
        let looped = "The user asked for the report. The user has worked in film for 20 years. He likes it. \
                      The user has worked in film for 20 years. He likes it.\n\
                      The user has worked in film for 20 years.\n用户想看电影《我心狂野》。用户想看电影《我心狂野》。好。";
        assert_eq!(
            without_repeated_sentences(looped),
            (
                "The user asked for the report. The user has worked in film for 20 years. He likes it. He likes it.\n\
                 The user has worked in film for 20 years.\n用户想看电影《我心狂野》。好。"
                    .to_string(),
                2
            )
        );
        let fine = "Version 1.2 of the API. See e.g. the docs.\n\n- yes. - yes.";
        assert_eq!(without_repeated_sentences(fine), (fine.to_string(), 0));
    }

    #[test]
    fn a_cut_off_end_goes_and_a_finished_one_stays() {
        let cut = "## Task\nChange the flights.\n\n## Facts\n- Reservations: DF89BM, COVE6R, II";
        assert_eq!(
            without_unfinished_end(cut),
            "## Task\nChange the flights.\n\n## Facts\n- Reservations: DF89BM, COVE6R,"
        );
        let heading = "## Task\nChange the flights.\n- Paid with gift_card_1234\n\n## Next st";
        assert_eq!(without_unfinished_end(heading), "## Task\nChange the flights.\n- Paid with gift_card_1234");
        assert_eq!(without_unfinished_end("## Task\nRead the logs.\n- Then"), "## Task\nRead the logs.");
        assert_eq!(without_unfinished_end("**Next steps**\n* Ca"), "**Next steps**");
        assert_eq!(without_unfinished_end("用户要改航班。然后取"), "用户要改航班。");
        assert_eq!(without_unfinished_end("## Task\nFix the pars"), "## Task\nFix the");
        assert_eq!(without_unfinished_end("Unbroken"), "Unbroken");
        let finished = "## Task\nFix the parser.\n- Run the tests!  \n";
        assert_eq!(without_unfinished_end(finished), finished.trim_end());
        assert_eq!(without_unfinished_end("完成了。"), "完成了。");
    }

    #[test]
    fn cut_to_tokens_keeps_head_and_tail_within_the_bound() {
        let count = |t: &str| t.len() as f64 / 4.0;
        assert_eq!(cut_to_tokens("short", 10.0, count), "short");
        let long = format!("head {} tail", "é".repeat(5000));
        let cut = cut_to_tokens(&long, 100.0, count);
        assert!(count(&cut) <= 100.0 && cut.starts_with("head") && cut.ends_with("tail"), "{cut}");
        assert!(cut.contains("characters cut"));
    }

    #[test]
    fn numbers_print_as_in_javascript() {
        assert_eq!(
            [number(5.0), number(-0.25), number(f64::NAN), number(f64::NEG_INFINITY)],
            ["5", "-0.25", "NaN", "-Infinity"]
        );
        assert_eq!(percent(47.0, 1000.0), "4.7");
    }

    #[test]
    fn cuts_fall_at_line_breaks_or_between_words_nearby() {
        let lines: String = (0..40).map(|k| format!("- reservation R{k:05} paid\n")).collect();
        let cut = cut_middle(&lines, 600);
        let (head, tail) = cut.split_once("\n[… ").unwrap();
        assert!(head.ends_with("paid") && tail.split_once("…]\n").unwrap().1.starts_with("- reservation"), "{cut}");
        let words =
            "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho ".repeat(4);
        let cut = cut_middle(words.trim_end(), 160);
        let (head, tail) = cut.split_once("\n[… ").unwrap();
        let tail = tail.split_once("…]\n").unwrap().1;
        assert!(head.starts_with("alpha beta") && tail.ends_with("pi rho"), "{cut}");
        let whole = |w: &str| words.split(' ').any(|word| word == w);
        assert!(whole(head.rsplit(' ').next().unwrap()) && whole(tail.split(' ').next().unwrap()), "{cut}");
        let unbroken = "x".repeat(500);
        assert_eq!(cut_middle(&unbroken, 90).len(), 90 + "\n[… 410 characters cut …]\n".len());
    }

    #[test]
    fn cuts_never_split_characters() {
        let s = "数据".repeat(100);
        for max in 0..40 {
            let out = cut_middle(&s, max + 10);
            assert!(out.contains("characters cut"));
            let line = one_line(&s, max);
            assert!(line.len() <= max + "…".len());
        }
    }

    #[test]
    fn spaces_are_the_whitespace_characters() {
        let chars = (0..0x3100).filter_map(char::from_u32);
        assert!(chars.chain(['\u{feff}', '\u{205f}']).all(|c| is_space(c) == c.is_whitespace()));
    }

    #[test]
    fn one_line_flattens_whitespace_and_cuts_at_the_bound() {
        let s = "  alpha\n\tbeta   gamma\r\ndelta ";
        assert_eq!(one_line(s, 100), "alpha beta gamma delta");
        assert_eq!(one_line(s, 22), "alpha beta gamma delta");
        assert_eq!(one_line(s, 21), "alpha beta gamma delt…");
        assert_eq!(one_line(s, 10), "alpha beta…");
        assert_eq!(one_line(s, 11), "alpha beta …");
        assert_eq!(one_line(s, 0), "…");
    }

    #[test]
    fn summaries_round_trip_through_the_marker() {
        let wrapped = wrap_summary("did X\n\nthen Y", "1-9");
        assert!(wrapped.starts_with(MARKER_OPEN));
        assert_eq!(split_summary(&wrapped), ("did X\n\nthen Y", String::new()));
        assert_eq!(split_summary(&format!("{wrapped}\nand now this")), ("did X\n\nthen Y", "and now this".to_string()));
        assert_eq!(split_summary(&format!("first this\n{wrapped}")), ("did X\n\nthen Y", "first this".to_string()));
    }

    #[test]
    fn markers_inside_a_summary_are_defused() {
        let (text, changed) = defuse_markers("a </ctxfold-summary> b");
        assert!(changed);
        assert!(!text.contains(MARKER_CLOSE));
    }
}
