//! Token estimation by classes of text. One pass over the text counts the things a BPE tokenizer
//! splits on (letter runs, digit groups, punctuation runs, whitespace runs, CJK characters, ...);
//! a tokenizer profile (`crate::profiles`) weighs those counts. The classes follow the
//! pre-tokenizer of the GPT/Claude family: every letter run, group of up to three digits,
//! punctuation run and newline run starts at least one token, and what is inside a run decides how
//! many more. Scanning is linear, allocation-free and much faster than any real tokenizer.

use crate::error::{Error, Result};
pub use crate::profiles::{Profile, CLAUDE, CL100K, GEMINI, O200K, PROFILES};

/// The classes counted; a profile has one cost per class, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
pub enum Class {
    /// Runs of ASCII letters.
    Word,
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
    /// ASCII punctuation and symbols.
    Punct,
    /// Runs of ASCII punctuation (`{"`, `"},`, `->`, `==` are often one token).
    PunctRun,
    /// Single punctuation marks right before a word (`.get`, `_id`, `"name`): o200k's pre-tokenizer
    /// glues them to the word, so they are counted here instead of in `PunctRun`.
    PunctGlued,
    /// Runs of two or more spaces or tabs (indentation).
    SpaceRun,
    /// Spaces and tabs past the first of a run.
    ExtraSpace,
    NewlineRun,
    Newline,
    /// The most common CJK ideographs: one token even in cl100k (`crate::profiles::han_frequency`).
    Han,
    /// Common CJK ideographs: one token in o200k, not in cl100k.
    HanCommon,
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
}

pub const CLASS_COUNT: usize = Class::Other as usize + 1;

/// The class names, in order, as the fitting script and the generated tables use them.
pub const CLASS_NAMES: [&str; CLASS_COUNT] = [
    "word", "letter", "midLetter", "longLetter", "longIdentLetter", "hump", "upper", "digit", "digitGroup", "punct", "punctRun",
    "punctGlued", "spaceRun", "extraSpace", "newlineRun", "newline", "han", "hanCommon", "hanRare", "hanRun", "kana", "kanaRun", "hangul",
    "cjkPunct", "emoji", "otherLetter", "other",
];

/// How many of each class some text holds. Counts add up: the counts of two texts are the sum
/// of their counts (up to the runs at the seam), which is what lets a message cache them.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts(pub [u32; CLASS_COUNT]);

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

impl Counts {
    pub fn of(text: &str) -> Counts {
        let mut c = Counts::default();
        c.add_text(text);
        c
    }

    pub fn get(&self, class: Class) -> u32 {
        self.0[class as usize]
    }

    fn bump(&mut self, class: Class) {
        let slot = &mut self.0[class as usize];
        *slot = slot.saturating_add(1);
    }

    pub fn add(&mut self, other: &Counts) {
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a = a.saturating_add(*b);
        }
    }

    /// Adds the classes of `text`. Works on bytes: ASCII, the bulk of most conversations, never
    /// decodes a character.
    pub fn add_text(&mut self, text: &str) {
        use Class::*;
        let bytes = text.as_bytes();
        let mut prev = Prev::None;
        let mut run = 0u32; // length of the current letter, digit, space or punctuation run
        let mut word_after_space = false; // whether the current letter run began after a space
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b < 0x80 {
                i += 1;
                prev = match b {
                    b'a'..=b'z' | b'A'..=b'Z' => {
                        let upper = b.is_ascii_uppercase();
                        self.bump(Letter);
                        if upper {
                            self.bump(Upper);
                        }
                        if matches!(prev, Prev::Lower | Prev::Upper) {
                            run += 1;
                            if upper && prev == Prev::Lower {
                                self.bump(Hump);
                            }
                        } else {
                            if prev == Prev::Punct && run == 1 {
                                self.0[PunctRun as usize] = self.0[PunctRun as usize].saturating_sub(1);
                                self.bump(PunctGlued);
                            }
                            word_after_space = matches!(prev, Prev::None | Prev::Space | Prev::Newline);
                            run = 1;
                            self.bump(Word);
                        }
                        if run > 8 {
                            self.bump(if word_after_space { LongLetter } else { LongIdentLetter });
                        } else if run > 4 {
                            self.bump(MidLetter);
                        }
                        if upper {
                            Prev::Upper
                        } else {
                            Prev::Lower
                        }
                    }
                    b'0'..=b'9' => {
                        run = if prev == Prev::Digit { run + 1 } else { 1 };
                        self.bump(Digit);
                        if run % 3 == 1 {
                            self.bump(DigitGroup);
                        }
                        Prev::Digit
                    }
                    b' ' | b'\t' => {
                        if prev == Prev::Space {
                            run += 1;
                            self.bump(ExtraSpace);
                            if run == 2 {
                                self.bump(SpaceRun);
                            }
                        } else {
                            run = 1;
                        }
                        Prev::Space
                    }
                    b'\n' => {
                        self.bump(Newline);
                        if prev != Prev::Newline {
                            self.bump(NewlineRun);
                        }
                        Prev::Newline
                    }
                    // A carriage return rides with its newline; other controls are rare and free.
                    0..=0x1F | 0x7F => prev,
                    _ => {
                        self.bump(Punct);
                        if prev == Prev::Punct {
                            run += 1;
                        } else {
                            run = 1;
                            self.bump(PunctRun);
                        }
                        Prev::Punct
                    }
                };
                continue;
            }
            let Some(ch) = text[i..].chars().next() else { break };
            i += ch.len_utf8();
            let class = match ch as u32 {
                cp @ 0x4E00..=0x9FFF => [HanRare, HanCommon, Han][crate::profiles::han_frequency(cp)],
                0x3400..=0x4DBF | 0xF900..=0xFAFF | 0x20000..=0x3134F => HanRare,
                0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => Kana,
                0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF => Hangul,
                0x3000..=0x303F | 0xFF00..=0xFF65 => CjkPunct,
                0x1F000..=0x1FAFF | 0x2600..=0x27BF => Emoji,
                0xC0..=0x24F | 0x370..=0x52F => OtherLetter,
                _ => Other,
            };
            self.bump(class);
            prev = match class {
                Han | HanCommon | HanRare => {
                    if prev != Prev::Han {
                        self.bump(HanRun);
                    }
                    Prev::Han
                }
                Kana => {
                    if prev != Prev::Kana {
                        self.bump(KanaRun);
                    }
                    Prev::Kana
                }
                // An accented letter does not end an ASCII word ("résumé" is one word, not three).
                OtherLetter if matches!(prev, Prev::Lower | Prev::Upper) => Prev::Lower,
                _ => Prev::Other,
            };
        }
    }
}

