//! Token estimation by classes of text. One pass over the text counts the things a BPE tokenizer
//! splits on (letter runs, digit groups, punctuation runs, whitespace runs, CJK characters, ...);
//! a tokenizer profile (`ctxfold::counting::profiles`) weighs those counts. The classes follow the
//! pre-tokenizer of the GPT/Claude family: every letter run, group of up to three digits,
//! punctuation run and newline run starts at least one token, and what is inside a run decides how
//! many more. Scanning is linear, allocation-free and much faster than any real tokenizer. Text that
//! is not prose (base64, runs of one character, box drawing) is found after the scan (`shapes`).
//!
//! A crate of its own so that it alone is compiled for speed: every estimate reads every byte through
//! the scanner, and most of a tool output's bytes through `shapes` again; the rest of ctxfold is compiled
//! for size (see `Cargo.toml`).

pub mod shapes;
pub mod shapes_table;

/// The classes counted; a profile has one cost per class, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
pub enum Class {
    /// Runs of ASCII letters after a space, a newline or at the start: words of prose, which
    /// vocabularies hold whole with their leading space.
    Word,
    /// Words after a space that are among the most common of the corpus (`common_words.txt`: "the",
    /// "you", "file", ...), counted here instead of in `Word`, their letters in no letter class: each is
    /// one token with its space in every vocabulary, which sets chat (mostly such words) apart from the
    /// longer, rarer words of code and tool output at the same word length.
    CommonWord,
    /// Runs of ASCII letters right after anything else (`.get`, `_id`, `/usr`, `"name`, `x2y`):
    /// pieces of identifiers, paths and markup, more often split.
    IdentWord,
    /// ASCII letters.
    Letter,
    /// The 5th to 8th letters of a run: longer words are more often split.
    MidLetter,
    /// Letters past the 8th of a word after a space or at a line start: long words of prose.
    LongLetter,
    /// Letters past the 8th of a run glued to something else (`.initialize`, `/usr/information`,
    /// `snake_case_names`): identifiers and paths split into more pieces than prose.
    LongIdentLetter,
    /// A lower-case letter followed by an upper-case one (camelCase splits there).
    Hump,
    /// Upper-case ASCII letters (ALL-CAPS text tokenizes worse than lower case).
    Upper,
    Digit,
    /// Groups of up to three digits: both OpenAI tokenizers cut digit runs that way.
    DigitGroup,
    /// The first group of a digit run right after a space or a tab (` 12`, `, 3`), counted here instead
    /// of in `DigitGroup`: a word or a mark takes the space before it into its token, a digit run does
    /// not, so in the OpenAI vocabularies the space is a token of its own (number lists, tables, logs).
    SpacedDigit,
    /// ASCII punctuation and symbols.
    Punct,
    /// Runs of ASCII punctuation (`{"`, `"},`, `->`, `==` are often one token).
    PunctRun,
    /// Single punctuation marks right before a word (`.get`, `_id`, `"name`): o200k's pre-tokenizer
    /// glues them to the word, so they are counted here instead of in `PunctRun`.
    PunctGlued,
    /// Single punctuation marks between a space (or a tab) and a word (` "name`, ` /usr`, ` -v`,
    /// ` (x`), counted here instead of in `PunctGlued`: the mark takes the space into its token
    /// (` "`), so the word stands alone and the mark costs a token of its own (JSON values, strings,
    /// paths and options in code and tool output).
    PunctAfterSpace,
    /// Single punctuation marks right before a space or a newline (`, `, `. `, `: `, `)\n`): one
    /// token each, in prose and code alike, so they are counted here instead of in `PunctRun`.
    PunctSpaced,
    /// Runs of two or more spaces or tabs (indentation).
    SpaceRun,
    /// Spaces and tabs past the first of a run.
    ExtraSpace,
    NewlineRun,
    /// Newline runs right after punctuation (`:\n`, `);\n`, `,\n\n`), counted here instead of in
    /// `NewlineRun`: the OpenAI pre-tokenizers put them into the mark's token, so that most line
    /// breaks of code cost next to nothing.
    NewlineAfterPunct,
    Newline,
    /// The most common CJK ideographs: one token even in cl100k (`han_class`).
    Han,
    /// Common CJK ideographs: one token in o200k, not in cl100k nor claude.
    HanCommon,
    /// Common CJK ideographs that claude holds whole too: one token in o200k and claude, not in cl100k.
    HanCommonClaude,
    /// Other CJK ideographs: rarer, two or three tokens each in most vocabularies.
    HanRare,
    /// Runs of CJK ideographs: common pairs merge into one token.
    HanRun,
    Kana,
    /// Runs of kana: common endings (`です`, `ます`) merge into one token.
    KanaRun,
    Hangul,
    /// CJK and full-width punctuation (`，。！？「」`).
    CjkPunct,
    Emoji,
    /// Accented Latin, Greek, Cyrillic letters.
    OtherLetter,
    /// Anything else that is not ASCII (other scripts, symbols, box drawing, joiners).
    Other,
    /// Words counted in `Word` that do not follow a lower-case letter and one space or tab: at a line's start,
    /// after a mark and a space, after a column's padding. Counted here besides `Word`, as what such a word
    /// costs more: inside a sentence a rarer word is mostly one token, where it heads a line, a list item or
    /// a field it is more often a name, a heading or a code (in the corpus 1.06 to 1.37 tokens with its
    /// space inside a sentence, 1.11 to 1.68 outside one).
    LooseWord,
    // Text that is not prose, found after the scan (`shapes`); their costs are
    // measured apart (`shapes_table.rs`), not fitted with the classes above.
    /// Characters of base64 (of binary data: images, archives, ciphertext).
    Encoded,
    /// Characters of base64 of text (a file's source, a document), which tokenizes a little better.
    EncodedText,
    /// Hexadecimal digits of hashes, ids and dumps.
    Hex,
    /// Dashes between hexadecimal digits (a UUID's `8-4-4-4-12`).
    HexDash,
    /// Groups of hexadecimal digits written apart, four or more in a row (a dump's `7f45 4c46 0201 0100`):
    /// each group with its space, whose digits are `Hex`.
    HexGroup,
    /// Groups of three digits of long numbers, decimal or binary (ids, digits of π, bit strings): o200k
    /// and cl100k cut any run of digits so, a token each.
    Number,
    /// Digits of long decimal numbers, which claude costs by the digit.
    NumberDigit,
    /// Digits of long strings of `0` and `1`, which claude holds in fewer tokens than other digits.
    BinaryDigit,
    /// Runs of JSON's marks between the keys and values of minified JSON (`":"`, `","`, `"},{"`): each
    /// mostly one token, where the scanner's punctuation costs weigh the marks of code.
    JsonMarks,
    /// Runs of two or more marks in minified code (`){`, `});`, `=function(`, `||`): where the scanner's
    /// punctuation costs were fitted on code written with spaces, whose marks stand apart.
    CodeMarks,
    /// Tokens of runs of one repeated character, as o200k, cl100k and claude cut them.
    RunO200k,
    RunCl100k,
    RunClaude,
}

