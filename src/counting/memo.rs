//! The classes of messages' long texts counted lately, kept with the texts themselves. One history
//! is read several times over: `compact` prunes, plans, applies and audits it; a Worker prunes a
//! request body and plans on the result; the next request brings the same conversation with one turn
//! more. The scan is most of each read, and a text already counted is found here at the cost of
//! comparing it.
//!
//! A hit compares the whole text, not only its hash, so no result ever depends on what was kept here.
//! Memory is bounded and taken once: the texts are copied into one buffer of `MAX_BYTES`, reserved
//! when the first is kept (many small copies would scatter over the memory and keep a WebAssembly
//! instance from reusing it for large buffers); when it is full, everything kept is forgotten at once.

use ctxfold_scanner::shapes::classes_of;
use ctxfold_scanner::Counts;
use std::cell::RefCell;

/// Shorter texts are scanned each time: hashing and comparing them would save little. Longer than
/// both hashed ends (`ENDS`).
const MIN_BYTES: usize = 512;
/// The buffer of kept texts.
const MAX_BYTES: usize = 2 << 20;
/// Slots of the table (a power of two, above the most texts the buffer holds).
const SLOTS: usize = 8192;
const EMPTY: u32 = u32::MAX;

struct Memo {
    /// For each slot, the index of its entry, or `EMPTY`.
    slots: Vec<u32>,
    entries: Vec<Entry>,
    texts: String,
}

struct Entry {
    hash: u64,
    start: u32,
    counts: Counts,
}

thread_local! {
    static MEMO: RefCell<Memo> =
        const { RefCell::new(Memo { slots: Vec::new(), entries: Vec::new(), texts: String::new() }) };
}

/// The classes of a message's text (`shapes::classes_of`), which the next read of the history will
/// count again: a long one counted lately is found rather than counted.
pub fn of_message(text: &str) -> Counts {
    counts_of(text, classes_of)
}

/// The counts of `text`: the kept ones when this very text was counted lately, else `count(text)`.
fn counts_of(text: &str, count: impl FnOnce(&str) -> Counts) -> Counts {
    if text.len() < MIN_BYTES || text.len() > MAX_BYTES / 4 {
        return count(text);
    }
    let hash = hash(text.as_bytes());
    let slot = (hash as usize) & (SLOTS - 1);
    let kept = MEMO.with(|m| {
        let m = m.borrow();
        let e = m.entries.get(*m.slots.get(slot)? as usize)?;
        let start = e.start as usize;
        let kept = m.texts.get(start..start + text.len())?;
        (e.hash == hash && crate::text::same_text(kept, text)).then_some(e.counts)
    });
    if let Some(c) = kept {
        return c;
    }
    let c = count(text);
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        if m.slots.is_empty() {
            m.slots = vec![EMPTY; SLOTS];
            m.texts.reserve_exact(MAX_BYTES);
        }
        if m.texts.len() + text.len() > MAX_BYTES {
            m.slots.fill(EMPTY);
            m.entries.clear();
            m.texts.clear();
        }
        let start = m.texts.len() as u32;
        m.texts.push_str(text);
        m.slots[slot] = m.entries.len() as u32;
        m.entries.push(Entry { hash, start, counts: c });
    });
    c
}

/// Bytes hashed at each end of a text.
const ENDS: usize = 64;

/// A 64-bit hash of the length and the two ends of `bytes` (at least `MIN_BYTES` long), eight bytes
/// at a time: a multiply-and-rotate round per word, and a final mix so that every input bit reaches
/// the slot bits. Hashing the whole text would add a read of it to every miss; this only picks the
/// slot, and equality is always checked on the whole text.
fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = (bytes.len() as u64).wrapping_mul(K);
    for end in [&bytes[..ENDS], &bytes[bytes.len() - ENDS..]] {
        for at in (0..ENDS).step_by(8) {
            h = (h ^ crate::text::word(end, at)).wrapping_mul(K).rotate_left(29);
        }
    }
    h ^= h >> 32;
    h = h.wrapping_mul(K);
    h ^ (h >> 29)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_count_is_the_count_of_that_very_text() {
        let text = "The booking code is QX7-2291. ".repeat(40);
        let first = counts_of(&text, Counts::scan);
        assert_eq!(first, Counts::scan(&text));
        // Found again without counting.
        let again = counts_of(&text, |_| panic!("counted twice"));
        assert_eq!(again, first);
        // A text of the same length and ends (so the same slot) but other bytes is counted, not taken
        // from the buffer.
        let middle = text.len() / 2;
        let other = format!("{}X{}", &text[..middle], &text[middle + 1..]);
        assert_eq!(counts_of(&other, Counts::scan), Counts::scan(&other));
    }

    #[test]
    fn short_and_huge_texts_are_always_counted() {
        let mut calls = 0;
        for text in ["short".to_string(), "x ".repeat(MAX_BYTES / 4)] {
            counts_of(&text, |t| {
                calls += 1;
                Counts::scan(t)
            });
            counts_of(&text, |t| {
                calls += 1;
                Counts::scan(t)
            });
        }
        assert_eq!(calls, 4);
    }

    #[test]
    fn memory_stays_bounded_and_is_taken_once() {
        let mut capacity = None;
        for i in 0..(MAX_BYTES / 100_000 + 8) {
            let text = format!("{i} {}", "word ".repeat(20_000));
            assert_eq!(counts_of(&text, Counts::scan), Counts::scan(&text));
            MEMO.with(|m| {
                let m = m.borrow();
                assert!(m.texts.len() <= MAX_BYTES);
                assert_eq!(*capacity.get_or_insert(m.texts.capacity()), m.texts.capacity(), "never grown");
            });
        }
    }
}
