//! What chats name besides code: titles (《活着》), the name a user gives ("my name is Ana Lopez"),
//! Latin-script terms and names in CJK prose (esp32, Typescript, The Shore Hotel), numbers in CJK prose,
//! and the id of the record a tool returned (a booking's ZFA04Y at the start of its JSON). The audit's
//! other readers look for code, paths and numbers with units, and pass these over; a summary that loses
//! them loses what the conversation was about (which film, whose booking, which hotel, which board).

use crate::text::{floor_boundary, is_cjk, is_word_char};

/// Longest title or term taken (characters): longer, it is a quoted passage, not a name.
const MAX_NAME_CHARS: usize = 40;
/// Where a tool's output names the record it returns: the start of it (further in, ids are listings).
const RECORD_HEAD_BYTES: usize = 60;

/// The titles in `text`: what stands between 《 and 》 (or 『 and 』) on one line.
pub fn titles(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for (open, close) in [('《', '》'), ('『', '』')] {
        let mut rest = text;
        while let Some(at) = rest.find(open) {
            rest = &rest[at + open.len_utf8()..];
            let Some(end) = rest.find([close, open, '\n']) else { break };
            let title = rest[..end].trim();
            if rest[end..].starts_with(close) && !title.is_empty() && title.chars().count() <= MAX_NAME_CHARS {
                out.push(title);
            }
        }
    }
    out
}

/// The name a user gives for themselves: two or three capitalized words after "my name is", "I am" or
/// "I'm" ("My name is Ana Lopez.", not "I am Very happy").
pub fn given_names(text: &str) -> Vec<&str> {
    let capitalized = |w: &str| {
        w.len() >= 2
            && w.starts_with(|c: char| c.is_ascii_uppercase())
            && w[1..].bytes().all(|b| b.is_ascii_lowercase())
    };
    let mut out = Vec::new();
    for intro in ["my name is ", "My name is ", "I am ", "I'm "] {
        for (at, _) in text.match_indices(intro) {
            if text[..at].ends_with(is_word_char) {
                continue;
            }
            let start = at + intro.len();
            let (mut len, mut words) = (0, 0);
            for word in text[start..].split(' ').take(3) {
                let name = word.trim_end_matches([',', '.', '!', '?', ';', ':']);
                if !capitalized(name) {
                    break;
                }
                len += usize::from(words > 0) + name.len();
                words += 1;
                if name.len() < word.len() {
                    break; // the sentence goes on past the name
                }
            }
            if words >= 2 {
                out.push(&text[start..start + len]);
            }
        }
    }
    out
}

/// The Latin-script terms of CJK prose: words of three or more letters, digits, `+` or `#` starting
/// with a letter, joined by `.`, `-` or `'` (esp32, Arduino, C++, Node.js), with CJK right before or
/// after them (spaces and dashes between allowed): in an English sentence of a mixed message every word
/// would be one. A name of several words (The Shore Hotel, Academy Sports + Outdoors, Shutters on the
/// Beach) is one term when it stands beside CJK as a whole: in a list of hotels or shops each entry's name
/// is the fact, and its words apart are none (a summary that keeps "Hotel" keeps nothing).
pub fn latin_terms(text: &str) -> Vec<&str> {
    if !text.chars().any(is_cjk) {
        return Vec::new();
    }
    let words = latin_words(text);
    let capital = |at: usize| text.as_bytes()[at].is_ascii_uppercase();
    let mut out = Vec::new();
    let mut k = 0;
    while k < words.len() {
        // The words from `k` that a name can join: one space, or ` & ` or ` + `, between each two.
        let mut last = k;
        while last + 1 < words.len() && matches!(&text[words[last].1..words[last + 1].0], " " | " & " | " + ") {
            last += 1;
        }
        let (start, end) = (words[k].0, words[last].1);
        let name = &text[start..end];
        // Its words capitalized, but short lower-case ones inside it (of, the, on, by, and).
        let mut is_name = last > k && name.len() <= MAX_NAME_CHARS && last - k < MAX_NAME_WORDS;
        is_name &= capital(start) && capital(words[last].0);
        for &(s, e) in words.get(k + 1..last).unwrap_or_default() {
            is_name &= capital(s) || e - s <= 3;
        }
        if is_name && beside_cjk(text, start, end) {
            out.push(name);
        } else {
            for &(s, e) in &words[k..=last] {
                if (3..=MAX_NAME_CHARS).contains(&(e - s)) && beside_cjk(text, s, e) {
                    out.push(&text[s..e]);
                }
            }
        }
        k = last + 1;
    }
    out
}

/// Longest name of several words taken as one term (words).
const MAX_NAME_WORDS: usize = 6;

