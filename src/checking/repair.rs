//! `repair`: the minimal fix for what `validate` finds that can be fixed without guessing: a result
//! that answers no call (or a call a second time) is dropped, and a call whose result is missing gets
//! a clearly marked stand-in result. Misplaced results and broken alternation are reported, not moved.

use crate::checking::validate::{problems, Problem};
use crate::edit::{materialize, FieldEdit, Key, Op, Slot};
use crate::error::Result;
use crate::options::Options;
use crate::reading::format::{self, Conversation, ResultPlacement};
use crate::reading::input::Input;
use crate::reading::message::Role;
use serde_json::Value;

/// The text of a stand-in result.
pub const MISSING_RESULT: &str = "[ctxfold: the result of this tool call is missing from the history]";

#[derive(Debug, Clone, PartialEq)]
pub struct Repair {
    pub slots: Vec<Slot>,
    pub report: RepairReport,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RepairReport {
    pub format: &'static str,
    /// What was done, in message order.
    pub repairs: Vec<Repaired>,
    /// What is still wrong after the repairs (misplaced results, alternation).
    pub remaining: Vec<Problem>,
}

crate::json_object!(RepairReport {
    format => "format",
    repairs => "repairs",
    remaining => "remaining",
});

#[derive(Debug, Clone, PartialEq)]
pub struct Repaired {
    /// `dropped_result` or `inserted_missing_result`.
    pub action: &'static str,
    /// The problem's path in the input.
    pub path: String,
    pub message: String,
}

crate::json_object!(Repaired {
    action => "action",
    path => "path",
    message => "message",
});

pub fn repair(input: &Input, options: &Options) -> Result<Repair> {
    let conv = format::read_unchecked(input, options.format)?;
    let items = input.items;
    let found = problems(&conv);
    let mut repairs = Vec::new();
    // Lists per message index rather than maps keyed by it: the wasm has no other map with these key
    // and value types, and a BTreeMap's insert, look-up and drop for them cost about 3 KB.
    let n = conv.len();
    let mut dropped: Vec<Vec<usize>> = Vec::new(); // message → result parts to drop
    dropped.resize_with(n, Vec::new);
    let mut appended: Vec<Vec<Value>> = Vec::new(); // message → parts to add
    appended.resize_with(n, Vec::new);
    let mut inserted: Vec<Vec<Value>> = Vec::new(); // after message → new messages
    inserted.resize_with(n, Vec::new);

    for p in &found {
        match p.kind {
            "orphan_result" | "duplicate_result" => {
                let m = &conv.messages[p.index];
                if let Some(k) = m.tool_results.iter().position(|r| r.path == p.path) {
                    dropped[p.index].push(k);
                    repairs.push(Repaired {
                        action: "dropped_result",
                        path: p.path.clone(),
                        message: p.message.clone(),
                    });
                }
            }
            "missing_result" => {
                let i = p.index;
                let Some(call) = conv.messages[i].tool_calls.iter().find(|c| c.path == p.path) else { continue };
                let next_user = conv.messages.get(i + 1).filter(|m| m.role == Role::User);
                let part = conv.format.missing_result_part(&call.id, call.name, MISSING_RESULT);
                match (conv.format.placement(), part, next_user) {
                    (ResultPlacement::NextTurn, Some(part), Some(_)) => appended[i + 1].push(part.1),
                    _ => {
                        let after = last_result_of(&conv, i);
                        let message =
                            conv.format.missing_result_message(&items[i], &call.id, call.name, MISSING_RESULT);
                        inserted[after].push(message);
                    }
                }
                repairs.push(Repaired {
                    action: "inserted_missing_result",
                    path: p.path.clone(),
                    message: p.message.clone(),
                });
            }
            _ => {}
        }
    }

    let mut slots = Vec::with_capacity(items.len());
    for (i, m) in conv.messages.iter().enumerate() {
        let (drops, adds) = (dropped[i].as_slice(), appended[i].as_slice());
        let only_results = m.text.is_empty() && m.tool_calls.is_empty() && m.hidden.is_empty();
        if !drops.is_empty() && drops.len() == m.tool_results.len() && only_results && adds.is_empty() {
            // Nothing would be left of the message.
        } else if drops.is_empty() && adds.is_empty() {
            slots.push(Slot::Keep(i));
        } else {
            slots.push(Slot::Patch { index: i, edits: part_edits(&conv, i, drops, adds) });
        }
        for new in &inserted[i] {
            slots.push(Slot::New(new.clone()));
        }
    }
    let output = materialize(&slots, items);
    let remaining = format::read_unchecked(&input.with_items(&output), Some(conv.format)).map(|c| problems(&c))?;
    Ok(Repair { slots, report: RepairReport { format: conv.format.name(), repairs, remaining } })
}

/// The last message holding a result of message `i`'s calls (or `i` itself): where stand-ins go.
fn last_result_of(conv: &Conversation, i: usize) -> usize {
    conv.links.last_result[i]
        .unwrap_or(i)
        .max((i + 1..conv.len()).take_while(|&j| conv.messages[j].role == Role::Tool).last().unwrap_or(i))
}

/// Removes result parts `drops` and adds `adds` after the message's existing results.
fn part_edits(conv: &Conversation, i: usize, drops: &[usize], adds: &[Value]) -> Vec<FieldEdit> {
    let m = &conv.messages[i];
    let field = if conv.format == format::Format::Gemini { "parts" } else { "content" };
    let mut parts = Vec::with_capacity(drops.len());
    for &k in drops {
        parts.extend(m.tool_results.get(k).and_then(|r| r.part));
    }
    // Removed from the end so earlier indices stay right. Sorted up then reversed, rather than sorted with
    // a reversed comparison, so the wasm shares the one sort of src/order.rs.
    let mut parts = crate::order::sorted(parts);
    parts.reverse();
    let mut edits = Vec::with_capacity(parts.len() + adds.len());
    for &p in &parts {
        edits.push(FieldEdit { path: vec![Key::field(field), Key::Index(p)], op: Op::Remove });
    }
    let kept_results =
        m.tool_results.iter().enumerate().filter(|(k, r)| !drops.contains(k) && r.part.is_some()).count();
    for (n, part) in adds.iter().enumerate() {
        edits.push(FieldEdit {
            path: vec![Key::field(field), Key::Index(kept_results + n)],
            op: Op::Insert(part.clone()),
        });
    }
    edits
}