pub const CLASS_COUNT: usize = Class::RunClaude as usize + 1;
/// The classes the scanner counts, and `scripts/fit-profiles.mjs` fits: all up to `LooseWord`.
pub const PROSE_CLASSES: usize = Class::LooseWord as usize + 1;

/// The names of the scanner's classes, in order, as the fitting script and the generated tables use them.
pub const CLASS_NAMES: [&str; PROSE_CLASSES] = [
    "word",
    "commonWord",
    "identWord",
    "letter",
    "midLetter",
    "longLetter",
    "longIdentLetter",
    "hump",
    "upper",
    "digit",
    "digitGroup",
    "spacedDigit",
    "punct",
    "punctRun",
    "punctGlued",
    "punctAfterSpace",
    "punctSpaced",
    "spaceRun",
    "extraSpace",
    "newlineRun",
    "newlineAfterPunct",
    "newline",
    "han",
    "hanCommon",
    "hanCommonClaude",
    "hanRare",
    "hanRun",
    "kana",
    "kanaRun",
    "hangul",
    "cjkPunct",
    "emoji",
    "otherLetter",
    "other",
    "looseWord",
];

/// How many of each class some text holds. Counts add up: the counts of two texts are the sum
/// of their counts (up to the runs at the seam), which is what lets a message cache them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts(pub [u32; CLASS_COUNT]);

impl Default for Counts {
    fn default() -> Counts {
        Counts([0; CLASS_COUNT])
    }
}

/// What the previous character was, to find the start of runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Prev {
    None,
    Lower,
    Upper,
    Digit,
    Space,
    Newline,
    Punct,
    Han,
    Kana,
    Other,
}

// What each byte is to the scanner, numbered for the bit planes of `Scanner::chunk` (kind k is byte k
// of the bit planes' `u64`s). Letters come first so that one comparison (`<= UPPER`) finds them.
const LOWER: u8 = 0;
const UPPER: u8 = 1;
const DIGIT: u8 = 2;
/// Space or tab.
const SPACE: u8 = 3;
const NEWLINE: u8 = 4;
const PUNCT: u8 = 5;
/// Other ASCII controls, and `\r` right before `\n` (`\r\n` is one line break): skipped without ending a
/// run. A lone `\r` is read as `NEWLINE` by `Scanner::step`, which every chunk holding a control goes to.
const CONTROL: u8 = 6;
/// The first or a later byte of a non-ASCII character.
const NON_ASCII: u8 = 7;

/// The kind of every byte: 256 bytes of table instead of a `match` (or a `char` method) per byte.
static BYTE_KIND: [u8; 256] = {
    let mut table = [NON_ASCII; 256];
    let mut b = 0;
    while b < 0x80 {
        table[b] = match b as u8 {
            b'a'..=b'z' => LOWER,
            b'A'..=b'Z' => UPPER,
            b'0'..=b'9' => DIGIT,
            b' ' | b'\t' => SPACE,
            b'\n' => NEWLINE,
            0..=0x1F | 0x7F => CONTROL,
            _ => PUNCT,
        };
        b += 1;
    }
    table
};

/// How many of the letters 1..=`run` of a word are its 5th to 8th (`MidLetter`).
fn mid_letters(run: usize) -> usize {
    run.min(8).saturating_sub(4)
}

/// How many of the digits 1..=`run` of a digit run start a group of three (`DigitGroup`).
pub fn digit_groups(run: usize) -> usize {
    run.div_ceil(3)
}

/// The class of a non-ASCII character.
fn non_ascii_class(cp: u32) -> Class {
    use Class::*;
    match cp {
        0x4E00..=0x9FFF => han_class(cp),
        0x3400..=0x4DBF | 0xF900..=0xFAFF | 0x20000..=0x3134F => HanRare,
        0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => Kana,
        0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF => Hangul,
        0x3000..=0x303F | 0xFF00..=0xFF65 => CjkPunct,
        0x1F000..=0x1FAFF | 0x2600..=0x27BF => Emoji,
        0xC0..=0x24F | 0x370..=0x52F => OtherLetter,
        _ => Other,
    }
}

/// The last `run` (at most 8) of the 8 bits of a history byte: the run that ends right before a chunk.
fn history(run: usize) -> u64 {
    (0xFF00u64 >> run.min(8)) & 0xFF
}

/// One text's scan in progress: the counts so far (in `usize`, added to a `Counts` once at the end)
/// and what the next byte continues.
struct Scanner {
    n: [usize; CLASS_COUNT],
    /// Every punctuation run, those glued to a word included (they are taken off at the end).
    punct_runs: usize,
    prev: Prev,
    /// Length of the current letter, digit, space or punctuation run.
    run: usize,
    /// Whether the current letter run began after a space, a newline or at the start.
    word_after_space: bool,
    /// Whether the current punctuation run began right after a space or a tab.
    mark_after_space: bool,
    common: CommonWords,
}

/// The common words of one scan (`Class::CommonWord`) and their letters, taken off the letter classes at
/// the end (a word is counted as a word, and its letters as letters, before its end is known); and the
/// other words after a space that stand outside a sentence (`Class::LooseWord`), told apart with them.
struct CommonWords {
    table: &'static [u64; WORD_SLOTS],
    /// Words after a space that are not common and stand outside a sentence (`Class::LooseWord`).
    loose: usize,
    words: usize,
    letters: usize,
    mid_letters: usize,
    upper: usize,
}

impl CommonWords {
    /// Counts the word that starts after a space at `text[at]` if it is a common word, and as `loose`
    /// (`is_loose`) if not.
    fn count(&mut self, text: &str, at: usize, loose: bool) {
        match word_at(text, at) {
            Some((key, len)) => self.add(key_is_common(self.table, key), len, text.as_bytes()[at], loose),
            None => self.add(false, 0, 0, loose),
        }
    }

