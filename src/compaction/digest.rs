//! The offline summarizer: a deterministic digest of a range, written without an LLM. It is what a
//! host uses when no model is available, and the fallback when the summary call fails: the user's
//! requests (unless quoted after it), the files and commands touched, the errors seen, and where the work
//! stood.

use crate::compaction::audit::{self, Fact, Kind};
use crate::compaction::facts::{command_line, error_lines, paths};
use crate::compaction::template::SNAPSHOT_TAG;
use crate::compaction::types::Keep;
use crate::reading::format::Conversation;
use crate::reading::message::Role;
use crate::text::{cut_middle, one_line, opens_summary, split_summary};
use std::fmt::Write;

const MAX_REQUESTS: usize = 8;
const MAX_FILES: usize = 40;
const MAX_COMMANDS: usize = 15;
const MAX_ERRORS: usize = 10;

/// A digest of the messages at `indices`, whose salient facts are `facts` (`audit::facts_of`), at most
/// about `max_chars` bytes long; as a `<state_snapshot>` element when `snapshot` (the plan's template asked
/// for one). What `apply_summary` appends after it (`keep`), the user's messages quoted and the facts it lost,
/// it leaves out: said twice, they would take the room they are given there. Without them the no-model eval's
/// digest histories hold more answers (298 of 327 against 287; 281 against 274 beside their words) in fewer
/// tokens (scripts/eval/README.md).
pub fn digest(
    conv: &Conversation,
    indices: &[usize],
    facts: &[Fact],
    max_chars: usize,
    snapshot: bool,
    keep: Keep,
) -> String {
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
                if !keep.user_text {
                    requests.push(format!("- #{i}: {}", one_line(text, 400)));
                }
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
            let mut lines = error_lines(&result.text);
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
    let mut state = Vec::new();
    if let Some((i, words)) = last_words {
        state.push(format!("- The assistant last said (#{i}): {words}"));
    }
    if let Some((i, call)) = msgs().filter_map(|(i, m)| m.tool_calls.last().map(|c| (i, c))).next_back() {
        state.push(format!("- The last tool call (#{i}) was {}", command_line(call)));
    }
    let mut file_lines = Vec::with_capacity(files.len());
    for f in &files {
        file_lines.push(format!("- {f}"));
    }
    let mut sections = Sections {
        header,
        earlier,
        requests: keep_ends(requests, MAX_REQUESTS),
        files: file_lines[..MAX_FILES.min(file_lines.len())].to_vec(),
        mentions: Vec::new(),
        commands: keep_ends(commands.clone(), MAX_COMMANDS),
        errors: keep_ends(errors, MAX_ERRORS),
        state,
    };
    // The facts the audit looks for that the draft lost (constraint sentences past the first lines of a
    // request, numbers and names from the middle of the range) are added as long as they fit whole, here or
    // after the digest (`keep.facts`). Up to a quarter of the room is made for them by listing fewer commands
    // and files: a command can be run again, a version or a constraint the user stated cannot be found
    // anywhere else.
    let full = sections.render(usize::MAX, snapshot);
    let wanted: usize = audit::lost_in(facts, &full).iter().map(|f| f.text.len() + 8).sum();
    let reserve = wanted.min(max_chars / 4);
    for (max_commands, max_files) in [(10, 25), (6, 15), (4, 10)] {
        if sections.render(usize::MAX, snapshot).len() + reserve <= max_chars {
            break;
        }
        sections.commands = keep_ends(commands.clone(), max_commands);
        sections.files = file_lines[..max_files.min(file_lines.len())].to_vec();
    }
    let draft = sections.render(max_chars, snapshot);
    if keep.facts {
        return draft;
    }
    let lost = audit::lost_in(facts, &draft);
    let mut room = max_chars.saturating_sub(draft.len() + 80);
    if lost.is_empty() || room == 0 {
        return draft;
    }
    let mut names: Vec<(usize, Vec<&str>)> = Vec::new();
    for fact in lost {
        let line = match fact.kind {
            Kind::Constraint | Kind::Error => format!("- #{}: {}", fact.message, fact.text),
            _ => match names.iter_mut().find(|(i, _)| *i == fact.message) {
                Some((_, list)) => {
                    if fact.text.len() + 2 <= room {
                        room -= fact.text.len() + 2;
                        list.push(&fact.text);
                    }
                    continue;
                }
                None => format!("- #{}: {}", fact.message, fact.text),
            },
        };
        if line.len() + 1 > room {
            continue;
        }
        room -= line.len() + 1;
        match fact.kind {
            Kind::Constraint => sections.requests.push(line),
            Kind::Error => sections.errors.push(line),
            // In message order, without sort code in the wasm.
            _ => names.insert(names.partition_point(|(i, _)| *i < fact.message), (fact.message, vec![&fact.text])),
        }
    }
    for (i, list) in names {
        sections.mentions.push(format!("- #{i}: {}", list.join(", ")));
    }
    sections.render(max_chars, snapshot)
}

struct Sections {
    header: String,
    earlier: Vec<String>,
    requests: Vec<String>,
    files: Vec<String>,
    /// Names and numbers the other sections do not state.
    mentions: Vec<String>,
    commands: Vec<String>,
    errors: Vec<String>,
    state: Vec<String>,
}