/// Where the Latin words of `text` are (start and end): each starting with a letter not glued to a
/// word, path or number before it, and not followed by `_` or `/` (a piece of a path or identifier).
fn latin_words(text: &str) -> Vec<(usize, usize)> {
    let part = |c: char| c.is_ascii_alphanumeric() || c == '+' || c == '#';
    let glued = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-' | '\'');
    let mut out = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        let inside = at < text.len() && (part(c) || (start.is_some() && matches!(c, '.' | '-' | '\'')));
        match (inside, start) {
            (true, None) if c.is_ascii_alphabetic() && !text[..at].ends_with(glued) => start = Some(at),
            (false, Some(s)) => {
                let end = s + text[s..at].trim_end_matches(['.', '-', '\'']).len();
                if !text[end..].starts_with(['_', '/']) {
                    out.push((s, end));
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// Whether `text[start..end]` has CJK, or the brackets and commas of CJK prose, right before or after
/// it, spaces and dashes between allowed (`（The Red Collection）`, `The Shore Hotel - 圣莫尼卡`).
fn beside_cjk(text: &str, start: usize, end: usize) -> bool {
    let cjk = |c: char| {
        is_cjk(c)
            || matches!(
                c,
                '（' | '）' | '【' | '】' | '「' | '」' | '『' | '』' | '《' | '》' | '、' | '，' | '＆' | '＋'
            )
    };
    let before = text[..start].trim_end_matches([' ', '-']).chars().next_back();
    let after = text[end..].trim_start_matches([' ', '-']).chars().next();
    before.is_some_and(cjk) || after.is_some_and(cjk)
}

/// The numbers of two or more digits in CJK prose (a year, a score, an episode), which carry no Latin
/// unit; none when the text holds no CJK. Not part of a word, a path or a longer number.
pub fn bare_numbers(text: &str) -> Vec<&str> {
    if !text.chars().any(is_cjk) {
        return Vec::new();
    }
    let bytes = text.as_bytes();
    let glued = |b: u8| b.is_ascii_alphanumeric() || b"_./-".contains(&b);
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() || (i > 0 && (glued(bytes[i - 1]) || bytes[i - 1] == b',')) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        // A decimal part belongs to the number; a comma or dot before more digits makes it a longer one.
        if bytes.get(i) == Some(&b'.') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
        }
        let longer = bytes.get(i).is_some_and(|&b| glued(b) || b == b',');
        if i - start >= 2 && !longer {
            out.push(&text[start..i]);
        }
        while i < bytes.len() && (glued(bytes[i]) || bytes[i] == b',') {
            i += 1;
        }
    }
    out
}

/// The id of the record a tool's `output` returns: a code of capitals and digits (5 to 12, both) or a
/// snake_case name ending in digits, near its start; None when there is none there.
pub fn record_id(output: &str) -> Option<&str> {
    let head = &output[..floor_boundary(output, RECORD_HEAD_BYTES.min(output.len()))];
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == '-';
    head.split(|c: char| !word(c)).find(|t| {
        let b = t.as_bytes();
        let code = (5..=12).contains(&b.len())
            && b.iter().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
            && b.iter().any(u8::is_ascii_digit)
            && b.iter().any(u8::is_ascii_uppercase);
        let numbered_name = t.contains('_')
            && t.rsplit_once('_').is_some_and(|(name, n)| {
                !n.is_empty()
                    && n.bytes().all(|b| b.is_ascii_digit())
                    && name.split('_').all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase()))
            });
        code || numbered_name
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_between_their_brackets() {
        assert_eq!(
            titles("我最近看了《我心狂野》，还有『千と千尋の神隠し』。《未完"),
            ["我心狂野", "千と千尋の神隠し"]
        );
    }

    #[test]
    fn a_name_the_user_gives() {
        assert_eq!(given_names("Hi, my name is Ana Lopez and I am Very happy."), ["Ana Lopez"]);
        assert_eq!(given_names("I'm John Smith. Thanks"), ["John Smith"]);
        assert!(given_names("I am fine. I'm Sure").is_empty());
        // Only a word of the same script is glued to the introduction: CJK before it is not.
        assert_eq!(given_names("你好，我叫my name is Ana Lopez"), ["Ana Lopez"]);
        assert!(given_names("Tommy name is Ana Lopez").is_empty());
    }

    #[test]
    fn latin_terms_of_cjk_prose_only() {
        assert_eq!(
            latin_terms("你能否在Typescript中实现哈希环？用esp32和C++，见Node.js。"),
            ["Typescript", "esp32", "C++", "Node.js"]
        );
        assert!(latin_terms("Plain English has no such terms.").is_empty());
        assert!(latin_terms("文件在/usr/lib和x_y里，ok").is_empty());
        assert_eq!(latin_terms("My name is Ana. 我用 Python 写"), ["Python"]);
    }

    #[test]
    fn names_of_several_words_beside_cjk_are_one_term() {
        let list = "1. The Shore Hotel - 圣莫尼卡\n2. 迪克体育用品（Dick's Sporting Goods）\n3. 学院（Academy Sports + Outdoors）\n\
                    4. Shutters on the Beach - 圣莫尼卡\n5. Outdoor＆Bike - 在德国";
        assert_eq!(
            latin_terms(list),
            [
                "The Shore Hotel",
                "Dick's Sporting Goods",
                "Academy Sports + Outdoors",
                "Shutters on the Beach",
                "Outdoor",
                "Bike"
            ]
        );
        // Not names: a sentence (lower-case words), one too long; their words beside CJK still count.
        assert!(latin_terms("注：this list may vary。").is_empty());
        assert_eq!(latin_terms("我用 Python scripts 写"), ["Python", "scripts"]);
        assert_eq!(latin_terms("1. The Grand Old Royal Palace Garden Hotel - 圣莫尼卡"), ["Hotel"]);
    }

    #[test]
    fn bare_numbers_of_cjk_prose_only() {
        assert_eq!(bare_numbers("这部电影得了63分，1879年成立，7天，v12，587,204人，3.14"), ["63", "1879", "3.14"]);
        assert!(bare_numbers("It scored 63 points.").is_empty());
    }

    #[test]
    fn the_id_at_the_start_of_a_record() {
        assert_eq!(record_id(r#"{"reservation_id": "ZFA04Y", "user_id": "ana_lopez_1234""#), Some("ZFA04Y"));
        assert_eq!(record_id(r#"{"user_id": "aarav_ahmed_6699", "name": "Aarav"}"#), Some("aarav_ahmed_6699"));
        assert_eq!(record_id(r#"{"status": "ok", "time": "2024-05-13T18:01"}"#), None);
        let far = format!("{} HAT123", "x".repeat(80));
        assert_eq!(record_id(&far), None);
    }
}
