//! `validate`: every problem a provider would reject, each with its path: tool results that answer
//! no call (or a call twice), calls whose results are missing, results not where the format needs
//! them, and broken role alternation where the format requires it.

use crate::error::Result;
use crate::json::{ToJson, Writer};
use crate::options::Options;
use crate::reading::format::{self, Conversation, ResultPlacement};
use crate::reading::input::Input;
use crate::reading::message::Role;
use crate::text::quoted;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Stable kind: `orphan_result`, `duplicate_result`, `duplicate_call_id`, `missing_result`,
    /// `misplaced_result`, `alternation`.
    pub kind: &'static str,
    /// Index of the message the problem is at.
    pub index: usize,
    pub path: String,
    pub message: String,
}

impl ToJson for Problem {
    fn to_json(&self, w: &mut Writer) {
        w.begin_object();
        w.field("kind", &self.kind);
        w.field("index", &self.index);
        w.field("path", &self.path);
        w.field("message", &self.message);
        w.end_object();
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Validation {
    pub valid: bool,
    pub format: &'static str,
    pub problems: Vec<Problem>,
}

impl ToJson for Validation {
    fn to_json(&self, w: &mut Writer) {
        w.begin_object();
        w.field("valid", &self.valid);
        w.field("format", &self.format);
        w.field("problems", &self.problems);
        w.end_object();
    }
}

pub fn validate(input: &Input, options: &Options) -> Result<Validation> {
    let conv = format::read_unchecked(input, options.format)?;
    let problems = problems(&conv);
    Ok(Validation { valid: problems.is_empty(), format: conv.format.name(), problems })
}

pub fn problems(conv: &Conversation) -> Vec<Problem> {
    let mut out = Vec::with_capacity(conv.link_problems.len());
    for p in &conv.link_problems {
        out.push(Problem { kind: p.kind, index: p.index, path: p.path.clone(), message: p.message.clone() });
    }
    placement(conv, &mut out);
    if conv.format.alternates() {
        alternation(conv, &mut out);
    }
    crate::order::sorted_by_key(out, |p| p.index as u64)
}

/// For each message with calls: are its results where the format wants them, and is any missing
/// although the conversation went on?
fn placement(conv: &Conversation, out: &mut Vec<Problem>) {
    let n = conv.len();
    let placement = conv.format.placement();
    for (i, m) in conv.messages.iter().enumerate() {
        if m.tool_calls.is_empty() {
            continue;
        }
        // Where results may be: the run of tool messages after it, the next turn, or anywhere after.
        let allowed_end = match placement {
            ResultPlacement::FollowingMessages => {
                (i + 1..n).find(|&j| conv.messages[j].role != Role::Tool).unwrap_or(n)
            }
            ResultPlacement::NextTurn => (i + 2).min(n),
            ResultPlacement::AnywhereAfter => n,
        };
        let mut answered = vec![false; m.tool_calls.len()];
        for j in i + 1..n {
            for (k, caller) in conv.links.callers[j].iter().enumerate() {
                let Some((c, _)) = caller else { continue };
                if *c != i {
                    continue;
                }
                let result = &conv.messages[j].tool_results[k];
                if let Some(slot) = m.tool_calls.iter().position(|call| call.id == result.id) {
                    answered[slot] = true;
                }
                let wrong_turn = placement == ResultPlacement::NextTurn && conv.messages[j].role != Role::User;
                if j >= allowed_end || wrong_turn {
                    out.push(Problem {
                        kind: "misplaced_result",
                        index: j,
                        path: result.path.clone(),
                        message: format!(
                            "the result of tool call {} must be {}",
                            quoted(&result.id),
                            where_results_go(placement, i)
                        ),
                    });
                }
            }
        }
        // Unanswered calls are pending while nothing but their own results follows them.
        let went_on = match placement {
            ResultPlacement::FollowingMessages => allowed_end < n,
            ResultPlacement::NextTurn => i + 1 < n,
            ResultPlacement::AnywhereAfter => conv.messages[i + 1..]
                .iter()
                .any(|x| x.role == Role::User || (x.role == Role::Assistant && !x.text.is_empty())),
        };
        if went_on {
            for (call, done) in m.tool_calls.iter().zip(&answered) {
                if !done {
                    out.push(Problem {
                        kind: "missing_result",
                        index: i,
                        path: call.path.clone(),
                        message: format!(
                            "tool call {} ({}) has no result, but the conversation goes on",
                            quoted(&call.id),
                            call.name
                        ),
                    });
                }
            }
        }
    }
}

fn where_results_go(placement: ResultPlacement, i: usize) -> String {
    match placement {
        ResultPlacement::FollowingMessages => format!("in the tool messages right after message {i}"),
        ResultPlacement::NextTurn => format!("in the user turn right after message {i}"),
        ResultPlacement::AnywhereAfter => format!("after message {i}"),
    }
}

/// User and assistant turns alternate, starting with a user turn.
fn alternation(conv: &Conversation, out: &mut Vec<Problem>) {
    let turn = |r: Role| if r == Role::Assistant { Role::Assistant } else { Role::User };
    for (i, m) in conv.messages.iter().enumerate() {
        let problem = match i {
            0 if turn(m.role) != Role::User => Some("the first turn must be a user turn".to_string()),
            0 => None,
            _ if turn(conv.messages[i - 1].role) == turn(m.role) => {
                Some(format!("two {} turns in a row", turn(m.role).label()))
            }
            _ => None,
        };
        if let Some(message) = problem {
            out.push(Problem { kind: "alternation", index: i, path: format!("{}[{i}].role", conv.root), message });
        }
    }
}
