//! Pinned messages: the ones inside a summarized range that stay verbatim. System and developer
//! instructions always; the messages the host marks (`pin`); calls of `protectedTools` (with their
//! results); with `keepCritical`, critical ones. A pin
//! takes its whole tool exchange with it (a call never loses its result), and in formats whose turns
//! alternate, a pin that would put two turns of one role side by side is given up, with a warning.

use crate::compaction::constraints::states_constraint;
use crate::compaction::types::Range;
use crate::options::{Options, Shape, DEFAULT_CRITICAL_TOOLS};
use crate::reading::format::Conversation;
use crate::reading::message::{Message, Role};

/// The pinned messages of `range`, in order, and a warning for each pin that had to be given up.
/// Critical messages are kept newest first while they fit in `critical_budget` tokens: kept whole
/// without end, they would leave nothing to compact.
pub fn pinned(
    conv: &Conversation,
    tokens: &[u32],
    range: Range,
    options: &Options,
    critical_budget: u64,
) -> (Vec<usize>, Vec<String>) {
    let mut pin = vec![false; conv.len()];
    let results_of = results_by_caller(conv);
    let mut critical_tokens = 0u64;
    for seed in (range.start..range.end).rev() {
        let Some(critical) = pin_kind(conv, seed, options) else { continue };
        if pin[seed] {
            continue;
        }
        let group = exchange(conv, &results_of, seed, range);
        let cost: u64 = group.iter().filter(|&&i| !pin[i]).map(|&i| u64::from(tokens[i])).sum();
        if critical {
            if critical_tokens + cost > critical_budget {
                continue;
            }
            critical_tokens += cost;
        }
        for i in group {
            pin[i] = true;
        }
    }
    let pinned = crate::order::indices_where(range.start..range.end, &|i| pin[i]);
    if conv.format.alternates() {
        keep_alternation(conv, pinned, range.end, options.summary_shape)
    } else {
        (pinned, Vec::new())
    }
}

/// The message with everything that must stay with it: a call with all its results, a result with
/// its call, bound neighbours.
fn exchange(conv: &Conversation, results_of: &[Vec<usize>], seed: usize, range: Range) -> Vec<usize> {
    let mut group = Vec::new();
    let mut stack = vec![seed];
    while let Some(i) = stack.pop() {
        if i < range.start || i >= range.end || group.contains(&i) {
            continue;
        }
        group.push(i);
        let m = &conv.messages[i];
        stack.extend_from_slice(&results_of[i]);
        for (caller, _) in conv.links.callers[i].iter().flatten() {
            stack.push(*caller);
        }
        if m.binds_to_next {
            stack.push(i + 1);
        }
        if m.binds_to_previous && i > 0 {
            stack.push(i - 1);
        }
    }
    group
}

/// Whether message `i` is pinned: `Some(false)` for instructions and the host's pins (always kept),
/// `Some(true)` for critical messages (kept within a budget), `None` when it is not.
fn pin_kind(conv: &Conversation, i: usize, options: &Options) -> Option<bool> {
    let m = &conv.messages[i];
    if m.is_summary {
        return None;
    }
    let protected_call = m.tool_calls.iter().any(|c| options.is_protected_tool(c.name));
    if m.role == Role::System || options.pin.binary_search(&i).is_ok() || protected_call {
        return Some(false);
    }
    (options.keep_critical && is_critical(m, options)).then_some(true)
}

/// Critical: a call of a critical tool (what was written or run), a result that reports an error,
/// or a user message that states a constraint.
fn is_critical(m: &Message, options: &Options) -> bool {
    let critical_tool = |name: &str| match &options.critical_tools {
        Some(tools) => tools.iter().any(|t| t.eq_ignore_ascii_case(name)),
        None => DEFAULT_CRITICAL_TOOLS.iter().any(|t| t.eq_ignore_ascii_case(name)),
    };
    if m.tool_calls.iter().any(|c| critical_tool(c.name)) {
        return true;
    }
    if m.tool_results.iter().any(|r| r.is_error || crate::compaction::facts::has_error_line(&r.text)) {
        return true;
    }
    // The audit's rule, so the messages kept verbatim are the ones whose loss the audit would report.
    m.is_real_user() && states_constraint(&m.text)
}

/// For each message, the messages holding results of its calls.
fn results_by_caller(conv: &Conversation) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); conv.len()];
    for (j, callers) in conv.links.callers.iter().enumerate() {
        for (caller, _) in callers.iter().flatten() {
            if !out[*caller].contains(&j) {
                out[*caller].push(j);
            }
        }
    }
    out
}

/// Where turns alternate: the summary comes first (a user turn, or merged into a pinned user turn
/// right after it; a user turn and an assistant turn for the `exchange` and `acknowledged` shapes),
/// then the pinned runs, then the kept tail. A run whose first turn repeats the turn before it is
/// given up, and so are the last runs while they would repeat the tail's first turn.
fn keep_alternation(conv: &Conversation, pinned: Vec<usize>, tail: usize, shape: Shape) -> (Vec<usize>, Vec<String>) {
    let turn = |i: usize| if conv.messages[i].role == Role::Assistant { Role::Assistant } else { Role::User };
    let mut runs: Vec<Vec<usize>> = Vec::new();
    for i in pinned {
        match runs.last_mut() {
            Some(run) if run.last() == Some(&(i - 1)) => run.push(i),
            _ => runs.push(vec![i]),
        }
    }
    let summary_ends_assistant = matches!(shape, Shape::Exchange | Shape::Acknowledged);
    let mut kept: Vec<Vec<usize>> = Vec::new();
    let mut dropped: Vec<usize> = Vec::new();
    for run in runs {
        let last = match kept.last() {
            Some(r) => Some(turn(r[r.len() - 1])),
            None if summary_ends_assistant => Some(Role::Assistant),
            None => None, // a user summary before an assistant turn, or merged into a user turn
        };
        if last == Some(turn(run[0])) {
            dropped.extend(run);
        } else {
            kept.push(run);
        }
    }
    while let (Some(r), true) = (kept.last(), tail < conv.len()) {
        if turn(r[r.len() - 1]) != turn(tail) {
            break;
        }
        dropped.extend(kept.pop().unwrap_or_default());
    }
    let dropped = crate::order::sorted(dropped);
    let mut warnings = Vec::with_capacity(dropped.len());
    for i in &dropped {
        warnings.push(format!("message #{i} was to stay verbatim, but keeping it would put two turns of one role side by side: it is summarized instead"));
    }
    let mut pinned = Vec::new();
    for run in kept {
        pinned.extend_from_slice(&run);
    }
    (pinned, warnings)
}
