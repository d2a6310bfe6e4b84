//! What chats name besides code: titles (《活着》), the name a user gives ("my name is Ana Lopez"),
//! Latin-script terms in CJK prose (esp32, Typescript), numbers in CJK prose, and the id of the record a
//! tool returned (a booking's ZFA04Y at the start of its JSON). The audit's other readers look for
//! code, paths and numbers with units, and pass these over; a summary that loses them loses what the
//! conversation was about (which film, whose booking, which board).

use crate::text::{floor_boundary, is_cjk};

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
            if text[..at].ends_with(char::is_alphanumeric) {
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
/// with a letter, joined by `.` or `-` (esp32, Arduino, C++, Node.js), with CJK right before or after
/// them (one space allowed): in an English sentence of a mixed message every word would be one.
pub fn latin_terms(text: &str) -> Vec<&str> {
    if !text.chars().any(is_cjk) {
        return Vec::new();
    }
    let cjk_before = |at: usize| {
        let before = &text[..at];
        before.strip_suffix(' ').unwrap_or(before).chars().next_back().is_some_and(is_cjk)
    };
    let cjk_after = |at: usize| {
        let after = &text[at..];
        after.strip_prefix(' ').unwrap_or(after).chars().next().is_some_and(is_cjk)
    };
    let part = |c: char| c.is_ascii_alphanumeric() || c == '+' || c == '#';
    let glued = |c: char| c.is_ascii_alphanumeric() || "_./-".contains(c);
    let mut out = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        let inside = at < text.len() && (part(c) || (start.is_some() && (c == '.' || c == '-')));
        match (inside, start) {
            (true, None) if c.is_ascii_alphabetic() && !text[..at].ends_with(glued) => start = Some(at),
            (false, Some(s)) => {
                let term = text[s..at].trim_end_matches(['.', '-']);
                let end = s + term.len();
                let sized = term.len() >= 3 && term.len() <= MAX_NAME_CHARS;
                if sized && !text[end..].starts_with(['_', '/']) && (cjk_before(s) || cjk_after(end)) {
                    out.push(term);
                }
                start = None;
            }
            _ => {}
        }
    }
    out
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