    /// Counts the `len` letters at `bytes[at]`, a whole word after a space with no control inside, if they
    /// are a common word (as `loose` if not).
    #[inline]
    fn count_letters(&mut self, bytes: &[u8], at: usize, len: usize, loose: bool) {
        let common = (1..=8).contains(&len) && is_common_word(self.table, bytes, at, len);
        self.add(common, len, bytes[at], loose);
    }

    /// Counts a word after a space: its letters if it is `common`, as `loose` if it is not and `loose`.
    #[inline]
    fn add(&mut self, common: bool, len: usize, first: u8, loose: bool) {
        let found = usize::from(common);
        self.loose += usize::from(!common & loose);
        self.words += found;
        self.letters += found * len;
        self.mid_letters += found * mid_letters(len);
        // Only the first letter can be upper case: the list holds words in lower case or capitalized.
        self.upper += found * usize::from(first.is_ascii_uppercase());
    }
}

impl Scanner {
    /// Scans the run or the character at `bytes[i]` (one byte at a time within a run, decoding
    /// only non-ASCII characters); returns where the next one starts.
    fn step(&mut self, text: &str, mut i: usize) -> usize {
        let bytes = text.as_bytes();
        use Class::*;
        let len = bytes.len();
        let n = &mut self.n;
        let prev = self.prev;
        // A single mark before a space or a newline is counted apart (taken off the runs at the end).
        let single_mark = prev == Prev::Punct && self.run == 1;
        let kind = match bytes[i] {
            b'\r' if bytes.get(i + 1) != Some(&b'\n') => NEWLINE,
            b => BYTE_KIND[usize::from(b)],
        };
        match kind {
            LOWER | UPPER => {
                // A letter after a letter (or after an accented letter or a control inside the word)
                // continues the word.
                let mut last_lower = prev == Prev::Lower;
                if !matches!(prev, Prev::Lower | Prev::Upper) {
                    // A single mark right before a word glues to it (`.get`, `_id`).
                    if prev == Prev::Punct && self.run == 1 {
                        n[if self.mark_after_space { PunctAfterSpace } else { PunctGlued } as usize] += 1;
                    }
                    self.word_after_space = matches!(prev, Prev::None | Prev::Space | Prev::Newline);
                    self.run = 0;
                    n[if self.word_after_space { Word } else { IdentWord } as usize] += 1;
                    if self.word_after_space {
                        self.common.count(text, i, is_loose(bytes, i));
                    }
                }
                let start = i;
                let (mut upper, mut humps) = (0usize, 0usize);
                while i < len {
                    let kind = BYTE_KIND[usize::from(bytes[i])];
                    if kind > UPPER {
                        break;
                    }
                    let is_upper = usize::from(kind);
                    upper += is_upper;
                    humps += is_upper & usize::from(last_lower);
                    last_lower = kind == LOWER;
                    i += 1;
                }
                let before = self.run;
                self.run += i - start;
                n[Letter as usize] += i - start;
                n[Upper as usize] += upper;
                n[Hump as usize] += humps;
                n[MidLetter as usize] += mid_letters(self.run) - mid_letters(before);
                let long = self.run.saturating_sub(8) - before.saturating_sub(8);
                n[if self.word_after_space { LongLetter } else { LongIdentLetter } as usize] += long;
                self.prev = if last_lower { Prev::Lower } else { Prev::Upper };
            }
            DIGIT | SPACE | PUNCT => {
                let continues = prev
                    == [Prev::Digit, Prev::Space, Prev::Punct]
                        [usize::from(kind == SPACE) + 2 * usize::from(kind == PUNCT)];
                let before = if continues { self.run } else { 0 };
                let start = i;
                while i < len && BYTE_KIND[usize::from(bytes[i])] == kind {
                    i += 1;
                }
                self.run = before + (i - start);
                let run = self.run;
                match kind {
                    DIGIT => {
                        // Only a run's first group can follow a space.
                        let spaced = usize::from(prev == Prev::Space);
                        n[Digit as usize] += i - start;
                        n[SpacedDigit as usize] += spaced;
                        n[DigitGroup as usize] += digit_groups(run) - digit_groups(before) - spaced;
                        self.prev = Prev::Digit;
                    }
                    SPACE => {
                        n[PunctSpaced as usize] += usize::from(single_mark);
                        // The spaces past the first of a run, and the run once it holds two.
                        n[ExtraSpace as usize] += run.saturating_sub(1) - before.saturating_sub(1);
                        n[SpaceRun as usize] += usize::from(before < 2 && run >= 2);
                        self.prev = Prev::Space;
                    }
                    _ => {
                        if before == 0 {
                            self.punct_runs += 1;
                            self.mark_after_space = prev == Prev::Space;
                        }
                        n[Punct as usize] += i - start;
                        self.prev = Prev::Punct;
                    }
                }
            }
            NEWLINE => {
                // A lone `\r` breaks a line as `\n` does (progress bars redraw their line with it); one
                // right before `\n` is part of that break.
                let mut breaks = 0;
                while i < len && matches!(bytes[i], b'\n' | b'\r') {
                    breaks += usize::from(bytes[i] == b'\n' || bytes.get(i + 1) != Some(&b'\n'));
                    i += 1;
                }
                n[Newline as usize] += breaks;
                let class = if prev == Prev::Punct { NewlineAfterPunct } else { NewlineRun };
                n[class as usize] += usize::from(prev != Prev::Newline);
                n[PunctSpaced as usize] += usize::from(single_mark);
                self.prev = Prev::Newline;
            }
            CONTROL => i += 1,
            _ => {
                // A run of non-ASCII characters (CJK text, say) in one go, decoding each.
                let mut prev = prev;
                let mut chars = text.get(i..).unwrap_or("").chars();
                while i < len && bytes[i] >= 0x80 {
                    let Some(ch) = chars.next() else { break };
                    i += ch.len_utf8();
                    let class = non_ascii_class(u32::from(ch));
                    n[class as usize] += 1;
                    prev = match class {
                        Han | HanCommon | HanCommonClaude | HanRare => {
                            n[HanRun as usize] += usize::from(prev != Prev::Han);
                            Prev::Han
                        }
                        Kana => {
                            n[KanaRun as usize] += usize::from(prev != Prev::Kana);
                            Prev::Kana
                        }
                        // An accented letter does not end an ASCII word ("résumé" is one word).
                        OtherLetter if matches!(prev, Prev::Lower | Prev::Upper) => Prev::Lower,
                        _ => Prev::Other,
                    };
                }
                self.prev = prev;
            }
        }
        i
    }

