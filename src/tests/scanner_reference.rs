//! The scanner as first written: one character at a time, one `match` per byte, every count bumped in
//! place. It is the specification of the classes; `ctxfold::counting::scanner::Counts::add_scan` is the fast
//! version and must count exactly what this one counts (src/tests/scanner.rs checks both on the corpus
//! and on generated text). A change to a class is made here and there alike.

use ctxfold::counting::scanner::{han_class, Class, CLASS_COUNT};

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

pub fn add_text(counts: &mut [u32; CLASS_COUNT], text: &str) {
    use Class::*;
    let bump = |counts: &mut [u32; CLASS_COUNT], class: Class| {
        let slot = &mut counts[class as usize];
        *slot = slot.saturating_add(1);
    };
    let bytes = text.as_bytes();
    let mut prev = Prev::None;
    let mut run = 0u32;
    let mut word_after_space = false;
    let mut mark_after_space = false;
    // Whether the current word is a common word.
    let mut common = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            i += 1;
            prev = match b {
                b'a'..=b'z' | b'A'..=b'Z' => {
                    let upper = b.is_ascii_uppercase();
                    if matches!(prev, Prev::Lower | Prev::Upper) {
                        run += 1;
                        if upper && prev == Prev::Lower {
                            bump(counts, Hump);
                        }
                    } else {
                        if prev == Prev::Punct && run == 1 {
                            counts[PunctRun as usize] = counts[PunctRun as usize].saturating_sub(1);
                            bump(counts, if mark_after_space { PunctAfterSpace } else { PunctGlued });
                        }
                        word_after_space = matches!(prev, Prev::None | Prev::Space | Prev::Newline);
                        run = 1;
                        common = word_after_space && is_common_word(&text[i - 1..]);
                        // Outside a sentence: not right after a lower-case letter and one space or tab.
                        let mut before = bytes[..i - 1]
                            .iter()
                            .rev()
                            .filter(|&&b| !(b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r') || b == 0x7f));
                        let in_sentence = before.next().is_some_and(|&b| b == b' ' || b == b'\t')
                            && before.next().is_some_and(u8::is_ascii_lowercase);
                        if word_after_space && !common && !in_sentence {
                            bump(counts, LooseWord);
                        }
                        bump(
                            counts,
                            if common {
                                CommonWord
                            } else if word_after_space {
                                Word
                            } else {
                                IdentWord
                            },
                        );
                    }
                    // A common word's letters are in no letter class.
                    if common {
                    } else if run > 8 {
                        bump(counts, if word_after_space { LongLetter } else { LongIdentLetter });
                    } else if run > 4 {
                        bump(counts, MidLetter);
                    }
                    if !common {
                        bump(counts, Letter);
                        if upper {
                            bump(counts, Upper);
                        }
                    }
                    if upper {
                        Prev::Upper
                    } else {
                        Prev::Lower
                    }
                }
                b'0'..=b'9' => {
                    run = if prev == Prev::Digit { run + 1 } else { 1 };
                    bump(counts, Digit);
                    if run == 1 && prev == Prev::Space {
                        bump(counts, SpacedDigit);
                    } else if run % 3 == 1 {
                        bump(counts, DigitGroup);
                    }
                    Prev::Digit
                }
                b' ' | b'\t' => {
                    if prev == Prev::Punct && run == 1 {
                        counts[PunctRun as usize] = counts[PunctRun as usize].saturating_sub(1);
                        bump(counts, PunctSpaced);
                    }
                    if prev == Prev::Space {
                        run += 1;
                        bump(counts, ExtraSpace);
                        if run == 2 {
                            bump(counts, SpaceRun);
                        }
                    } else {
                        run = 1;
                    }
                    Prev::Space
                }
                // A lone `\r` breaks a line as `\n` does; one right before `\n` is part of that break.
                b'\n' | b'\r' if b == b'\n' || bytes.get(i) != Some(&b'\n') => {
                    if prev == Prev::Punct && run == 1 {
                        counts[PunctRun as usize] = counts[PunctRun as usize].saturating_sub(1);
                        bump(counts, PunctSpaced);
                    }
                    bump(counts, Newline);
                    if prev != Prev::Newline {
                        bump(counts, if prev == Prev::Punct { NewlineAfterPunct } else { NewlineRun });
                    }
                    Prev::Newline
                }
                0..=0x1F | 0x7F => prev,
                _ => {
                    bump(counts, Punct);
                    if prev == Prev::Punct {
                        run += 1;
                    } else {
                        run = 1;
                        bump(counts, PunctRun);
                        mark_after_space = prev == Prev::Space;
                    }
                    Prev::Punct
                }
            };
            continue;
        }
        let Some(ch) = text[i..].chars().next() else { break };
        i += ch.len_utf8();
        let class = match ch as u32 {
            cp @ 0x4E00..=0x9FFF => han_class(cp),
            0x3400..=0x4DBF | 0xF900..=0xFAFF | 0x20000..=0x3134F => HanRare,
            0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => Kana,
            0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF => Hangul,
            0x3000..=0x303F | 0xFF00..=0xFF65 => CjkPunct,
            0x1F000..=0x1FAFF | 0x2600..=0x27BF => Emoji,
            0xC0..=0x24F | 0x370..=0x52F => OtherLetter,
            _ => Other,
        };
        bump(counts, class);
        prev = match class {
            Han | HanCommon | HanCommonClaude | HanRare => {
                if prev != Prev::Han {
                    bump(counts, HanRun);
                }
                Prev::Han
            }
            Kana => {
                if prev != Prev::Kana {
                    bump(counts, KanaRun);
                }
                Prev::Kana
            }
            OtherLetter if matches!(prev, Prev::Lower | Prev::Upper) => Prev::Lower,
            _ => Prev::Other,
        };
    }
}

/// Whether `text` starts with a common word: its ASCII letters, at most 8, skipping controls other than a line
/// break's, are one of the list's words, and what follows ends the word as the scanner ends it (nothing, ASCII
/// that is not a letter or a skipped control, or a character that is not an accented letter, which would continue
/// the word).
fn is_common_word(text: &str) -> bool {
    static WORDS: std::sync::OnceLock<std::collections::HashSet<&'static str>> = std::sync::OnceLock::new();
    let words = WORDS.get_or_init(|| include_str!("../counting/scanner/common_words.txt").lines().collect());
    let skipped = |c: char| c.is_ascii_control() && !matches!(c, '\t' | '\n' | '\r');
    let word: String =
        text.chars().take_while(|&c| c.is_ascii_alphabetic() || skipped(c)).filter(char::is_ascii_alphabetic).collect();
    let ends = text
        .chars()
        .find(|&c| !c.is_ascii_alphabetic() && !skipped(c))
        .is_none_or(|c| c.is_ascii() || !matches!(u32::from(c), 0xC0..=0x24F | 0x370..=0x52F));
    word.len() <= 8 && ends && words.contains(word.as_str())
}

pub fn of(text: &str) -> [u32; CLASS_COUNT] {
    let mut counts = [0; CLASS_COUNT];
    add_text(&mut counts, text);
    counts
}
