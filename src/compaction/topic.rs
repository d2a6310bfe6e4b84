//! A topic switch, the third trigger beside the budget and a manual request: the newest user message
//! shares almost none of its words with the conversation before it, so the earlier part can be
//! summarized now, before the old task fills the window (`topicSwitch`, off by default).
//!
//! Words are compared as sets: words of spaced scripts, four letters or more (ASCII lowercased, common
//! ones left out), and pairs of adjacent CJK characters (Chinese and Japanese have no spaces).

use crate::reading::format::Conversation;
use crate::reading::message::Role;
use crate::text::is_cjk;

/// At most this share of the new message's words may occur before it for the topic to count as new.
const MAX_SHARED: f64 = 0.1;
/// A message with fewer words than this says too little to judge ("thanks", "go on").
const MIN_WORDS: usize = 4;
/// The messages before the newest request that it is compared with.
const RECENT: usize = 12;

/// The newest real user message, when it starts a new topic: its words barely occur in the `RECENT`
/// messages before it, and there are some.
pub fn switched(conv: &Conversation) -> Option<usize> {
    let at = conv.newest_request()?;
    let new = words(&conv.messages[at].text);
    if new.len() < MIN_WORDS {
        return None;
    }
    let mut before = Vec::new();
    for m in conv.messages[..at].iter().rev().filter(|m| m.role != Role::System).take(RECENT) {
        before.extend(words(&m.text));
        for r in &m.tool_results {
            before.extend(words(&r.text));
        }
    }
    if before.len() < MIN_WORDS {
        return None;
    }
    let shared = new.iter().filter(|w| before.contains(w)).count();
    (shared as f64 / new.len() as f64 <= MAX_SHARED).then_some(at)
}

/// Words that say nothing about a topic.
const COMMON: [&str; 32] = [
    "about", "after", "also", "been", "could", "does", "from", "have", "here", "into", "just", "like", "make", "more",
    "please", "some", "that", "than", "them", "then", "there", "they", "this", "what", "when", "where", "which",
    "will", "with", "would", "your", "were",
];

/// The distinct content words of `text`, in order of first occurrence.
fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |w: String| {
        if !out.contains(&w) {
            out.push(w);
        }
    };
    let mut latin = String::new();
    let mut previous_cjk: Option<char> = None;
    for c in text.chars().chain(std::iter::once(' ')) {
        if is_cjk(c) {
            if let Some(p) = previous_cjk {
                push([p, c].iter().collect());
            }
            previous_cjk = Some(c);
        } else {
            previous_cjk = None;
        }
        if is_word_char(c) {
            latin.push(c.to_ascii_lowercase());
        } else if !latin.is_empty() {
            if latin.chars().count() >= 4 && !COMMON.contains(&latin.as_str()) {
                push(std::mem::take(&mut latin));
            }
            latin.clear();
        }
    }
    out
}

/// A letter or digit of a spaced script: ASCII ones, and any other character that is not CJK, a space
/// or punctuation (ASCII rules rather than Unicode's tables, which would weigh kilobytes in the wasm;
/// accented letters are kept as they are written).
fn is_word_char(c: char) -> bool {
    match c.is_ascii() {
        true => c.is_ascii_alphanumeric(),
        false => {
            !is_cjk(c)
                && !c.is_whitespace()
                && !matches!(c, '\u{2000}'..='\u{206f}' | '\u{3000}'..='\u{303f}' | '\u{ff00}'..='\u{ff20}')
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reading::format;
    use serde_json::{json, Value};

    fn chat(last: &str) -> Vec<Value> {
        let mut msgs = vec![json!({ "role": "system", "content": "You help with code." })];
        for i in 0..6 {
            msgs.push(json!({ "role": "user", "content": format!("The parser in src/parse.rs fails on nested brackets, case {i}.") }));
            msgs.push(json!({ "role": "assistant", "content": format!("The parser's bracket stack is reset too early; case {i} is fixed.") }));
        }
        msgs.push(json!({ "role": "user", "content": last }));
        msgs
    }

    fn switched_at(msgs: &[Value]) -> Option<usize> {
        switched(&format::read_items(msgs, None).unwrap())
    }

    #[test]
    fn a_request_about_something_else_is_a_switch() {
        let msgs = chat("Can you suggest a recipe for dinner tonight with salmon and spinach?");
        assert_eq!(switched_at(&msgs), Some(msgs.len() - 1));
        let chinese = chat("帮我规划一下周末去杭州旅游的行程安排");
        assert_eq!(switched_at(&chinese), Some(chinese.len() - 1));
    }

    #[test]
    fn with_topic_switch_the_plan_summarizes_the_old_topic() {
        use crate::compaction::plan::plan_compaction;
        use crate::options::Options;
        use crate::reading::input::Input;
        let mut msgs = chat("Can you suggest a recipe for dinner tonight with salmon and spinach?");
        let last = msgs.len() - 1;
        for m in &mut msgs[1..last] {
            let long = format!("{} {}", m["content"].as_str().unwrap(), "More detail on the parser. ".repeat(40));
            m["content"] = json!(long);
        }
        let on = Options::from_json(&json!({ "contextWindow": 1_000_000, "topicSwitch": true })).unwrap();
        let plan = plan_compaction(&Input::items(&msgs), &on).unwrap();
        assert_eq!((plan.needed, plan.reason), (true, "topic_switch"), "{}", plan.detail);
        assert_eq!(plan.summarize.len(), 1);
        assert_eq!(plan.summarize[0].end, msgs.len() - 1, "the new request is the kept tail");
        let off = Options::from_json(&json!({ "contextWindow": 1_000_000 })).unwrap();
        assert_eq!(plan_compaction(&Input::items(&msgs), &off).unwrap().reason, "under_limit");
    }

    #[test]
    fn a_follow_up_or_a_short_reply_is_not() {
        assert_eq!(switched_at(&chat("Does the parser also fail on nested brackets inside strings?")), None);
        assert_eq!(switched_at(&chat("thanks, go on")), None);
        assert_eq!(
            switched_at(&[json!({ "role": "user", "content": "Suggest a recipe for dinner with salmon." })]),
            None
        );
    }
}