    /// Scans `width` bytes of plain ASCII (letters, digits, spaces, tabs, newlines, punctuation; no
    /// control and no non-ASCII byte; `width` at most `MAX_CHUNK`) at once, without a branch per byte or
    /// per run. `kinds[k]` has one bit per byte of kind `k` (bit `i`: byte `i`). Each kind's bits sit
    /// above 8 bits of history, the run of that kind that ended right before (as long as it matters: at
    /// most 8), so that "the byte before", "the 5th letter of a word" and the like are shifts and masks;
    /// `count_ones` counts them. The cost is the same for 16 bytes as for 48: the wider, the faster.
    fn chunk(&mut self, text: &str, at: usize, kinds: &[u64; 8], width: u32) {
        use Class::*;
        let cur: u64 = ((1 << width) - 1) << 8; // this chunk's bits, above the history
        let last: u64 = 1 << (width - 1); // the chunk's last byte, before the history is added
        let [lower, upper, digit, space, newline, punct, _, _] = *kinds;
        let letter = lower | upper;
        let (prev, run) = (self.prev, self.run);
        let was_letter = matches!(prev, Prev::Lower | Prev::Upper);
        let with_history = |bits: u64, continues: bool| (bits << 8) | if continues { history(run) } else { 0 };
        let just_before = |is: bool| if is { 0x80 } else { 0 };
        let xl = with_history(letter, was_letter);
        let xlower = (lower << 8) | just_before(prev == Prev::Lower);
        let xd = with_history(digit, prev == Prev::Digit);
        let xs = with_history(space, prev == Prev::Space);
        let xn = (newline << 8) | just_before(prev == Prev::Newline);
        let xp = with_history(punct, prev == Prev::Punct);
        // Where a word that starts after it counts as starting after a space.
        let spaced = xs | xn | just_before(prev == Prev::None);
        let ones = |bits: u64| bits.count_ones() as usize;
        let n = &mut self.n;

        // Letters: words start where a letter follows a non-letter; a hump is an upper-case letter
        // after a lower-case one; the 5th letter of a word is one whose 4 bytes before are letters.
        let starts = xl & !(xl << 1) & cur;
        let starts_after_space = starts & (spaced << 1);
        n[Letter as usize] += ones(letter);
        n[Word as usize] += ones(starts_after_space);
        n[IdentWord as usize] += ones(starts & !starts_after_space);
        // A word inside a sentence follows a lower-case letter and a space or a tab: told by the bits for
        // the words from the chunk's third byte on (a chunk holds no control), by the bytes before it for
        // the others.
        let in_sentence = (space << 9) & (lower << 10);
        // Common words among the words after a space: a word that ends inside the chunk ends before a
        // byte that ends any word (plain ASCII, not a letter); one that reaches the chunk's end is read on.
        let mut words = starts_after_space;
        while words != 0 {
            let bit = words.trailing_zeros();
            words &= words - 1;
            let len = (!(xl >> bit)).trailing_zeros();
            let start = at + bit as usize - 8;
            let loose = if bit >= 10 { in_sentence >> bit & 1 == 0 } else { is_loose(text.as_bytes(), start) };
            if bit + len < 8 + width {
                self.common.count_letters(text.as_bytes(), start, len as usize, loose);
            } else {
                self.common.count(text, start, loose);
            }
        }
        // What most chunks lack (upper case, digits, double spaces, newlines) is skipped as a whole:
        // fewer counts, the same result.
        if upper != 0 {
            n[Upper as usize] += ones(upper);
            n[Hump as usize] += ones((upper << 8) & (xlower << 1));
        }
        let fifth = xl & (xl << 1) & (xl << 2) & (xl << 3) & (xl << 4);
        let ninth = fifth & (fifth << 4) & cur;
        n[MidLetter as usize] += ones(fifth & !ninth & cur);
        // Letters past the 8th: of words after a space, or glued to something else. The letters of the
        // words that began after a space are those a carry from their first letter runs through
        // (adding a word's first bit clears the word's bits up to its end); a word carried in starts
        // at the history's top bit.
        let carried_after_space = if was_letter && self.word_after_space { 0x80 } else { 0 };
        let after_space = xl & !xl.wrapping_add(starts_after_space | carried_after_space);
        n[LongLetter as usize] += ones(ninth & after_space);
        n[LongIdentLetter as usize] += ones(ninth & !after_space);
        // A single mark right before a word glues to it; one before a space or a newline is apart.
        let single_mark = (xp << 1) & !(xp << 2);
        let glued = starts & single_mark;
        // The byte before a glued mark: a space in this chunk or right before it, or, for a mark carried
        // in, the space its run began after.
        let carried_mark_after_space = if prev == Prev::Punct && self.mark_after_space { 0x40 } else { 0 };
        let mark_after_space = glued & ((xs | carried_mark_after_space) << 2);
        n[PunctGlued as usize] += ones(glued) - ones(mark_after_space);
        n[PunctAfterSpace as usize] += ones(mark_after_space);
        let space_starts = (xs & !(xs << 1)) | (xn & !(xn << 1));
        n[PunctSpaced as usize] += ones(space_starts & single_mark & cur);

        // Digits: a group starts at the 1st, 4th, 7th, ... digit of a run. From the runs that start
        // here, shifts by 3 over digits find the rest; the run carried in continues where it was.
        if digit != 0 {
            let three = xd & (xd << 1) & (xd << 2);
            let first = xd & !(xd << 1) & cur;
            let spaced = first & (xs << 1);
            let (mut groups, mut next) = (first, first);
            while next != 0 {
                next = (next << 3) & three;
                groups |= next;
            }
            n[Digit as usize] += ones(digit);
            n[SpacedDigit as usize] += ones(spaced);
            n[DigitGroup as usize] += ones(groups) - ones(spaced);
            if prev == Prev::Digit {
                let carried = (!digit).trailing_zeros(); // the carried run's digits in this chunk
                let first = (3 - run % 3) % 3; // where its next group starts
                n[DigitGroup as usize] += ones((EVERY_THIRD_BIT << first) & ((1u64 << carried) - 1));
            }
        }

        // Spaces past the first of a run, runs that reach two; newline runs; punctuation runs.
        let doubled = xs & (xs << 1) & cur;
        if doubled != 0 {
            n[ExtraSpace as usize] += ones(doubled);
            n[SpaceRun as usize] += ones(doubled & !(xs << 2));
        }
        if newline != 0 {
            n[Newline as usize] += ones(newline);
            let runs = xn & !(xn << 1) & cur;
            let after_punct = runs & (xp << 1);
            n[NewlineRun as usize] += ones(runs) - ones(after_punct);
            n[NewlineAfterPunct as usize] += ones(after_punct);
        }
        n[Punct as usize] += ones(punct);
        self.punct_runs += ones(xp & !(xp << 1) & cur);

        // What the next byte continues: the kind of the last byte, and the length of its run.
        let (last_kind, continued, next) = if letter & last != 0 {
            (letter, was_letter, if lower & last != 0 { Prev::Lower } else { Prev::Upper })
        } else if digit & last != 0 {
            (digit, prev == Prev::Digit, Prev::Digit)
        } else if space & last != 0 {
            (space, prev == Prev::Space, Prev::Space)
        } else if newline & last != 0 {
            (newline, prev == Prev::Newline, Prev::Newline)
        } else {
            (punct, prev == Prev::Punct, Prev::Punct)
        };
        let tail = (last_kind << (64 - width)).leading_ones(); // the last run's bytes in this chunk
        let carried_on = tail == width && continued; // the whole chunk continues the run before
        self.run = if carried_on { run + width as usize } else { tail as usize };
        if letter & last != 0 {
            // Whether the last word began after a space (carried on or not, its bits say).
            self.word_after_space = after_space & (last << 8) != 0;
        }
        if punct & last != 0 && !carried_on {
            // Whether the last punctuation run began right after a space: the byte before it.
            self.mark_after_space = xs >> (7 + width - tail) & 1 != 0;
        }
        self.prev = next;
    }
}

