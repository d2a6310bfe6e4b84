//! A conversation's last compaction, remembered for the next request. A host that keeps no state of its
//! own (a proxy in front of a provider) is sent the whole history, uncompacted, on every request: past
//! its limit, each request would be summarized anew, a call to the model every turn. Remembered, the
//! next request that starts with the same messages gets the compacted history in their place, the
//! messages that came since after it, and compacts again only when that outgrows the limit (folding
//! the earlier summary into the new one).
//!
//! What is stored is a string the host keeps under the conversation's key: the number of messages that
//! were compacted, their fingerprint, and the compacted history's items, each either its JSON (what
//! compaction wrote or edited) or the index of the request's message it kept as it was. The key is the
//! fingerprint of the conversation's opening (through its first user message), so conversations that open
//! alike share a key; the fingerprint of all the compacted messages decides whether a stored history is
//! this conversation's, and a request whose earlier messages changed (an edited or removed message) is
//! compacted as if nothing was stored. Both fingerprints leave out `cache_control` marks, which clients
//! move from message to message; a kept message is taken from the request as it is now, with its marks.

use crate::compaction::fingerprint::{of_content, Hasher};
use crate::json::{parse_with_spans, ItemSpans};
use crate::text::json_text;
use serde_json::Value;

/// Marks a stored state as ours, and its layout's version.
const VERSION: u64 = 1;

/// What a request's history is remembered by: the key its state is stored under, and the fingerprint of
/// each item's content, from which a state made from it records theirs (and by which the compacted
/// history's kept items are found among them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recall {
    pub key: String,
    pub contents: Vec<u64>,
}

/// How `items` are remembered; None for an empty history. The key is the fingerprint of the items through
/// the first user message (the first item when none is a user's).
pub fn recall(items: &[Value]) -> Option<Recall> {
    if items.is_empty() {
        return None;
    }
    let contents: Vec<u64> = items.iter().map(of_content).collect();
    let opening = items.iter().position(|m| m.get("role").and_then(Value::as_str) == Some("user")).unwrap_or(0);
    Some(Recall { key: format!("ctxfold:{}", hex(combined(&contents[..=opening]))), contents })
}

fn combined(contents: &[u64]) -> u64 {
    let mut h = Hasher::default();
    contents.iter().for_each(|&c| h.number(c));
    h.number(contents.len() as u64);
    h.finish()
}

fn hex(n: u64) -> String {
    format!("{n:016x}")
}

/// The state to store after compacting a history whose items' contents are `contents` (its `Recall`'s)
/// into `compacted`: an item whose content is that of one of the history's messages, in order, is stored as
/// that message's index, any other as its JSON text (from `text`, the compacted history's, where each item
/// is at its span, when it was given as text; else written).
pub fn state(contents: &[u64], compacted: &[Value], text: Option<(&str, &ItemSpans)>) -> String {
    let mut next = 0; // kept messages keep their order
    let mut out = format!(
        "{{\"ctxfold\":{VERSION},\"count\":{},\"fingerprint\":\"{}\",\"messages\":[",
        contents.len(),
        hex(combined(contents))
    );
    for (k, value) in compacted.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        // Looked for from the last one found on: a kept message is near it, and what compaction wrote (a
        // summary, a pruned output) is looked for to the end, once each.
        let content = of_content(value);
        match contents.iter().skip(next).position(|&c| c == content).map(|at| next + at) {
            Some(i) => {
                out.push_str(&i.to_string());
                next = i + 1;
            }
            None => match text.and_then(|(text, spans)| text.get(spans.items.get(k)?.clone())) {
                Some(written) => out.push_str(written),
                None => out.push_str(&json_text(value)),
            },
        }
    }
    out.push_str("]}");
    out
}

/// A stored state that applies to a request: how many of its items it stands for, and the stored text with
/// where each compacted item is in it, or which of the request's items it is.
pub struct Resumed {
    pub count: usize,
    pub text: String,
    pub spans: ItemSpans,
    pub kept: Vec<Option<usize>>,
}

/// `stored` read, when it is a state of ours made from the first of the items whose contents are
/// `contents` (their `Recall`'s); None otherwise (another conversation under the same key, an earlier
/// message changed, or not a state at all).
pub fn resume(contents: &[u64], stored: String) -> Option<Resumed> {
    let (value, spans) = parse_with_spans(&stored).ok()?;
    let field = |name: &str| value.get(name);
    if field("ctxfold").and_then(Value::as_u64) != Some(VERSION) {
        return None;
    }
    let count = usize::try_from(field("count")?.as_u64()?).ok()?;
    let fingerprint = field("fingerprint")?.as_str()?;
    if count == 0 || count > contents.len() || fingerprint != hex(combined(&contents[..count])) {
        return None;
    }
    let kept = field("messages")?
        .as_array()?
        .iter()
        .map(|m| match m.as_u64() {
            Some(i) => usize::try_from(i).ok().filter(|&i| i < count).map(Some),
            None => Some(None),
        })
        .collect::<Option<Vec<_>>>()?;
    let spans = spans.items(Some("messages"))?;
    Some(Resumed { count, text: stored, spans, kept })
}

