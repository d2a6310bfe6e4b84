//! Finding a short text in a longer one, as `str::find` does. Natively the standard library compares 16
//! bytes at a time (on x86-64), but in WebAssembly it runs the generic Two-Way search, which sets up for
//! each needle and then steps through the text: the audit's look-ups of every fact in a summary, and of
//! every error sign in every line, took a quarter of `compact`'s time on a 200 000-token request in Node.
//! Here the needle's first and last bytes are compared with 16 places of the text at once, and the needle
//! is compared whole only where both match: no setup, and few places to check in real text.

/// Places of the text compared at once.
const LANES: usize = 16;

/// Where `needle` first occurs in `haystack`: `haystack.find(needle)`.
pub fn find(haystack: &str, needle: &str) -> Option<usize> {
    // A match of valid UTF-8 in valid UTF-8 starts on a character boundary, so bytes give str's answer.
    find_bytes(haystack.as_bytes(), needle.as_bytes())
}

/// Where `needle` occurs in `haystack`, left to right, each match after the end of the one before:
/// `haystack.match_indices(needle)`'s starts, for a needle that is not empty (an empty one is found once, at 0).
pub fn match_starts<'a>(haystack: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    let mut from = Some(0);
    std::iter::from_fn(move || {
        let start = from?;
        let found = find(&haystack[start..], needle).map(|k| start + k);
        from = found.filter(|_| !needle.is_empty()).map(|at| at + needle.len());
        found
    })
}

/// The three-byte sequences of a text, hashed into 65 536 bits: a needle holding one the text lacks is not
/// in the text, known without a search. Most facts a summary lost are ruled out so, and a search for each of
/// them would read the whole summary (about 1 400 look-ups in 40 to 54 KB summaries for each apply on the
/// Workers bench's body).
pub struct Trigrams {
    bits: Vec<u64>,
}

impl Trigrams {
    const BITS: usize = 1 << 16;

    pub fn of(text: &str) -> Trigrams {
        let mut bits = vec![0u64; Self::BITS / 64];
        for w in text.as_bytes().windows(3) {
            let k = Self::slot(w);
            bits[k / 64] |= 1 << (k % 64);
        }
        Trigrams { bits }
    }

    /// False when `needle` is surely not in the text; true when it may be (always, under three bytes).
    pub fn may_hold(&self, needle: &str) -> bool {
        needle.as_bytes().windows(3).all(|w| {
            let k = Self::slot(w);
            self.bits[k / 64] & (1 << (k % 64)) != 0
        })
    }

    fn slot(w: &[u8]) -> usize {
        let gram = u32::from(w[0]) | u32::from(w[1]) << 8 | u32::from(w[2]) << 16;
        (gram.wrapping_mul(0x9E37_79B1) >> 16) as usize
    }
}

fn find_bytes(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let (Some(&first), Some(&last)) = (needle.first(), needle.last()) else { return Some(0) };
    let n = needle.len();
    let mut at = 0;
    // Each round looks at the 16 places from `at`: their first bytes, and the bytes where a needle there ends.
    while at + n - 1 + LANES <= haystack.len() {
        let mut both = equal(haystack, at, first) & equal(haystack, at + n - 1, last);
        while both != 0 {
            let start = at + both.trailing_zeros() as usize;
            if haystack[start..start + n] == *needle {
                return Some(start);
            }
            both &= both - 1;
        }
        at += LANES;
    }
    // Fewer than 16 places are left (all of a short line's). The first byte is compared alone first:
    // at `opt-level = "z"` each whole comparison is a call.
    haystack[at..].windows(n).position(|w| w[0] == first && w == needle).map(|k| at + k)
}

