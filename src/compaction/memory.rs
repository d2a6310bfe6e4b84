//! A conversation's last compaction, remembered for the next request. A host that keeps no state of its
//! own (a proxy in front of a provider) is sent the whole history, uncompacted, on every request: past
//! its limit, each request would be summarized anew, a call to the model every turn. Remembered, the
//! next request that starts with the same messages gets the compacted history in their place, the
//! messages that came since after it, and compacts again only when that outgrows the limit (folding
//! the earlier summary into the new one).
//!
//! What is stored is a string the host keeps under the conversation's key: the number of messages that
//! were compacted, their fingerprint, and the compacted history's items. The key is the fingerprint of
//! the conversation's opening (through its first user message), so conversations that open alike share
//! a key; the fingerprint of all the compacted messages decides whether a stored history is this
//! conversation's, and a request whose earlier messages changed (an edited or removed message) is
//! compacted as if nothing was stored.

use crate::compaction::fingerprint::of_messages;
use crate::json::{parse_with_spans, ItemSpans};
use serde_json::Value;

/// Marks a stored state as ours, and its layout's version.
const VERSION: u64 = 1;

/// What a request's history is remembered by: the key its state is stored under (the fingerprint of its
/// items through the first user message, or of the first item when none is a user's), and the number and
/// fingerprint of its items, which a state made from it records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recall {
    pub key: String,
    pub count: usize,
    pub fingerprint: String,
}

/// How `items` are remembered; None for an empty history.
pub fn recall(items: &[Value]) -> Option<Recall> {
    if items.is_empty() {
        return None;
    }
    let opening = items.iter().position(|m| m.get("role").and_then(Value::as_str) == Some("user")).unwrap_or(0);
    Some(Recall {
        key: format!("ctxfold:{}", hex(of_messages(items, opening + 1))),
        count: items.len(),
        fingerprint: hex(of_messages(items, items.len())),
    })
}

fn hex(n: u64) -> String {
    format!("{n:016x}")
}

/// The state to store after compacting `count` items of fingerprint `fingerprint` (a `Recall`'s) into the
/// items whose JSON texts are `compacted`.
pub fn state<'t>(count: usize, fingerprint: &str, compacted: impl IntoIterator<Item = &'t str>) -> String {
    let mut out = format!("{{\"ctxfold\":{VERSION},\"count\":{count},\"fingerprint\":\"{fingerprint}\",\"messages\":[");
    for (k, item) in compacted.into_iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push_str(item);
    }
    out.push_str("]}");
    out
}

/// A stored state that applies to a request: how many of its items it stands for, and the stored text with
/// where each compacted item is in it.
pub struct Resumed {
    pub count: usize,
    pub text: String,
    pub spans: ItemSpans,
}

/// `stored` read, when it is a state of ours made from the first of `items`; None otherwise (another
/// conversation under the same key, an earlier message changed, or not a state at all).
pub fn resume(items: &[Value], stored: String) -> Option<Resumed> {
    let (value, spans) = parse_with_spans(&stored).ok()?;
    let field = |name: &str| value.get(name);
    if field("ctxfold").and_then(Value::as_u64) != Some(VERSION) {
        return None;
    }
    let count = usize::try_from(field("count")?.as_u64()?).ok()?;
    let fingerprint = field("fingerprint")?.as_str()?;
    if count == 0 || count > items.len() || fingerprint != hex(of_messages(items, count)) {
        return None;
    }
    field("messages")?.as_array()?;
    let spans = spans.items(Some("messages"))?;
    Some(Resumed { count, text: stored, spans })
}