/// `text` (JSON whose items are at `given`) with its first `resumed.count` items replaced by the compacted
/// ones: every other byte as it was, and a kept item as it is in `text`. None when `text` has fewer items
/// than the state stands for (text changed since it was remembered).
pub fn spliced_text(text: &str, given: &ItemSpans, resumed: &Resumed) -> Option<String> {
    let count = resumed.count;
    let start = given.items.first()?.start;
    let end = match given.items.get(count) {
        Some(next) => next.start,
        None => given.items.get(count.checked_sub(1)?)?.end,
    };
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..start]);
    for (k, (span, kept)) in resumed.spans.items.iter().zip(&resumed.kept).enumerate() {
        if k > 0 {
            out.push(',');
        }
        match kept {
            Some(i) => out.push_str(text.get(given.items.get(*i)?.clone())?),
            None => out.push_str(resumed.text.get(span.clone())?),
        }
    }
    // Before the next item, the separator that the replaced items' last one had.
    if count < given.items.len() && !resumed.kept.is_empty() {
        out.push(',');
    }
    out.push_str(&text[end..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_with_spans;
    use serde_json::json;

    fn items(v: &Value) -> &[Value] {
        v.as_array().unwrap()
    }

    /// What `resume` is given for a request: its items' contents, as remembered.
    fn contents(items: &[Value]) -> Vec<u64> {
        recall(items).map_or_else(Vec::new, |r| r.contents)
    }

    /// The stored state of `given` compacted into `compacted`.
    fn stored(given: &Value, compacted: &Value) -> String {
        state(&recall(items(given)).unwrap().contents, items(compacted), None)
    }

    /// Three turns, and the state of their compaction into a summary and the third turn, kept.
    fn three_turns_summarized() -> (Value, String) {
        let given = json!([
            { "role": "user", "content": "one" },
            { "role": "assistant", "content": "two" },
            { "role": "user", "content": "three" }
        ]);
        let compacted = json!([{ "role": "user", "content": "summary" }, { "role": "user", "content": "three" }]);
        let state = stored(&given, &compacted);
        (given, state)
    }

    #[test]
    fn a_conversation_opens_with_its_first_user_message() {
        let a = json!([{ "role": "system", "content": "Be brief." }, { "role": "user", "content": "Fix the bug." }]);
        let longer = json!([
            { "role": "system", "content": "Be brief." },
            { "role": "user", "content": "Fix the bug." },
            { "role": "assistant", "content": "Done." }
        ]);
        let other = json!([{ "role": "system", "content": "Be brief." }, { "role": "user", "content": "Hello." }]);
        let key = |v: &Value| recall(items(v)).map(|r| r.key);
        assert_eq!(key(&a), key(&longer));
        assert_ne!(key(&a), key(&other));
        assert_eq!(recall(&[]), None);
    }

    #[test]
    fn a_state_resumes_the_conversation_it_was_made_from_and_no_other() {
        let (given, stored) = three_turns_summarized();
        // What compaction wrote is stored as it is; a message it kept, as its index.
        assert!(stored.ends_with(r#""messages":[{"content":"summary","role":"user"},2]}"#), "{stored}");
        // The same messages and more: resumed, standing for the three.
        let later = json!([
            { "role": "user", "content": "one" },
            { "role": "assistant", "content": "two" },
            { "role": "user", "content": "three" },
            { "role": "assistant", "content": "four" }
        ]);
        let resumed = resume(&contents(items(&later)), stored.clone()).expect("resumed");
        assert_eq!((resumed.count, resumed.kept.as_slice()), (3, [None, Some(2)].as_slice()));
        // An earlier message changed, fewer messages, or not a state: not resumed.
        let edited = json!([
            { "role": "user", "content": "one!" },
            { "role": "assistant", "content": "two" },
            { "role": "user", "content": "three" }
        ]);
        assert!(resume(&contents(items(&edited)), stored.clone()).is_none());
        assert!(resume(&contents(&items(&given)[..2]), stored.clone()).is_none());
        assert!(resume(&contents(items(&given)), "{\"count\":3}".to_string()).is_none());
        assert!(resume(&contents(items(&given)), "not JSON".to_string()).is_none());
        assert!(
            resume(&contents(items(&given)), stored.replace(",2]}", ",7]}")).is_none(),
            "a kept index past the messages"
        );
    }

    #[test]
    fn cache_marks_moved_since_do_not_matter_and_a_kept_message_comes_as_it_is_now() {
        let mark = json!({ "type": "ephemeral" });
        let text = |t: &str, marked: bool| {
            let mut block = json!({ "type": "text", "text": t });
            if marked {
                block["cache_control"] = mark.clone();
            }
            json!({ "role": "user", "content": [block] })
        };
        let answer = |t: &str| json!({ "role": "assistant", "content": t });
        let given = json!([text("one", false), answer("two"), text("three", true)]);
        let compacted = json!([text("summary", false), text("three", true)]);
        let stored = stored(&given, &compacted);
        let later =
            json!([text("one", false), answer("two"), text("three", false), answer("four"), text("five", true)]);
        let resumed = resume(&contents(items(&later)), stored).expect("resumed, the mark moved");
        assert_eq!(resumed.kept, [None, Some(2)]);
        let body = serde_json::to_string(&json!({ "messages": later })).unwrap();
        let (_, spans) = parse_with_spans(&body).unwrap();
        let spliced: Value =
            serde_json::from_str(&spliced_text(&body, &spans.items(Some("messages")).unwrap(), &resumed).unwrap())
                .unwrap();
        // The kept message without the mark it no longer has; the newest with its own.
        assert_eq!(
            spliced["messages"],
            json!([text("summary", false), text("three", false), answer("four"), text("five", true)])
        );
    }

    #[test]
    fn the_compacted_items_take_the_place_of_those_they_stand_for_and_nothing_else_moves() {
        let given = json!([{ "role": "user", "content": "one" }, { "role": "assistant", "content": "two" }]);
        let compacted = json!([{ "role": "user", "content": "summary" }]);
        let state = stored(&given, &compacted);
        let text = "{\"model\": \"m\", \"messages\": [ {\"role\":\"user\",\"content\":\"one\"} ,\n {\"role\":\"assistant\",\"content\":\"two\"}, {\"role\":\"user\",\"content\":\"new\"} ], \"stream\": true}";
        let (value, spans) = parse_with_spans(text).unwrap();
        let resumed = resume(&contents(items(&value["messages"])), state.clone()).unwrap();
        let out = spliced_text(text, &spans.items(Some("messages")).unwrap(), &resumed).unwrap();
        assert_eq!(
            out,
            "{\"model\": \"m\", \"messages\": [ {\"content\":\"summary\",\"role\":\"user\"},{\"role\":\"user\",\"content\":\"new\"} ], \"stream\": true}"
        );
        // A message list given alone, as the root array; all of its items replaced: the list's end as it was.
        let list = "[{\"role\":\"user\",\"content\":\"one\"},\n {\"role\":\"assistant\",\"content\":\"two\"} ]";
        let (value, spans) = parse_with_spans(list).unwrap();
        let resumed = resume(&contents(items(&value)), state).unwrap();
        let out = spliced_text(list, &spans.items(None).unwrap(), &resumed).unwrap();
        assert_eq!(out, "[{\"content\":\"summary\",\"role\":\"user\"} ]");
    }

    #[test]
    fn a_store_that_gives_back_a_damaged_state_never_breaks_the_request() {
        // A store is the host's (a KV namespace, a cache): what it gives back may be cut short, or another
        // byte may be in place of one. Each such state is passed over or, where it still reads as a state of
        // this conversation, spliced into JSON that reads.
        let (_, state) = three_turns_summarized();
        let text =
            "{\"messages\":[{\"role\":\"user\",\"content\":\"one\"},{\"role\":\"assistant\",\"content\":\"two\"},\
                    {\"role\":\"user\",\"content\":\"three\"},{\"role\":\"assistant\",\"content\":\"four\"}]}";
        let (value, spans) = parse_with_spans(text).unwrap();
        let (contents, spans) = (contents(items(&value["messages"])), spans.items(Some("messages")).unwrap());
        let mut damaged: Vec<String> = (0..state.len()).map(|n| state[..n].to_string()).collect();
        for at in 0..state.len() {
            for byte in [b'0', b'9', b'"', b',', b']', b'}', b' ', b'x'] {
                let mut bytes = state.clone().into_bytes();
                bytes[at] = byte;
                damaged.extend(String::from_utf8(bytes).ok());
            }
        }
        let mut resumed = 0;
        for state in damaged {
            if let Some(r) = resume(&contents, state.clone()) {
                resumed += 1;
                let out = spliced_text(text, &spans, &r).expect("spliced");
                assert!(parse_with_spans(&out).is_ok(), "{state} gave {out}");
            }
        }
        assert!(resumed > 0, "a byte changed inside the summary's text still resumes");
    }
}
