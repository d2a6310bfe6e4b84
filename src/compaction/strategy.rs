//! Where to cut and what to summarize: the boundaries a cut may use, the kept tail, and the three
//! strategies (`tail`, `regions`, `hierarchical`) that turn the part before the tail into summary
//! jobs. Pure decisions over token counts; `plan` turns them into a plan.

use crate::compaction::types::Range;
use crate::options::{Options, SplitAt};
use crate::order::{filtered, indices_where};
use crate::reading::format::Conversation;
use crate::reading::message::Role;

/// Below this, a summary (with its marker and headings) would not be much smaller than the text.
pub const MIN_RANGE_TOKENS: u64 = 300;

/// `safe[i]`: a cut just before message `i` separates no tool call from one of its results, no
/// message from one it must stay next to, and no two assistant messages in a row (one model
/// response, which Responses splits into a message item and call items).
pub fn safe_boundaries(conv: &Conversation) -> Vec<bool> {
    let n = conv.len();
    let mut open = vec![0i64; n + 2];
    for (caller, last) in conv.links.last_result.iter().enumerate() {
        if let Some(last) = *last {
            open[caller + 1] += 1;
            open[last + 1] -= 1;
        }
    }
    let mut depth = 0;
    let mut safe = Vec::with_capacity(n + 1);
    for (i, step) in open.iter().take(n + 1).enumerate() {
        depth += step;
        let (prev, next) = (i.checked_sub(1).and_then(|p| conv.messages.get(p)), conv.messages.get(i));
        let bound = prev.is_some_and(|p| p.binds_to_next)
            || next.is_some_and(|m| m.binds_to_previous)
            || (prev.is_some_and(|p| p.role == Role::Assistant) && next.is_some_and(|m| m.role == Role::Assistant));
        safe.push(depth == 0 && !bound);
    }
    safe
}

/// Where the kept tail starts. Candidates are safe boundaries after the head, inside the last
/// `keepRecentTurns` user turns (0: no limit), leaving at most `budget` tokens after them. The
/// earliest such boundary keeps the most; the earliest one before a real user message is preferred
/// when it keeps at least half as much. With `splitAt: "user"` only boundaries before a real user
/// message count, as long as one of them fits (or is at most twice over). When nothing fits, the latest boundary that keeps
/// something wins.
pub fn choose_cut(
    conv: &Conversation,
    tokens: &[u32],
    safe: &[bool],
    start: usize,
    options: &Options,
    budget: u64,
) -> Option<usize> {
    let n = conv.len();
    let mut tail = vec![0u64; n + 1];
    for i in (0..n).rev() {
        tail[i] = tail[i + 1] + u64::from(tokens[i]);
    }
    let users = indices_where(0..n, &|i| conv.messages[i].is_real_user());
    let turn_floor = match options.keep_recent_turns as usize {
        0 => 0,
        k if users.len() >= k => users[users.len() - k],
        _ => 0,
    };
    let fitting = indices_where(start + 1..n, &|i| {
        safe[i] && i >= turn_floor && conv.messages[i].role != Role::System && tail[i] <= budget
    });
    let before_user = filtered(&fitting, &|i| conv.messages[i].is_real_user());
    if options.split_at == SplitAt::User {
        // A user turn a little over the budget is better kept whole than split between exchanges.
        let near = (start + 1..n).rev().find(|&i| safe[i] && conv.messages[i].is_real_user() && tail[i] <= 2 * budget);
        if let Some(cut) = before_user.first().copied().or(near) {
            return Some(cut);
        }
    }
    let Some(&widest) = fitting.first() else {
        let last_user =
            (start + 1..n).rev().find(|&i| safe[i] && conv.messages[i].is_real_user() && tail[i] < tail[start]);
        return match options.split_at {
            SplitAt::User if last_user.is_some() => last_user,
            _ => (start + 1..n).rev().find(|&i| safe[i]),
        };
    };
    let user_cut = before_user.first().copied().filter(|&u| tail[u] * 2 >= tail[widest]);
    Some(user_cut.unwrap_or(widest))
}