/// Bit `k` set where `bytes[at + k] == b`, for the 16 bytes from `at` (the slice has them).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn equal(bytes: &[u8], at: usize, b: u8) -> u32 {
    use core::arch::wasm32::*;
    assert!(at + LANES <= bytes.len());
    // SAFETY: 16 readable bytes from `at` (asserted); a v128 load need not be aligned.
    let lanes = unsafe { v128_load(bytes.as_ptr().add(at).cast()) };
    u32::from(u8x16_bitmask(u8x16_eq(lanes, u8x16_splat(b))))
}

/// `equal` in SSE2, part of x86-64's baseline: the native tests run the same search as the wasm.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn equal(bytes: &[u8], at: usize, b: u8) -> u32 {
    use core::arch::x86_64::*;
    assert!(at + LANES <= bytes.len());
    // SAFETY: 16 readable bytes from `at` (asserted); an unaligned load.
    unsafe {
        let lanes = _mm_loadu_si128(bytes.as_ptr().add(at).cast());
        _mm_movemask_epi8(_mm_cmpeq_epi8(lanes, _mm_set1_epi8(b as i8))) as u32
    }
}

/// `equal` a byte at a time: for targets with neither SSE2 nor SIMD128, and what the tests hold the others to.
#[cfg(any(test, not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128")))))]
fn equal_bytewise(bytes: &[u8], at: usize, b: u8) -> u32 {
    bytes[at..at + LANES].iter().enumerate().fold(0, |mask, (k, &c)| mask | (u32::from(c == b) << k))
}

#[cfg(not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128"))))]
use equal_bytewise as equal;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn finds_what_str_finds() {
        let text = "a long line of text, with é and 日本語, and the word needle near its end: needle.";
        for needle in ["", "a", "needle", "needle.", "日本", "é and", ".", "absent", "a long line of text, with é"]
        {
            assert_eq!(find(text, needle), text.find(needle), "{needle:?}");
            if !needle.is_empty() {
                let starts: Vec<usize> = text.match_indices(needle).map(|m| m.0).collect();
                assert_eq!(match_starts(text, needle).collect::<Vec<_>>(), starts, "{needle:?}");
            }
        }
        // Matches in every place of a 16-byte round and across rounds, overlapping ones skipped as str does.
        let repeated = "abababababababababababababababababab";
        assert_eq!(
            match_starts(repeated, "aba").collect::<Vec<_>>(),
            repeated.match_indices("aba").map(|m| m.0).collect::<Vec<_>>()
        );
        assert_eq!(find("", "x"), None);
        assert_eq!(find("short", "longer than it"), None);
    }

    #[test]
    fn trigrams_rule_out_only_what_is_absent() {
        let trigrams = Trigrams::of("src/app/main.py failed with KeyError at line 42");
        for present in ["src/app/main.py", "KeyError", "42", "x", "", "line 42"] {
            assert!(trigrams.may_hold(present), "{present:?}");
        }
        for absent in ["src/app/test.py", "ValueError", "line 43"] {
            assert!(!trigrams.may_hold(absent), "{absent:?}");
        }
    }

    proptest! {
        #[test]
        fn agrees_with_str(text in "[ab日 \\n]{0,80}", needle in "[ab日 ]{1,6}") {
            prop_assert_eq!(find(&text, &needle), text.find(&needle));
            prop_assert_eq!(match_starts(&text, &needle).collect::<Vec<_>>(), text.match_indices(&needle).map(|m| m.0).collect::<Vec<_>>());
            prop_assert!(!text.contains(&needle) || Trigrams::of(&text).may_hold(&needle));
        }

        #[test]
        fn compares_sixteen_bytes_as_one_at_a_time_does(bytes in proptest::collection::vec(any::<u8>(), 16..40), b in any::<u8>()) {
            for at in 0..=bytes.len() - LANES {
                prop_assert_eq!(equal(&bytes, at, b), equal_bytewise(&bytes, at, b));
                prop_assert_eq!(equal(&bytes, at, bytes[at]), equal_bytewise(&bytes, at, bytes[at]));
            }
        }
    }
}