/// `text` (JSON whose item list is at `list`, each item at `given`) with its first `count` items replaced
/// by `compacted`'s (each at its span in `compacted_text`): every other byte as it was.
pub fn spliced_text(
    text: &str,
    given: &ItemSpans,
    count: usize,
    compacted_text: &str,
    compacted: &ItemSpans,
) -> String {
    let (start, end) = match (given.items.first(), given.items.get(count), given.items.get(count - 1)) {
        (Some(first), Some(next), _) => (first.start, next.start),
        (Some(first), None, Some(last)) => (first.start, last.end),
        _ => return text.to_string(),
    };
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..start]);
    for (k, span) in compacted.items.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push_str(&compacted_text[span.clone()]);
    }
    // Before the next item, the separator that the replaced items' last one had.
    if count < given.items.len() && !compacted.items.is_empty() {
        out.push(',');
    }
    out.push_str(&text[end..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_with_spans;
    use serde_json::json;

    fn items(v: &Value) -> &[Value] {
        v.as_array().unwrap()
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
        let given = json!([
            { "role": "user", "content": "one" },
            { "role": "assistant", "content": "two" },
            { "role": "user", "content": "three" }
        ]);
        let Recall { count, fingerprint, .. } = recall(items(&given)).unwrap();
        let stored = state(
            count,
            &fingerprint,
            [r#"{"role":"user","content":"summary"}"#, r#"{"role":"user","content":"three"}"#],
        );
        // The same messages and more: resumed, standing for the three.
        let later = json!([
            { "role": "user", "content": "one" },
            { "role": "assistant", "content": "two" },
            { "role": "user", "content": "three" },
            { "role": "assistant", "content": "four" }
        ]);
        let resumed = resume(items(&later), stored.clone()).expect("resumed");
        assert_eq!(resumed.count, 3);
        let texts: Vec<&str> = resumed.spans.items.iter().map(|r| &resumed.text[r.clone()]).collect();
        assert_eq!(texts, [r#"{"role":"user","content":"summary"}"#, r#"{"role":"user","content":"three"}"#]);
        // An earlier message changed, fewer messages, or not a state: not resumed.
        let edited = json!([
            { "role": "user", "content": "one!" },
            { "role": "assistant", "content": "two" },
            { "role": "user", "content": "three" }
        ]);
        assert!(resume(items(&edited), stored.clone()).is_none());
        assert!(resume(&items(&given)[..2], stored.clone()).is_none());
        assert!(resume(items(&given), "{\"count\":3}".to_string()).is_none());
        assert!(resume(items(&given), "not JSON".to_string()).is_none());
    }

    #[test]
    fn the_compacted_items_take_the_place_of_those_they_stand_for_and_nothing_else_moves() {
        let text = "{\"model\": \"m\", \"messages\": [ {\"role\":\"user\",\"content\":\"one\"} ,\n {\"role\":\"assistant\",\"content\":\"two\"}, {\"role\":\"user\",\"content\":\"new\"} ], \"stream\": true}";
        let (_, spans) = parse_with_spans(text).unwrap();
        let given = spans.items(Some("messages")).unwrap();
        let stored = "{\"messages\":[{\"role\":\"user\",\"content\":\"summary\"}]}";
        let (_, stored_spans) = parse_with_spans(stored).unwrap();
        let compacted = stored_spans.items(Some("messages")).unwrap();
        let out = spliced_text(text, &given, 2, stored, &compacted);
        assert_eq!(
            out,
            "{\"model\": \"m\", \"messages\": [ {\"role\":\"user\",\"content\":\"summary\"},{\"role\":\"user\",\"content\":\"new\"} ], \"stream\": true}"
        );
        // A message list given alone, as the root array.
        let list = "[{\"role\":\"user\",\"content\":\"one\"},\n {\"role\":\"user\",\"content\":\"new\"}]";
        let (_, spans) = parse_with_spans(list).unwrap();
        let out = spliced_text(list, &spans.items(None).unwrap(), 1, stored, &compacted);
        assert_eq!(out, "[{\"role\":\"user\",\"content\":\"summary\"},{\"role\":\"user\",\"content\":\"new\"}]");
        // All of them replaced: the list's end as it was.
        let out = spliced_text(text, &given, 3, stored, &compacted);
        assert_eq!(
            out,
            "{\"model\": \"m\", \"messages\": [ {\"role\":\"user\",\"content\":\"summary\"} ], \"stream\": true}"
        );
    }
}
