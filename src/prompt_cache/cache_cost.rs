//! Whether an edit of the history pays for the prompt cache it throws away.
//!
//! Providers cache the request's prefix: a request that starts like the previous one reads those
//! tokens at a tenth of the input price (Anthropic; OpenAI and Gemini discount similarly). Clearing
//! an old tool output changes the prefix from that message on, so the next request writes
//! everything after it again (at 1.25× on Anthropic) instead of reading it. Over the next `horizon`
//! requests, an edit at prefix position P that saves S tokens, of a cached prefix of C tokens:
//!
//! ```text
//! without the edit: each request reads the cached I = C − P tokens after P        I·read
//! with it:          the next request writes them again, S fewer                 (I − S)·write
//!                   the later ones read S fewer                          −(horizon − 1)·S·read
//! ```
//!
//! The edit is made when it costs less, or when the request would not fit otherwise. Deferred
//! edits pile up, and are made together once they pay: the prefix changes rarely, in large steps.

use crate::options::{CachePrices, Options};

/// What the cache rule decided about an edit.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheDecision {
    /// Whether the edit was made.
    pub applied: bool,
    /// `"pays"`, `"costs more than it saves"` or `"over the limit"` (made whatever it costs).
    pub reason: &'static str,
    /// The cached prefix assumed, in tokens.
    pub cached_tokens: u64,
    /// Cached tokens after the first edited message: what the next request must write again.
    pub invalidated_tokens: u64,
    /// Tokens the edit removes.
    pub saved_tokens: u64,
    /// Cost without the edit minus cost with it over `horizon` requests, in input tokens (above 0: it pays).
    pub net_saving: f64,
    pub horizon: u32,
}

crate::json_object!(CacheDecision {
    applied => "applied",
    reason => "reason",
    cached_tokens => "cachedTokens",
    invalidated_tokens => "invalidatedTokens",
    saved_tokens => "savedTokens",
    net_saving => "netSaving",
    horizon => "horizon",
});

/// Judges edits that save `saved[k].1` tokens at message `saved[k].0` (in any order), given the
/// tokens of each message (the prefix positions) and the cached prefix.
pub fn judge(
    tokens: &[u32],
    saved: &[(usize, u64)],
    cached: u64,
    prices: &CachePrices,
    over_limit: bool,
) -> CacheDecision {
    // before[i]: tokens of the messages before message i.
    let mut before = Vec::with_capacity(tokens.len() + 1);
    let mut at = 0u64;
    before.push(0);
    for &t in tokens {
        at += u64::from(t);
        before.push(at);
    }
    let first = saved.iter().map(|s| s.0).min().unwrap_or(tokens.len()).min(tokens.len());
    let invalidated = cached.saturating_sub(before[first]);
    // Saved tokens inside the cached prefix are read at the read price; those after it would have
    // been written once and then read.
    let (mut saved_cached, mut saved_uncached) = (0u64, 0u64);
    for &(index, s) in saved {
        if before[index.min(tokens.len())] < cached {
            saved_cached += s
        } else {
            saved_uncached += s
        }
    }
    let saved_total = saved_cached + saved_uncached;
    let h = f64::from(prices.horizon);
    let (r, w) = (prices.read, prices.write);
    let net = invalidated as f64 * r - invalidated.saturating_sub(saved_cached) as f64 * w
        + (h - 1.0) * saved_cached as f64 * r
        + saved_uncached as f64 * (w + (h - 1.0) * r);
    let net_saving = (net / prices.input).round();
    let (applied, reason) = match (over_limit, net > 0.0) {
        (true, _) => (true, "over the limit"),
        (false, true) => (true, "pays"),
        (false, false) => (false, "costs more than it saves"),
    };
    CacheDecision {
        applied,
        reason,
        cached_tokens: cached,
        invalidated_tokens: invalidated,
        saved_tokens: saved_total,
        net_saving,
        horizon: prices.horizon,
    }
}

/// The rule applied to a prune: `saved` pairs (message, tokens saved) of its edits.
pub fn judge_prune(tokens: &[u32], saved: &[(usize, u64)], prices: &CachePrices, options: &Options) -> CacheDecision {
    let cached = cached_prefix(tokens, prices, options.usage.last().map(|r| r.message_count));
    let total: u64 = tokens.iter().map(|&t| u64::from(t)).sum();
    judge(tokens, saved, cached, prices, total > u64::from(options.limit()))
}

/// The cached prefix to assume: the host's figure, else the messages of the latest usage report,
/// else every message but the newest.
pub fn cached_prefix(tokens: &[u32], prices: &CachePrices, reported_messages: Option<usize>) -> u64 {
    if let Some(c) = prices.cached_prefix_tokens {
        return c;
    }
    let n = reported_messages.unwrap_or(tokens.len().saturating_sub(1)).min(tokens.len());
    tokens[..n].iter().map(|&t| u64::from(t)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_deep_edit_of_a_cached_prefix_is_deferred_and_a_shallow_one_made() {
        // 100 messages of 1000 tokens, all cached. Clearing 15 000 tokens at message 20 makes the
        // next request write 65 000 of the 80 000 cached tokens after it: 8000 − 81 250 + 9 × 1500
        // = −59 750 over 10 requests. It pays only over 50 requests.
        let tokens = vec![1000u32; 100];
        let saved: Vec<(usize, u64)> = (20..35).map(|i| (i, 1000)).collect();
        let p = CachePrices::default();
        let d = judge(&tokens, &saved, 100_000, &p, false);
        assert_eq!((d.invalidated_tokens, d.saved_tokens, d.net_saving), (80_000, 15_000, -59_750.0));
        assert!(!d.applied);
        let long = CachePrices { horizon: 50, ..p.clone() };
        assert!(judge(&tokens, &saved, 100_000, &long, false).applied);
        assert!(judge(&tokens, &saved, 100_000, &p, true).applied, "made anyway when the request would not fit");
        // The same edit near the end of the cache: 15 000 invalidated, all of them saved.
        let late: Vec<(usize, u64)> = (85..100).map(|i| (i, 1000)).collect();
        assert!(judge(&tokens, &late, 100_000, &p, false).applied);
        // Nothing cached (a cold cache): every saving pays.
        assert!(judge(&tokens, &saved, 0, &p, false).applied);
    }

    #[test]
    fn prices_are_read_strictly() {
        let p = CachePrices::from_json(&json!({ "inputPrice": 3, "readPrice": 0.3 })).unwrap().unwrap();
        assert_eq!((p.input, p.read, p.write), (3.0, 0.3, 3.75));
        assert_eq!(CachePrices::from_json(&json!(true)).unwrap(), Some(CachePrices::default()));
        assert_eq!(CachePrices::from_json(&json!({ "readPrice": -1 })).unwrap_err().path, "options.cache.readPrice");
        assert_eq!(CachePrices::from_json(&json!({ "ttl": 1 })).unwrap_err().path, "options.cache.ttl");
    }
}
