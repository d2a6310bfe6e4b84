//! `quality_probe`: questions with known answers about what a plan summarizes, made without an LLM,
//! so a host can ask its own model, with the compacted history, what the summary should have kept
//! (the seeds' QA retention test; `npm run eval` measures ctxfold the same way).
//!
//! Each question is a cloze: the line a salient fact (the audit's) was written in, the answer blanked,
//! and who wrote it. A fact is asked only when its answer occurs nowhere outside the summarized
//! messages: otherwise the question would test the kept tail, not the summary.

use crate::compaction::audit::{facts_of, Fact, Kind};
use crate::compaction::types::PlanRef;
use crate::error::Result;
use crate::reading::format::{self, Conversation};
use crate::reading::input::Input;
use crate::reading::message::Role;
use crate::text::{contains_word, floor_boundary};

/// What stands for the answer in a question.
pub const BLANK: &str = "____";
/// The context of a question, at most (bytes, on a character boundary), around the fact.
const CONTEXT_BYTES: usize = 240;
/// A message longer than this is a pasted document: no summary is expected to keep its details.
const MAX_SOURCE_BYTES: usize = 12_000;

#[derive(Debug, Clone, PartialEq)]
pub struct ProbeQuestion {
    pub kind: &'static str,
    /// The message the fact was written in.
    pub message: usize,
    pub question: String,
    /// What a right answer contains.
    pub answer: String,
}

crate::json_object!(ProbeQuestion {
    kind => "kind",
    message => "message",
    question => "question",
    answer => "answer",
});

#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    pub questions: Vec<ProbeQuestion>,
}

crate::json_object!(Probe {
    questions => "questions",
});

/// Up to `max` questions about the messages `plan` summarizes: kinds taken in turn (the audit's order:
/// constraints, errors, numbers, URLs, identifiers, paths), one question per message first, in
/// conversation order.
pub fn quality_probe(input: &Input, plan: &PlanRef, max: usize) -> Result<Probe> {
    plan.check(input.items)?;
    let conv = format::read(input, Some(plan.format))?;
    let summarized = plan.summarized();
    let mut kept = String::new();
    for i in 0..conv.len() {
        if summarized.binary_search(&i).is_err() {
            for text in texts_of(&conv, i) {
                kept.push_str(text);
                kept.push('\n');
            }
        }
    }
    let mut candidates: Vec<ProbeQuestion> = Vec::new();
    for fact in facts_of(&conv, &summarized) {
        if let Some(q) = question_for(&conv, &fact, &kept) {
            if !candidates.iter().any(|c| c.answer == q.answer) {
                candidates.push(q);
            }
        }
    }
    // Marked rather than collected and sorted: candidates are in message order, and so is the result.
    let mut chosen = vec![false; candidates.len()];
    let mut count = 0;
    // One per message first, then two: a listing's facts come only when nothing else is left.
    for per_message in 1..=2 {
        let mut progress = true;
        while count < max && progress {
            progress = false;
            for kind in KINDS {
                let from_message = |m: usize, chosen: &[bool]| {
                    candidates.iter().zip(chosen).filter(|(c, &taken)| taken && c.message == m).count()
                };
                let next = (0..candidates.len()).find(|&k| {
                    let c = &candidates[k];
                    !chosen[k] && c.kind == kind.name() && from_message(c.message, &chosen) < per_message
                });
                if let (Some(k), true) = (next, count < max) {
                    chosen[k] = true;
                    count += 1;
                    progress = true;
                }
            }
        }
    }
    let mut questions = Vec::with_capacity(count);
    for (c, taken) in candidates.into_iter().zip(chosen) {
        if taken {
            questions.push(c);
        }
    }
    Ok(Probe { questions })
}

const KINDS: [Kind; 6] = [Kind::Constraint, Kind::Error, Kind::Number, Kind::Url, Kind::Identifier, Kind::Path];

/// Every text of message `i`: its own, its tool results', its calls' arguments.
fn texts_of<'c>(conv: &'c Conversation, i: usize) -> Vec<&'c str> {
    let m = &conv.messages[i];
    let mut out = vec![m.text.as_ref()];
    for r in &m.tool_results {
        out.push(r.text.as_ref());
    }
    for c in &m.tool_calls {
        out.push(c.arguments.as_ref());
    }
    out
}

fn question_for(conv: &Conversation, fact: &Fact, kept: &str) -> Option<ProbeQuestion> {
    let answer = answer_of(fact, kept)?;
    if contains_word(kept, &answer) {
        return None;
    }
    let m = &conv.messages[fact.message];
    let texts = texts_of(conv, fact.message);
    let source =
        texts.iter().find(|t| t.contains(fact.text.as_str())).or_else(|| texts.iter().find(|t| t.contains(&answer)))?;
    if source.len() > MAX_SOURCE_BYTES {
        return None;
    }
    let needle = if source.contains(fact.text.as_str()) { fact.text.as_str() } else { answer.as_str() };
    let context = line_around(source, needle).replace(&answer, BLANK);
    if !context.contains(BLANK) {
        return None;
    }
    let who = match m.role {
        _ if !m.tool_results.is_empty() => "a tool's output",
        _ if m.text.as_ref() != *source => "the assistant, calling a tool,",
        Role::User => "the user",
        Role::Assistant => "the assistant",
        _ => "a system message",
    };
    let what = match fact.kind {
        Kind::Constraint => "word",
        Kind::Error => "error type",
        Kind::Number => "number",
        Kind::Url => "URL",
        Kind::Identifier => "identifier",
        Kind::Path => "file path",
    };
    Some(ProbeQuestion {
        kind: fact.kind.name(),
        message: fact.message,
        question: format!("In the conversation, {who} wrote: \"{context}\" What is the missing {what} ({BLANK})?"),
        answer,
    })
}