/// `regions`: the runs of tool exchanges in `range` (user and assistant text, and earlier summaries,
/// are not compactable and end a run), each bounded by safe cuts and worth a summary; largest first.
pub fn regions(conv: &Conversation, tokens: &[u32], safe: &[bool], range: Range) -> Vec<Range> {
    let compactable = |i: usize| {
        let m = &conv.messages[i];
        !m.is_summary && m.role != Role::System && (!m.tool_calls.is_empty() || !m.tool_results.is_empty())
    };
    let mut out = Vec::new();
    let mut i = range.start;
    while i < range.end {
        if !(safe[i] && compactable(i)) {
            i += 1;
            continue;
        }
        // The run grows while messages are compactable; it ends at its last safe boundary.
        let (mut j, mut end) = (i, i);
        while j < range.end && compactable(j) {
            j += 1;
            if safe[j] {
                end = j;
            }
        }
        if end > i {
            out.push(Range { start: i, end });
        }
        i = j.max(i + 1);
    }
    let size = |r: &Range| (r.start..r.end).map(|k| u64::from(tokens[k])).sum::<u64>();
    out.retain(|r| size(r) >= MIN_RANGE_TOKENS);
    // Largest first; the earlier one first among equals (`out` is in start order and the sort is
    // stable): a total order, so plans stay deterministic.
    crate::order::sorted_by_key(out, |r| u64::MAX - size(r))
}

/// `hierarchical`: `range` in consecutive chunks of about `per_chunk` messages, each ending at a safe
/// boundary; a last chunk of fewer than half that joins the one before it.
pub fn chunks(safe: &[bool], range: Range, per_chunk: usize) -> Vec<Range> {
    let mut out: Vec<Range> = Vec::new();
    let mut start = range.start;
    while start < range.end {
        let want = (start + per_chunk).min(range.end);
        let end = (want..range.end).find(|&i| safe[i]).unwrap_or(range.end);
        out.push(Range { start, end });
        start = end;
    }
    if out.len() > 1 && out.last().is_some_and(|r| r.end - r.start < per_chunk / 2) {
        let last = out.pop().map_or(range.end, |r| r.end);
        if let Some(prev) = out.last_mut() {
            prev.end = last;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counting::estimate::per_message;
    use crate::counting::profiles::O200K;
    use crate::fixtures::agent_run;
    use crate::reading::format;

    #[test]
    fn chunks_end_at_safe_boundaries_and_cover_the_range() {
        let msgs = agent_run(40, 100);
        let conv = format::read_items(&msgs, None).unwrap();
        let safe = safe_boundaries(&conv);
        let range = Range { start: 1, end: msgs.len() - 2 };
        let parts = chunks(&safe, range, 7);
        assert_eq!(parts.first().unwrap().start, 1);
        assert_eq!(parts.last().unwrap().end, range.end);
        for pair in parts.windows(2) {
            assert_eq!(pair[0].end, pair[1].start);
            assert!(safe[pair[0].end]);
        }
        assert!(parts.iter().all(|r| r.end - r.start >= 3));
    }

    #[test]
    fn regions_are_tool_exchanges_largest_first() {
        let msgs = agent_run(40, 300);
        let conv = format::read_items(&msgs, None).unwrap();
        let tokens = per_message(&conv, &O200K);
        let safe = safe_boundaries(&conv);
        let found = regions(&conv, &tokens, &safe, Range { start: 1, end: msgs.len() });
        assert!(!found.is_empty());
        let size = |r: &Range| (r.start..r.end).map(|k| tokens[k]).sum::<u32>();
        for pair in found.windows(2) {
            assert!(size(&pair[0]) >= size(&pair[1]));
        }
        for r in &found {
            assert!(safe[r.start] && safe[r.end]);
            assert!((r.start..r.end).all(|k| !conv.messages[k].is_real_user()), "user text is not compactable");
        }
    }
}