/// Bits 0, 3, 6, ... 63: where the groups of three of a digit run start, from its first.
const EVERY_THIRD_BIT: u64 = 0x9249_2492_4924_9249;

/// The widest chunk `Scanner::chunk` takes: three vectors of 16 bytes, below the 64 bits of its planes
/// with the 8 bits of history.
const MAX_CHUNK: usize = 48;

impl Counts {
    /// The scanner's classes of `text`, all read as prose (`shapes::classes_of` also finds what is not).
    pub fn scan(text: &str) -> Counts {
        let mut c = Counts::default();
        c.add_scan(text);
        c
    }

    pub fn get(&self, class: Class) -> u32 {
        self.0[class as usize]
    }

    pub fn add(&mut self, other: &Counts) {
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a = a.saturating_add(*b);
        }
    }

    /// Takes `other` away (what a part of the text was counted as, before it is counted otherwise).
    pub fn subtract(&mut self, other: &Counts) {
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a = a.saturating_sub(*b);
        }
    }

    /// Adds the scanner's classes of `text`. Works on bytes: up to 48 bytes of plain ASCII (the bulk of
    /// most conversations) at a time, classified 16 at a time by vector comparisons (`kinds_of`) and
    /// counted by bit planes (`Scanner::chunk`), anything else one run or one character at a time (`Scanner::step`), decoding
    /// only non-ASCII characters. Classes are counted in `usize` and added to `self` once, saturating.
    pub fn add_scan(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let mut s = Scanner {
            n: [0; CLASS_COUNT],
            punct_runs: 0,
            prev: Prev::None,
            run: 0,
            word_after_space: false,
            mark_after_space: false,
            common: CommonWords { table: common_words(), loose: 0, words: 0, letters: 0, mid_letters: 0, upper: 0 },
        };
        let mut i = 0;
        while i < bytes.len() {
            // As many 16-byte pieces of plain ASCII as follow, up to `MAX_CHUNK` bytes, in one chunk.
            let (mut kinds, mut width, mut odd) = ([0u64; 8], 0, 0);
            while (width as usize) < MAX_CHUNK {
                let at = i + width as usize;
                let Some(piece) = bytes.get(at..at + 16).and_then(|c| <&[u8; 16]>::try_from(c).ok()) else { break };
                let piece_kinds = kinds_of(piece);
                odd = piece_kinds[usize::from(CONTROL)] | piece_kinds[usize::from(NON_ASCII)];
                if odd != 0 {
                    break;
                }
                for (plane, bits) in kinds.iter_mut().zip(piece_kinds) {
                    *plane |= u64::from(bits) << width;
                }
                width += 16;
            }
            if width > 0 {
                s.chunk(text, i, &kinds, width);
                i += width as usize;
            } else if odd != 0 {
                // Not plain ASCII: one run or character at a time, past the piece's last odd byte
                // (CJK text goes through whole pieces this way; English with one dash loses little).
                let end = i + 32 - odd.leading_zeros() as usize; // `odd` has 16 bits in a `u32`
                while i < end {
                    i = s.step(text, i);
                }
            } else {
                i = s.step(text, i);
            }
        }
        // A glued or spaced mark was counted as a run when it began: it is counted apart instead.
        let apart = [Class::PunctGlued, Class::PunctAfterSpace, Class::PunctSpaced].map(|c| s.n[c as usize]);
        s.n[Class::PunctRun as usize] = s.punct_runs - apart.iter().sum::<usize>();
        // A common word was counted as a word and its letters when it began: it is counted apart instead.
        let common = &s.common;
        s.n[Class::CommonWord as usize] = common.words;
        s.n[Class::LooseWord as usize] = common.loose;
        s.n[Class::Word as usize] -= common.words;
        s.n[Class::Letter as usize] -= common.letters;
        s.n[Class::MidLetter as usize] -= common.mid_letters;
        s.n[Class::Upper as usize] -= common.upper;
        for (slot, count) in self.0.iter_mut().zip(s.n) {
            *slot = slot.saturating_add(u32::try_from(count).unwrap_or(u32::MAX));
        }
    }
}