/// The answer a fact is asked for, or None when it would be guessable or is not a short, exact thing:
/// a number's digits (its unit stays in the question), an error's exception name, a constraint's
/// longest word that nothing kept says.
fn answer_of(fact: &Fact, kept: &str) -> Option<String> {
    let t = fact.text.as_str();
    match fact.kind {
        Kind::Number => {
            let start = t.find(|c: char| c.is_ascii_digit())?;
            let len =
                t[start..].find(|c: char| !(c.is_ascii_digit() || c == ',' || c == '.')).unwrap_or(t.len() - start);
            let core = t[start..start + len].trim_end_matches(['.', ',']);
            (core.bytes().filter(u8::is_ascii_digit).count() >= 2).then(|| core.to_string())
        }
        Kind::Error => t
            .split(|c: char| !c.is_ascii_alphanumeric())
            .find(|w| {
                w.starts_with(|c: char| c.is_ascii_uppercase()) && (w.ends_with("Error") || w.ends_with("Exception"))
            })
            .map(str::to_string),
        Kind::Constraint => {
            // The first of the longest (a loop: no sort code in the wasm for one maximum).
            let mut longest: Option<&str> = None;
            for w in t.split(|c: char| !c.is_ascii_alphabetic()) {
                let specific = w.len() >= 6 && !COMMON.contains(&w.to_ascii_lowercase().as_str());
                if specific && longest.is_none_or(|l| w.len() > l.len()) && !contains_word(kept, w) {
                    longest = Some(w);
                }
            }
            longest.map(str::to_string)
        }
        Kind::Identifier if t.len() > 40 || t.chars().skip(1).all(|c| c.is_ascii_lowercase()) => None,
        _ if t.chars().count() < 3 => None,
        _ => Some(t.to_string()),
    }
}

/// Words of six letters or more that say nothing specific in a constraint.
const COMMON: [&str; 16] = [
    "always",
    "before",
    "cannot",
    "during",
    "ensure",
    "except",
    "should",
    "though",
    "through",
    "without",
    "please",
    "remember",
    "because",
    "another",
    "something",
    "anything",
];

/// The line of `text` holding `needle`, at most `CONTEXT_BYTES` around it, on one line.
fn line_around(text: &str, needle: &str) -> String {
    let at = text.find(needle).unwrap_or(0);
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let (mut from, mut to) = (start, end);
    if to - from > CONTEXT_BYTES {
        let half = CONTEXT_BYTES.saturating_sub(needle.len()) / 2;
        from = floor_boundary(text, at.saturating_sub(half).max(start));
        to = floor_boundary(text, (at + needle.len() + half).min(end));
    }
    crate::text::one_line(&text[from..to], CONTEXT_BYTES + needle.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::plan::plan_compaction;
    use crate::options::Options;
    use serde_json::{json, Value};

    fn chat() -> Vec<Value> {
        crate::fixtures::support_chat(&[
            ("user", "My booking code is QX7-2291. I must never fly through Chicago."),
            ("assistant", "Noted. The file is saved at /srv/trips/ana.json.\nThe budget is 2,400 dollars."),
        ])
    }

    fn probe(msgs: &[Value], max: usize) -> Probe {
        let o = Options::from_json(&json!({ "contextWindow": 1500 })).unwrap();
        let plan = plan_compaction(&Input::items(msgs), &o).unwrap().to_ref().unwrap();
        quality_probe(&Input::items(msgs), &plan, max).unwrap()
    }

    #[test]
    fn questions_blank_the_facts_of_the_summarized_messages() {
        let p = probe(&chat(), 10);
        let answers: Vec<&str> = p.questions.iter().map(|q| q.answer.as_str()).collect();
        for expected in ["QX7-2291", "2,400", "/srv/trips/ana.json", "Chicago"] {
            assert!(answers.contains(&expected), "{expected} in {answers:?}");
        }
        for q in &p.questions {
            assert!(q.question.contains(BLANK) && !q.question.contains(&q.answer), "{q:?}");
        }
        let booking = p.questions.iter().find(|q| q.answer == "QX7-2291").unwrap();
        assert_eq!(booking.message, 1);
        assert!(
            booking.question.starts_with("In the conversation, the user wrote: \"My booking code is ____."),
            "{}",
            booking.question
        );
        assert!(p.questions.windows(2).all(|w| w[0].message <= w[1].message));
    }

    #[test]
    fn a_fact_the_kept_messages_repeat_is_not_asked_and_the_count_is_bounded() {
        let mut msgs = chat();
        msgs.push(json!({ "role": "user", "content": "Is QX7-2291 still valid?" }));
        let p = probe(&msgs, 10);
        assert!(p.questions.iter().all(|q| q.answer != "QX7-2291"), "{:?}", p.questions);
        assert_eq!(probe(&chat(), 2).questions.len(), 2);
    }
}
