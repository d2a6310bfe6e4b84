//! Ordering by an integer key with one copy of the sort code in the wasm, and choosing indices with
//! one copy of the loop.
//!
//! Each `sort_by`/`sort_unstable_by_key` over a new element type or closure compiles its own copy of
//! the standard library's sort: 2.4–4 KB of wasm each (stable sorts more). Every order the core needs
//! is by an integer key, so they all come here and share one instantiation. Likewise each
//! `filter(..).collect()` compiles its own iterator and Vec-from-iterator code: the index lists are
//! chosen by `indices_where` and `filtered`, whose condition is a `dyn` closure so there is one copy.

/// `items` ordered by `key`, ascending; items with equal keys keep their order (a stable sort).
pub fn sorted_by_key<T>(items: Vec<T>, key: impl Fn(&T) -> u64) -> Vec<T> {
    let keys: Vec<u64> = items.iter().map(key).collect();
    let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
    // A loop, not `filter_map(..).collect()`: this function is compiled once per element type.
    let mut out = Vec::with_capacity(slots.len());
    for i in order(&keys) {
        if let Some(item) = slots[i].take() {
            out.push(item);
        }
    }
    out
}

/// Indices (or any `usize`s) in ascending order: through the same sort as the keyed orders, rather than
/// `sort_unstable` on `usize`, which would be one more copy of the sort code.
pub fn sorted(values: Vec<usize>) -> Vec<usize> {
    sorted_by_key(values, |&v| v as u64)
}

/// The indices in `range` for which `keep` holds, ascending.
pub fn indices_where(range: std::ops::Range<usize>, keep: &dyn Fn(usize) -> bool) -> Vec<usize> {
    let mut out = Vec::new();
    for i in range {
        if keep(i) {
            out.push(i);
        }
    }
    out
}

/// The items of `items` for which `keep` holds, in their order.
pub fn filtered(items: &[usize], keep: &dyn Fn(usize) -> bool) -> Vec<usize> {
    let mut out = Vec::new();
    for &i in items {
        if keep(i) {
            out.push(i);
        }
    }
    out
}

/// The positions `0..keys.len()` by key, equal keys by position. Not generic: the one sort in here is
/// the one every caller shares.
fn order(keys: &[u64]) -> Vec<usize> {
    let mut positions: Vec<usize> = (0..keys.len()).collect();
    // (key, position) is a total order, so the unstable sort (smaller than the stable one) is stable here.
    positions.sort_unstable_by_key(|&i| (keys[i], i));
    positions
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_key_and_keeps_ties_in_order() {
        let items = vec![(3, 'a'), (1, 'b'), (3, 'c'), (0, 'd'), (1, 'e')];
        let sorted = sorted_by_key(items, |&(k, _)| k);
        assert_eq!(sorted, [(0, 'd'), (1, 'b'), (1, 'e'), (3, 'a'), (3, 'c')]);
        assert!(sorted_by_key(Vec::<u8>::new(), |&b| u64::from(b)).is_empty());
    }
}