/// For each kind of byte (`LOWER` to `NON_ASCII`), one bit per byte of `chunk` that is of that kind (bit
/// `k`: byte `k`), by the table: byte `k` of each kind's byte of two `u64` bit planes. The reference for
/// `kinds_of`, and what other targets use.
#[cfg(any(test, not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128")))))]
fn kinds_by_table(chunk: &[u8; 16]) -> [u32; 8] {
    let plane = |half: &[u8]| {
        let mut bits = 0u64;
        for (k, &b) in half.iter().enumerate() {
            bits |= 1u64 << ((BYTE_KIND[usize::from(b)] << 3) + k as u8);
        }
        bits
    };
    let (low, high) = (plane(&chunk[..8]), plane(&chunk[8..]));
    core::array::from_fn(|kind| ((low >> (8 * kind)) & 0xFF | ((high >> (8 * kind)) & 0xFF) << 8) as u32)
}

/// The same as `kinds_by_table`, by 16-lane comparisons: a handful of vector instructions per chunk
/// instead of a table load per byte.
#[cfg(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128")))]
fn kinds_of(chunk: &[u8; 16]) -> [u32; 8] {
    #[cfg(target_arch = "wasm32")]
    use lanes_simd128 as v;
    #[cfg(target_arch = "x86_64")]
    use lanes_sse2 as v;
    let x = v::load(chunk);
    // Bytes as signed: every non-ASCII byte is negative, so `in_range` of ASCII bounds leaves them out.
    let lower = v::in_range(x, b'a', b'z');
    let upper = v::in_range(x, b'A', b'Z');
    let digit = v::in_range(x, b'0', b'9');
    let space = v::or(v::eq(x, b' '), v::eq(x, b'\t'));
    let newline = v::eq(x, b'\n');
    let below_space = v::in_range(x, 0, 0x1F);
    let control = v::or(v::and_not(below_space, v::or(space, newline)), v::eq(x, 0x7F));
    let non_ascii = v::bits(x);
    let (lower, upper, digit, space, newline, control) =
        (v::bits(lower), v::bits(upper), v::bits(digit), v::bits(space), v::bits(newline), v::bits(control));
    let punct = !(lower | upper | digit | space | newline | control | non_ascii) & 0xFFFF;
    [lower, upper, digit, space, newline, punct, control, non_ascii]
}

#[cfg(not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128"))))]
use kinds_by_table as kinds_of;

/// 16 lanes of bytes on x86-64, for the native tests and tools. SSE2 is part of x86-64's baseline, so
/// every intrinsic below is available wherever this compiles; only the load reads memory.
#[cfg(target_arch = "x86_64")]
mod lanes_sse2 {
    use core::arch::x86_64::*;
    pub type V = __m128i;
    pub fn load(chunk: &[u8; 16]) -> V {
        // SAFETY: 16 readable bytes; an unaligned load.
        unsafe { _mm_loadu_si128(chunk.as_ptr().cast()) }
    }
    pub fn eq(x: V, b: u8) -> V {
        unsafe { _mm_cmpeq_epi8(x, _mm_set1_epi8(b as i8)) }
    }
    /// Lanes from `lo` to `hi`, both ASCII, compared as signed bytes.
    pub fn in_range(x: V, lo: u8, hi: u8) -> V {
        unsafe {
            _mm_and_si128(
                _mm_cmpgt_epi8(x, _mm_set1_epi8(lo as i8 - 1)),
                _mm_cmplt_epi8(x, _mm_set1_epi8(hi as i8 + 1)),
            )
        }
    }
    pub fn or(a: V, b: V) -> V {
        unsafe { _mm_or_si128(a, b) }
    }
    /// `a` and not `b`.
    pub fn and_not(a: V, b: V) -> V {
        unsafe { _mm_andnot_si128(b, a) }
    }
    /// The top bit of each lane.
    pub fn bits(x: V) -> u32 {
        unsafe { _mm_movemask_epi8(x) as u32 }
    }
}

/// 16 lanes of bytes in WebAssembly's SIMD128 (Node 16.4+, workerd, Chrome 91+, Firefox 89+, Safari 16.4+).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod lanes_simd128 {
    use core::arch::wasm32::*;
    pub type V = v128;
    pub fn load(chunk: &[u8; 16]) -> V {
        u8x16(
            chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7], chunk[8], chunk[9],
            chunk[10], chunk[11], chunk[12], chunk[13], chunk[14], chunk[15],
        )
    }
    pub fn eq(x: V, b: u8) -> V {
        u8x16_eq(x, u8x16_splat(b))
    }
    /// Lanes from `lo` to `hi`, both ASCII, compared as signed bytes.
    pub fn in_range(x: V, lo: u8, hi: u8) -> V {
        v128_and(i8x16_ge(x, i8x16_splat(lo as i8)), i8x16_le(x, i8x16_splat(hi as i8)))
    }
    pub fn or(a: V, b: V) -> V {
        v128_or(a, b)
    }
    /// `a` and not `b`.
    pub fn and_not(a: V, b: V) -> V {
        v128_andnot(a, b)
    }
    /// The top bit of each lane.
    pub fn bits(x: V) -> u32 {
        u32::from(i8x16_bitmask(x))
    }
}

/// The common words, one per line, in byte order: the 2 048 most frequent words of up to 8 letters
/// after a space in the corpus's training conversations that are one token with a leading space in both
/// o200k and cl100k, in lower case or capitalized. Written by `scripts/fit-profiles.mjs`.
static COMMON_WORDS: &str = include_str!("common_words.txt");

/// Slots of the common words' table: a power of two, twice the words (a cuckoo table fills at half).
const WORD_SLOTS: usize = 4096;

/// A word of up to 8 ASCII letters as a number: its bytes, little-endian (no letter is zero).
const fn word_key(word: &[u8]) -> u64 {
    let mut key = 0;
    let mut i = word.len();
    while i > 0 {
        i -= 1;
        key = key << 8 | word[i] as u64;
    }
    key
}

const fn word_slot(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 52) as usize % WORD_SLOTS
}

const fn word_slot2(key: u64) -> usize {
    (key.wrapping_mul(0xC2B2_AE3D_27D4_EB4F) >> 52) as usize % WORD_SLOTS
}

/// The common words as a cuckoo hash table of their keys (0: empty): each key sits in one of its two
/// slots (`word_slot`, `word_slot2`), so that a lookup is two reads and no branch. Built on first use
/// (stored built, the table would add 4 KiB of gzip to the package).
fn common_words() -> &'static [u64; WORD_SLOTS] {
    static TABLE: std::sync::OnceLock<Box<[u64; WORD_SLOTS]>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| Box::new(cuckoo_table(COMMON_WORDS.as_bytes())))
}

