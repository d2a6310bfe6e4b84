//! The offline summarizer: a deterministic digest of a range, written without an LLM. It is what a
//! host uses when no model is available, and the fallback when the summary call fails: the user's
//! requests, the files and commands touched, the errors seen, and where the work stood.

use crate::facts::{command_line, error_lines, paths};
use crate::format::Conversation;
use crate::message::Role;
use crate::template::SNAPSHOT_TAG;
use crate::text::{cut_middle, one_line, opens_summary, split_summary};
use std::fmt::Write;

const MAX_REQUESTS: usize = 8;
const MAX_FILES: usize = 40;
const MAX_COMMANDS: usize = 15;
const MAX_ERRORS: usize = 10;

/// A digest of the messages at `indices`, at most about `max_chars` bytes long; as a
/// `<state_snapshot>` element when `snapshot` (the plan's template asked for one).
pub fn digest(conv: &Conversation, indices: &[usize], max_chars: usize, snapshot: bool) -> String {
    let msgs = || indices.iter().filter_map(|&i| conv.messages.get(i).map(|m| (i, m)));
    let mut requests = Vec::new();
    let mut earlier = Vec::new();
    let mut files = Vec::new();
    let mut commands = Vec::new();
    let mut errors: Vec<String> = Vec::new();
    let mut last_words = None;
    for (i, m) in msgs() {
        let mut text: &str = &m.text;
        if m.is_summary && !opens_summary(text) {
            continue; // the question or acknowledgement a summary shape adds
        }
        let split;
        if m.is_summary {
            split = split_summary(&m.text);
            earlier.push(split.0);
            text = &split.1;
        }
        match m.role {
            Role::User if !text.is_empty() => {
                requests.push(format!("- #{i}: {}", one_line(text, 400)));
                paths(text, &mut files);
            }
            Role::Assistant => {
                paths(text, &mut files);
                for call in &m.tool_calls {
                    paths(&call.arguments, &mut files);
                    commands.push(format!("- #{i} {}", command_line(call)));
                }
                if !text.trim().is_empty() {
                    last_words = Some((i, one_line(text, 600)));
                }
            }
            _ => {}
        }
        for (k, result) in m.tool_results.iter().enumerate() {
            let name = conv.links.tool_name(i, k).unwrap_or("tool");
            let mut lines: Vec<String> = error_lines(&result.text).collect();
            if result.is_error && lines.is_empty() {
                lines.push(one_line(&result.text, 200));
            }
            for line in lines {
                if !errors.iter().any(|e| e.ends_with(&line)) {
                    errors.push(format!("- #{i} {name}: {line}"));
                }
            }
        }
    }

    let (first, last) = (indices.first().copied().unwrap_or(0), indices.last().copied().unwrap_or(0));
    let header = format!("(Offline digest of messages #{first}–#{last}, written by ctxfold without an LLM.)");
    let earlier: Vec<String> = match earlier.is_empty() {
        true => Vec::new(),
        false => vec![cut_middle(&earlier.join("\n\n"), max_chars / 3).into_owned()],
    };
    let requests = keep_ends(requests, MAX_REQUESTS);
    let files: Vec<String> = files.iter().take(MAX_FILES).map(|f| format!("- {f}")).collect();
    let commands = keep_ends(commands, MAX_COMMANDS);
    let errors = keep_ends(errors, MAX_ERRORS);
    let mut state = Vec::new();
    if let Some((i, words)) = last_words {
        state.push(format!("- The assistant last said (#{i}): {words}"));
    }
    if let Some((i, call)) = msgs().filter_map(|(i, m)| m.tool_calls.last().map(|c| (i, c))).last() {
        state.push(format!("- The last tool call (#{i}) was {}", command_line(call)));
    }
    if snapshot {
        let knowledge: Vec<String> = earlier.into_iter().chain(errors).collect();
        let mut body = String::new();
        for (tag, lines) in [("overall_goal", &requests), ("key_knowledge", &knowledge), ("file_system_state", &files), ("recent_actions", &commands), ("current_plan", &state)] {
            if !lines.is_empty() {
                let _ = writeln!(body, "<{tag}>\n{}\n</{tag}>", lines.join("\n"));
            }
        }
        // The element's own tags always stay whole: apply_summary looks for them.
        let body = cut_middle(body.trim_end(), max_chars.saturating_sub(header.len() + 40));
        return format!("<{SNAPSHOT_TAG}>\n{header}\n{body}\n</{SNAPSHOT_TAG}>");
    }
    let mut out = format!("{header}\n");
    section(&mut out, "Earlier summary", &earlier);
    section(&mut out, "User requests and constraints", &requests);
    section(&mut out, "Files and code", &files);
    section(&mut out, "Commands and results", &commands);
    section(&mut out, "Errors and how they were handled", &errors);
    section(&mut out, "Current state and next steps", &state);
    cut_middle(out.trim_end(), max_chars).into_owned()
}

fn section(out: &mut String, title: &str, lines: &[String]) {
    if !lines.is_empty() {
        let _ = writeln!(out, "\n## {title}\n{}", lines.join("\n"));
    }
}

/// The first two and the last `max - 2` lines, with a note of how many were left out between.
fn keep_ends(mut lines: Vec<String>, max: usize) -> Vec<String> {
    if lines.len() <= max {
        return lines;
    }
    let tail = lines.split_off(lines.len() - (max - 2));
    let skipped = lines.len() - 2;
    lines.truncate(2);
    lines.push(format!("- (… {skipped} more …)"));
    lines.extend(tail);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format;
    use serde_json::json;

    #[test]
    fn digest_keeps_requests_files_commands_errors_and_state() {
        let msgs = json!([
            { "role": "user", "content": "Fix the crash in src/io/registry.py; never touch setup.py" },
            { "role": "assistant", "content": "Let me reproduce it.", "tool_calls": [
                { "id": "c1", "type": "function", "function": { "name": "bash", "arguments": "{\"command\":\"python repro.py\"}" } }] },
            { "role": "tool", "tool_call_id": "c1", "content": "Traceback (most recent call last):\nIndexError: tuple index out of range" },
            { "role": "assistant", "content": "The args tuple is empty; I will guard it." }
        ]);
        let conv = format::read_items(msgs.as_array().unwrap(), None).unwrap();
        let d = digest(&conv, &[0, 1, 2, 3], 4000, false);
        for needle in ["never touch setup.py", "src/io/registry.py", "bash: python repro.py",
                       "IndexError: tuple index out of range", "I will guard it"] {
            assert!(d.contains(needle), "missing {needle:?} in\n{d}");
        }
        assert_eq!(d, digest(&conv, &[0, 1, 2, 3], 4000, false), "deterministic");
        let x = digest(&conv, &[0, 1, 2, 3], 4000, true);
        assert!(x.starts_with("<state_snapshot>") && x.ends_with("</state_snapshot>"), "{x}");
        assert!(x.contains("<overall_goal>\n- #0: Fix the crash") && x.contains("IndexError"), "{x}");
    }
}