impl Sections {
    fn render(&self, max_chars: usize, snapshot: bool) -> String {
        let header = &self.header;
        if snapshot {
            let mut knowledge = self.earlier.clone();
            knowledge.extend_from_slice(&self.mentions);
            knowledge.extend_from_slice(&self.errors);
            let mut body = String::new();
            for (tag, lines) in [
                ("overall_goal", &self.requests),
                ("key_knowledge", &knowledge),
                ("file_system_state", &self.files),
                ("recent_actions", &self.commands),
                ("current_plan", &self.state),
            ] {
                if !lines.is_empty() {
                    let _ = writeln!(body, "<{tag}>\n{}\n</{tag}>", lines.join("\n"));
                }
            }
            // The element's own tags always stay whole: apply_summary looks for them.
            let body = cut_middle(body.trim_end(), max_chars.saturating_sub(header.len() + 40));
            return format!("<{SNAPSHOT_TAG}>\n{header}\n{body}\n</{SNAPSHOT_TAG}>");
        }
        let mut out = format!("{header}\n");
        section(&mut out, "Earlier summary", &self.earlier);
        section(&mut out, "User requests and constraints", &self.requests);
        section(&mut out, "Files and code", &self.files);
        section(&mut out, "Names and numbers mentioned", &self.mentions);
        section(&mut out, "Commands and results", &self.commands);
        section(&mut out, "Errors and how they were handled", &self.errors);
        section(&mut out, "Current state and next steps", &self.state);
        cut_middle(out.trim_end(), max_chars).into_owned()
    }
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
        let conv = crate::fixtures::read(&msgs);
        let d = digest(&conv, &[0, 1, 2, 3], &audit::facts_of(&conv, &[0, 1, 2, 3]), 4000, false, Keep::default());
        for needle in [
            "never touch setup.py",
            "src/io/registry.py",
            "bash: python repro.py",
            "IndexError: tuple index out of range",
            "I will guard it",
        ] {
            assert!(d.contains(needle), "missing {needle:?} in\n{d}");
        }
        assert_eq!(
            d,
            digest(&conv, &[0, 1, 2, 3], &audit::facts_of(&conv, &[0, 1, 2, 3]), 4000, false, Keep::default()),
            "deterministic"
        );
        let x = digest(&conv, &[0, 1, 2, 3], &audit::facts_of(&conv, &[0, 1, 2, 3]), 4000, true, Keep::default());
        assert!(x.starts_with("<state_snapshot>") && x.ends_with("</state_snapshot>"), "{x}");
        assert!(x.contains("<overall_goal>\n- #0: Fix the crash") && x.contains("IndexError"), "{x}");
    }

    #[test]
    fn what_apply_summary_restores_is_left_to_it() {
        let request =
            format!("Fix the crash in src/io/registry.py. {} Never touch setup.py.", "Some context. ".repeat(40));
        let msgs = json!([
            { "role": "user", "content": request },
            { "role": "assistant", "content": "Let me reproduce it with version 3.11.4.", "tool_calls": [
                { "id": "c1", "type": "function", "function": { "name": "bash", "arguments": "{\"command\":\"python repro.py\"}" } }] },
            { "role": "tool", "tool_call_id": "c1", "content": "Traceback (most recent call last):\nIndexError: tuple index out of range" },
            { "role": "assistant", "content": "The args tuple is empty; I will guard it." }
        ]);
        let conv = crate::fixtures::read(&msgs);
        let facts = audit::facts_of(&conv, &[0, 1, 2, 3]);
        let listed = digest(&conv, &[0, 1, 2, 3], &facts, 4000, false, Keep::default());
        assert!(
            listed.contains("## User requests and constraints") && listed.contains("Never touch setup.py"),
            "{listed}"
        );
        let left = digest(&conv, &[0, 1, 2, 3], &facts, 4000, false, Keep { user_text: true, facts: true });
        assert!(!left.contains("User requests") && !left.contains("Never touch"), "{left}");
        // What only the digest records stays: the files, commands, errors and where the work stood.
        for needle in
            ["src/io/registry.py", "bash: python repro.py", "IndexError: tuple index out of range", "I will guard it"]
        {
            assert!(left.contains(needle), "missing {needle:?} in\n{left}");
        }
        // The user's messages listed, the facts left: a constraint of the request is not added to the list again.
        let quoted = digest(&conv, &[0, 1, 2, 3], &facts, 4000, false, Keep { user_text: false, facts: true });
        assert!(quoted.contains("- #0: Fix the crash") && !quoted.contains("- #0: Never touch setup.py"), "{quoted}");
    }

    #[test]
    fn a_constraint_deep_in_a_long_request_is_kept() {
        let request = format!(
            "{} Never change the public API of parse_config. Use Python 3.11.4 only.",
            "Background text. ".repeat(60)
        );
        let msgs = json!([
            { "role": "user", "content": request },
            { "role": "assistant", "content": "Reading." },
            { "role": "user", "content": "Go on." },
            { "role": "assistant", "content": "Done." }
        ]);
        let conv = crate::fixtures::read(&msgs);
        let d = digest(&conv, &[0, 1, 2, 3], &audit::facts_of(&conv, &[0, 1, 2, 3]), 3000, false, Keep::default());
        assert!(d.contains("- #0: Never change the public API of parse_config."), "{d}");
        assert!(d.contains("Use Python 3.11.4 only."), "{d}");
        assert!(d.len() <= 3000);
        // Without room, the digest stays within its size (cut_middle's marker aside).
        let small = digest(&conv, &[0, 1, 2, 3], &audit::facts_of(&conv, &[0, 1, 2, 3]), 500, false, Keep::default());
        assert!(small.len() <= 500 + "\n[… 9999 characters cut …]\n".len(), "{}", small.len());
    }
}