/// The same table built by the compiler and thrown away: a word list that does not fit fails the build,
/// never a scan.
const _: () = {
    cuckoo_table(COMMON_WORDS.as_bytes());
};

const fn cuckoo_table(list: &[u8]) -> [u64; WORD_SLOTS] {
    let mut table = [0; WORD_SLOTS];
    let mut start = 0;
    while start < list.len() {
        let mut end = start;
        while end < list.len() && list[end] != b'\n' {
            end += 1;
        }
        let len = end - start;
        assert!(len >= 1 && len <= 8, "a common word has 1 to 8 letters");
        let (word, _) = list.split_at(end);
        let (_, word) = word.split_at(start);
        let mut key = word_key(word);
        let mut slot = word_slot(key);
        let mut kicks = 0;
        // Cuckoo insertion: a key takes its slot and moves the one it finds there to that key's other slot.
        while key != 0 {
            assert!(kicks < 1000, "the common words do not fit the table: raise WORD_SLOTS");
            let held = table[slot];
            table[slot] = key;
            if held == key {
                break;
            }
            key = held;
            slot = if word_slot(key) == slot { word_slot2(key) } else { word_slot(key) };
            kicks += 1;
        }
        start = end + 1;
    }
    table
}

/// Whether the word after a space at `bytes[at]` stands outside a sentence (`Class::LooseWord`): it does
/// not follow a lower-case letter and one space or tab (controls skipped, as the scanner skips them).
#[inline]
fn is_loose(bytes: &[u8], at: usize) -> bool {
    let skipped = |b: u8| BYTE_KIND[usize::from(b)] == CONTROL && b != b'\r';
    let (two, one) = match at.checked_sub(2) {
        Some(i) => (bytes[i], bytes[i + 1]),
        None => return true,
    };
    if skipped(two) | skipped(one) {
        let mut before = bytes[..at].iter().copied().rev().filter(|&b| !skipped(b));
        return !(before.next().is_some_and(|b| b == b' ' || b == b'\t')
            && before.next().is_some_and(|b| b.is_ascii_lowercase()));
    }
    !(((one == b' ') | (one == b'\t')) & two.is_ascii_lowercase())
}

/// The word of ASCII letters at `text[at]` as a key (`word_key`) and its number of letters, if it has at most
/// 8 (no common word is longer). Controls inside it are skipped, as the scanner skips them; it ends where the
/// scanner ends it: at the end of the text or at a byte that is not a letter or a control (`\r` always ends
/// it: a line break, alone or before `\n`); `None` when an accented letter continues it.
fn word_at(text: &str, at: usize) -> Option<(u64, usize)> {
    let bytes = text.as_bytes();
    let (mut key, mut len) = (0, 0);
    for (end, &b) in bytes.iter().enumerate().skip(at) {
        match BYTE_KIND[usize::from(b)] {
            LOWER | UPPER if len < 8 => {
                key |= u64::from(b) << (8 * len);
                len += 1;
            }
            LOWER | UPPER => return None,
            CONTROL if b != b'\r' => {}
            NON_ASCII => {
                let next = text.get(end..).and_then(|rest| rest.chars().next());
                return next
                    .is_some_and(|ch| non_ascii_class(u32::from(ch)) != Class::OtherLetter)
                    .then_some((key, len));
            }
            _ => break,
        }
    }
    Some((key, len))
}

/// Whether the `len` (1 to 8) ASCII letters at `bytes[at]` are a common word.
#[inline]
fn is_common_word(table: &[u64; WORD_SLOTS], bytes: &[u8], at: usize, len: usize) -> bool {
    let key = match bytes.get(at..at + 8) {
        // Eight bytes read at once, those past the word masked off.
        Some(eight) => u64::from_le_bytes(eight.try_into().unwrap_or_default()) & (u64::MAX >> (64 - 8 * len)),
        None => word_key(&bytes[at..at + len]),
    };
    key_is_common(table, key)
}

#[inline]
fn key_is_common(table: &[u64; WORD_SLOTS], key: u64) -> bool {
    (table[word_slot(key)] == key) | (table[word_slot2(key)] == key)
}

/// A code of two bits per ideograph of U+4E00–U+9FFF, four to a byte, low bits first: 0 rare (two or three
/// tokens in every vocabulary), 1 common (one token in o200k: about 2 500 with the next), 2 the most common
/// (one token in cl100k too: about 550), 3 common and one token in claude too. Written by
/// `scripts/fit-profiles.mjs`; every profile weighs the classes with its own costs.
static HAN_CODES: &[u8; 5248] = include_bytes!("common_han.bin");