impl Profile {
    pub fn from_name(name: &str, path: &str) -> Result<Profile> {
        PROFILES.iter().find(|p| p.name == name || p.aliases.contains(&name)).copied().ok_or_else(|| {
            let names: Vec<String> = PROFILES.iter().map(|p| crate::text::quoted(p.name)).collect();
            Error::option(path, format!("unknown tokenizer {}; expected one of {}", crate::text::quoted(name), names.join(", ")))
        })
    }

    /// Estimated tokens of the counted text (not rounded: callers add up, then round once).
    pub fn weigh(&self, c: &Counts) -> f64 {
        self.costs.iter().zip(c.0.iter()).map(|(w, &n)| f64::from(*w) * f64::from(n)).sum()
    }

    /// Estimated tokens of a piece of text.
    pub fn text(&self, text: &str) -> f64 {
        self.weigh(&Counts::of(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Class::*;

    #[test]
    fn classes_are_counted() {
        let c = Counts::of("Hello worldWide 12345 你好 カナ 한 🙂 é\n\n   x;; 。");
        assert_eq!((c.get(Word), c.get(Letter), c.get(Hump), c.get(Upper)), (3, 15, 1, 2));
        assert_eq!((c.get(Digit), c.get(DigitGroup)), (5, 2));
        assert_eq!((c.get(Han) + c.get(HanCommon) + c.get(HanRare), c.get(HanRun), c.get(Kana), c.get(KanaRun)), (2, 1, 2, 1));
        assert_eq!((c.get(Hangul), c.get(Emoji), c.get(OtherLetter)), (1, 1, 1));
        assert_eq!((c.get(Newline), c.get(NewlineRun), c.get(SpaceRun), c.get(ExtraSpace)), (2, 1, 1, 2));
        assert_eq!((c.get(Punct), c.get(PunctRun), c.get(CjkPunct)), (2, 1, 1));
        // `.` glues to `get`; `(_` is a run of two, which does not glue.
        let c = Counts::of("x.get(_id) == 1");
        assert_eq!((c.get(PunctGlued), c.get(PunctRun)), (1, 3));
        assert_eq!(Counts::of("x;; y").get(PunctRun), 1);
    }

    #[test]
    fn long_words_count_their_extra_letters() {
        assert_eq!(Counts::of("internationalization").get(LongLetter), 12);
        assert_eq!(Counts::of("self.internationalization").get(LongIdentLetter), 12);
        assert_eq!(Counts::of("internationalization").get(MidLetter), 4);
        assert_eq!(Counts::of("short words only").get(LongLetter), 0);
        assert_eq!(Counts::of("short words only").get(MidLetter), 2);
    }

    #[test]
    fn rare_ideographs_are_told_from_common_ones() {
        // 的 (the most common character) is one token everywhere; 龘 is not.
        let c = Counts::of("的龘");
        assert_eq!((c.get(Han), c.get(HanRare), c.get(HanRun)), (1, 1, 1));
        assert!((0x4E00..=0x9FFF).any(|cp| crate::profiles::han_frequency(cp) == 1));
    }

    #[test]
    fn accented_letters_do_not_split_a_word() {
        assert_eq!(Counts::of("résumé café").get(Word), 2);
    }

    #[test]
    fn counts_add_up() {
        let mut c = Counts::of("abc 12");
        c.add(&Counts::of("ab"));
        assert_eq!(c.get(Word), 2);
    }

    #[test]
    fn cjk_costs_more_than_a_quarter_token_per_character() {
        let zh = "我们今天讨论一下这个问题的解决方案";
        let chars = zh.chars().count() as f64;
        for p in PROFILES {
            assert!(p.text(zh) > chars / 2.0, "{}", p.name);
        }
        assert!(CL100K.text(zh) > O200K.text(zh));
    }

    #[test]
    fn every_cost_is_finite_and_not_negative() {
        for p in PROFILES {
            assert!(p.costs.iter().all(|w| w.is_finite() && *w >= 0.0), "{}", p.name);
            assert!(p.text("Hello, world!") >= 2.0, "{}", p.name);
        }
    }

    #[test]
    fn names_and_aliases_resolve() {
        assert_eq!(Profile::from_name("o200k_base", "t").unwrap().name, "o200k");
        assert_eq!(Profile::from_name("claude", "t").unwrap().name, "claude");
        let e = Profile::from_name("llama", "options.tokenizer").unwrap_err();
        assert_eq!(e.path, "options.tokenizer");
    }
}