/// The class of ideograph `cp` (in U+4E00–U+9FFF), by the vocabularies that hold it whole.
pub fn han_class(cp: u32) -> Class {
    let i = cp.wrapping_sub(0x4E00) as usize;
    let code = HAN_CODES.get(i >> 2).map_or(0, |b| b >> (2 * (i & 3)) & 3);
    [Class::HanRare, Class::HanCommon, Class::Han, Class::HanCommonClaude][usize::from(code)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use Class::*;

    #[test]
    fn classes_are_counted() {
        let c = Counts::scan("Hello worldWide 12345 你好 カナ 한 🙂 é\n\n   x;; 。");
        // `Hello` and `x` are common words (`common_words_are_counted_apart_with_their_letters`).
        assert_eq!((c.get(Word), c.get(CommonWord), c.get(Letter), c.get(Hump), c.get(Upper)), (1, 2, 9, 1, 1));
        assert_eq!((c.get(Digit), c.get(SpacedDigit), c.get(DigitGroup)), (5, 1, 1));
        assert_eq!(
            (
                c.get(Han) + c.get(HanCommon) + c.get(HanCommonClaude) + c.get(HanRare),
                c.get(HanRun),
                c.get(Kana),
                c.get(KanaRun)
            ),
            (2, 1, 2, 1)
        );
        assert_eq!((c.get(Hangul), c.get(Emoji), c.get(OtherLetter)), (1, 1, 1));
        assert_eq!((c.get(Newline), c.get(NewlineRun), c.get(SpaceRun), c.get(ExtraSpace)), (2, 1, 1, 2));
        assert_eq!((c.get(Punct), c.get(PunctRun), c.get(CjkPunct)), (2, 1, 1));
        // `.` glues to `get`; `(_` is a run of two, which does not glue; `)` stands before a space.
        let c = Counts::scan("x.get(_id) == 1");
        assert_eq!((c.get(PunctGlued), c.get(PunctSpaced), c.get(PunctRun)), (1, 1, 2));
        assert_eq!((c.get(CommonWord), c.get(IdentWord)), (1, 2));
        assert_eq!(Counts::scan("x;; y").get(PunctRun), 1);
        let c = Counts::scan("f(x):\n\n    y\n");
        assert_eq!((c.get(NewlineAfterPunct), c.get(NewlineRun), c.get(Newline)), (1, 1, 3));
        // Only the first group of a run after a space (or a tab) is spaced; `x2` and `(3` are not.
        // A mark between a space and a word is apart from one glued after anything else.
        let c = Counts::scan("{\"a\": \"b\", \"c\": x.get /usr/lib}");
        assert_eq!((c.get(PunctAfterSpace), c.get(PunctGlued), c.get(PunctRun)), (3, 2, 5));
        let c = Counts::scan("[1, 22, 1234]\tx2 (3 \t5");
        assert_eq!((c.get(SpacedDigit), c.get(DigitGroup)), (3, 4));
    }

    #[test]
    fn vector_kinds_agree_with_the_table() {
        // Every byte value in every lane, then chunks of mixed bytes.
        for b in 0..=255u8 {
            for lane in 0..16 {
                let mut chunk = [b'a'; 16];
                chunk[lane] = b;
                assert_eq!(kinds_of(&chunk), kinds_by_table(&chunk), "byte {b:#04x} in lane {lane}");
            }
        }
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..10_000 {
            let chunk: [u8; 16] = core::array::from_fn(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed as u8
            });
            assert_eq!(kinds_of(&chunk), kinds_by_table(&chunk), "{chunk:?}");
        }
    }

    #[test]
    fn a_lone_carriage_return_breaks_a_line_and_one_before_a_newline_does_not() {
        let lines = |t: &str| {
            let c = Counts::scan(t);
            (c.get(Newline), c.get(NewlineRun), c.get(NewlineAfterPunct))
        };
        assert_eq!(lines("a\rb"), (1, 1, 0));
        assert_eq!(lines("a\r\nb"), (1, 1, 0));
        assert_eq!(lines("a\r\r\nb"), (2, 1, 0));
        assert_eq!(lines("[##..] 5%\r[###.] 7.5%\r"), (2, 0, 2));
        // Other controls are still nothing at all.
        assert_eq!(Counts::scan("ab\u{1}cd"), Counts::scan("abcd"));
    }

    #[test]
    fn long_words_count_their_extra_letters() {
        assert_eq!(Counts::scan("internationalization").get(LongLetter), 12);
        assert_eq!(Counts::scan("self.internationalization").get(LongIdentLetter), 12);
        assert_eq!(Counts::scan("internationalization").get(MidLetter), 4);
        assert_eq!(Counts::scan("zorch blurbs quirk").get(LongLetter), 0);
        assert_eq!(Counts::scan("zorch blurbs quirk").get(MidLetter), 4);
    }

    #[test]
    fn rare_ideographs_are_told_from_common_ones() {
        // 的 (the most common character) is one token everywhere; 龘 is not.
        let c = Counts::scan("的龘");
        assert_eq!((c.get(Han), c.get(HanRare), c.get(HanRun)), (1, 1, 1));
        assert!((0x4E00..=0x9FFF).any(|cp| han_class(cp) == HanCommon));
        // 丹 and 乐 are one token in o200k, two in cl100k; claude holds 乐 whole, not 丹.
        let c = Counts::scan("丹乐");
        assert_eq!((c.get(HanCommon), c.get(HanCommonClaude), c.get(HanRun)), (1, 1, 1));
    }

    #[test]
    fn common_words_are_counted_apart_with_their_letters() {
        let c = Counts::scan("The file is zebra: theory");
        assert_eq!((c.get(CommonWord), c.get(Word)), (3, 2), "The, file, is; zebra and theory are words");
        assert_eq!((c.get(Letter), c.get(Upper), c.get(MidLetter)), (11, 0, 3));
        // Only words after a space, whole, and ended where the scanner ends them.
        assert_eq!(Counts::scan("9.the the1 the\r\n").get(CommonWord), 2);
        assert_eq!(Counts::scan("the\u{1}x thé the’s").get(CommonWord), 1);
        // A control inside a word is skipped, as everywhere else.
        assert_eq!(Counts::scan("t\u{1}he q\u{7f}uick"), Counts::scan("the quick"));
        // The same across the fast path's chunks: a common word at every offset of a long text.
        for pad in 0..64 {
            let text = format!("{}{}", "9 ".repeat(pad), "the file ".repeat(20));
            assert_eq!(Counts::scan(&text).get(CommonWord), 40, "offset {pad}");
        }
    }

    #[test]
    fn words_outside_a_sentence_are_counted_besides_words() {
        // "zebra" follows "a " (inside a sentence); "Theory" heads a line, "quark" follows ": " and
        // "gluon" a column's padding. Common words ("a", "is") are in neither class.
        let c = Counts::scan("a zebra is\nTheory: quark  gluon");
        assert_eq!((c.get(Word), c.get(LooseWord), c.get(CommonWord)), (4, 3, 2));
        // The two bytes before the word decide (past controls), across the fast path's chunks too.
        assert_eq!(Counts::scan("Zebra zebra").get(LooseWord), 1);
        assert_eq!(Counts::scan("zebra\u{1} quark").get(LooseWord), 1);
        for pad in 0..64 {
            let text = format!("{}{}", "9 ".repeat(pad), "\nzebras quarks gluons".repeat(20));
            assert_eq!(Counts::scan(&text).get(LooseWord), 20, "offset {pad}");
        }
    }

    #[test]
    fn every_listed_word_is_found_in_the_table() {
        for word in COMMON_WORDS.lines() {
            let text = format!("{word} ");
            assert!(is_common_word(common_words(), text.as_bytes(), 0, word.len()), "{word}");
        }
    }

    #[test]
    fn accented_letters_do_not_split_a_word() {
        assert_eq!(Counts::scan("résumé café").get(Word), 2);
    }

    #[test]
    fn counts_add_up() {
        let mut c = Counts::scan("abc 12");
        c.add(&Counts::scan("ab"));
        assert_eq!(c.get(Word), 2);
    }
}
