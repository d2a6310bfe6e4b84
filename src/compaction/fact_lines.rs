//! A fact as the reading model can use it. A number or an id alone answers nothing: a bare "M20IZO"
//! or "1879" is shown in the words around it ("**Reservation ID**: M20IZO", "学校成立于1879年"),
//! under the text it was written in: who wrote it and how that text begins ("assistant, in the
//! message that begins \"I have found your reservation details:\""). A small model then finds the
//! fact when asked, and tells it from the same kind of value written elsewhere (the first booking's
//! id from the second's). So is a path: a list of paths does not say which file was run, edited or
//! shown ("I'll also run `tests/template_tests/filter_tests/test_timesince.py`"). A URL, an error
//! line or a constraint says what it is by itself and is shown alone, leaving the room to facts that
//! need their words.

use crate::compaction::audit::{Fact, Kind};
use crate::find::find;
use crate::reading::format::Conversation;
use crate::reading::message::{Message, Role};
use crate::text::{ceil_boundary, floor_boundary, one_line};

/// Longest line shown (bytes): a longer one is cut to this window around the fact. Short, because
/// every byte of it is taken from the room other facts could have: what names a value ("Reservation
/// ID:", "Price: $137 + $167 =") sits right beside it.
const MAX_LINE_CHARS: usize = 40;

/// Bytes of words shown beside a value at the least: a path as long as a line's window would otherwise be
/// shown with none of them. Paths in their words, at least this many bytes of them, against paths alone:
/// on `npm run eval`'s default selection with the 1.5B model's summaries, the answers standing beside
/// their question's words 39 → 42 and the model's answers 30 → 33 (3 gained, none lost); without a model
/// (`--per-group 20`, one-sentence summaries) 282 → 285 of 327 beside their words.
const MIN_WORDS_CHARS: usize = 24;

/// Longest line shown for a value of a JSON record (bytes).
const MAX_RECORD_CHARS: usize = 80;

/// Longest quote of how a message begins, in a heading (bytes).
const MAX_OPENING_CHARS: usize = 48;

/// One line of a message that holds a fact, and where it is, so lines keep the messages' order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FactLine {
    /// The message, which of its texts (0: what it says; then its calls' arguments; then its
    /// tool results), and the byte offset of the shown part in that text.
    pub place: (usize, usize, usize),
    /// Where the shown part ends in that text (bytes).
    pub end: usize,
    /// The heading of the text the line was found in, shown once above its lines; none for a fact
    /// shown alone.
    pub source: Option<String>,
    /// The fact alone, or the part of its line around it.
    pub text: String,
}

impl FactLine {
    /// Whether this line already shows `fact` (another fact of the same line).
    pub fn shows(&self, fact: &Fact) -> bool {
        self.place.0 == fact.message && find(&self.text, &fact.text).is_some()
    }

    /// Where the line is listed: in the messages' order, and within one text, the lines under its
    /// heading before the facts shown alone, so that those lines stay together.
    pub fn order(&self) -> (usize, usize, bool, usize) {
        (self.place.0, self.place.1, self.source.is_none(), self.place.2)
    }

    /// Whether `other` is listed under the same heading.
    pub fn same_source(&self, other: &FactLine) -> bool {
        self.source.is_some() && self.place.0 == other.place.0 && self.place.1 == other.place.1
    }

    /// One line showing both this line's part of its text and `other`'s, when they are parts of one line
    /// of the same text that overlap or nearly touch: shorter than the two (facts of one sentence, each
    /// in its own window, would show most of the sentence twice); the one that shows the other whole; or,
    /// for two items of a list that follow each other, their lines in a row.
    pub fn merged(&self, other: &FactLine, conv: &Conversation) -> Option<FactLine> {
        // A fact not found as written has no part of a text to join.
        let shows_part = |l: &FactLine| l.same_source(l) && l.end > l.place.2;
        if !self.same_source(other) || !shows_part(self) || !shows_part(other) {
            return None;
        }
        // A list's item shown after the line before it holds that line, which may be listed for a fact of
        // its own: one line across two of the text.
        for (outer, inner) in [(self, other), (other, self)] {
            if outer.text.contains(&inner.text) {
                return Some(outer.clone());
            }
        }
        // Items of one list, each shown after the line before it, where the second's line before is the
        // first's own line: the lines in a row, that line once ("JFK to ORD, Flight Number: HAT079" between
        // its heading and "ORD to DTW, Flight Number: HAT020"; listed twice, the model took the first
        // leg's number for the second's).
        for (first, second) in [(self, other), (other, self)] {
            let shared = first.text.rsplit(LINES).next().unwrap_or_default();
            let overlaps = first.place.2 < second.place.2 && second.place.2 < first.end && first.end < second.end;
            if overlaps && second.text.strip_prefix(shared).is_some_and(|rest| rest.starts_with(LINES)) {
                let text = format!("{}{}", first.text, &second.text[shared.len()..]);
                return Some(FactLine { end: second.end, text, ..first.clone() });
            }
        }
        let (start, end) = (self.place.2.min(other.place.2), self.end.max(other.end));
        if self.place.2.max(other.place.2) > self.end.min(other.end) + NEAR {
            return None;
        }
        let text = texts(conv.messages.get(self.place.0)?).nth(self.place.1)?;
        (!text.get(start..end)?.contains('\n')).then(|| FactLine {
            place: (self.place.0, self.place.1, start),
            end,
            source: self.source.clone(),
            text: listed(text, start, end),
        })
    }
}

/// What joins lines of a text shown as one (an item after the line before it).
const LINES: &str = " / ";

/// Parts of one line this many bytes apart or closer are shown as one.
const NEAR: usize = 12;

/// The texts of a message, in the order a fact's place counts them: what it says, its calls' arguments,
/// its tool results.
fn texts<'m>(m: &'m Message) -> impl Iterator<Item = &'m str> {
    let calls = m.tool_calls.iter().map(|c| c.arguments.as_ref());
    std::iter::once(m.text.as_ref()).chain(calls).chain(m.tool_results.iter().map(|r| r.text.as_ref()))
}

/// Who wrote text `source` of message `i` (see `texts`): its writer, the call, or the tool whose output it is.
fn label(conv: &Conversation, i: usize, m: &Message, source: usize) -> String {
    let calls = m.tool_calls.len();
    match source {
        0 => match m.role {
            Role::User if !m.is_summary => "user",
            Role::User | Role::System => "earlier summary",
            Role::Assistant => "assistant",
            Role::Tool => "tool output",
        }
        .to_string(),
        k if k <= calls => format!("assistant called `{}`", m.tool_calls[k - 1].name),
        k => match conv.links.tool_name(i, k - 1 - calls) {
            Some(name) => format!("output of `{name}`"),
            None => "tool output".to_string(),
        },
    }
}

/// How `fact` is shown: alone when it speaks for itself, else the line of its message that holds it,
/// cut around it when long, under its source's heading (the fact alone under its writer when its text
/// is not found as written: one cut to the audit's length).
pub fn fact_line(conv: &Conversation, fact: &Fact) -> FactLine {
    let alone = !matches!(fact.kind, Kind::Number | Kind::Identifier | Kind::Path);
    let bare = |source| FactLine { place: (fact.message, 0, 0), end: 0, source, text: fact.text.clone() };
    let Some(m) = conv.messages.get(fact.message) else { return bare(None) };
    for (source, text) in texts(m).enumerate() {
        let Some(at) = find(text, &fact.text) else { continue };
        let end = at + fact.text.len();
        if alone {
            return FactLine { place: (fact.message, source, at), end, source: None, text: fact.text.clone() };
        }
        let (mut start, end, before) = shown_part(text, at, fact.text.len());
        let mut shown = listed(text, start, end);
        if let Some((before_start, before_end)) = before {
            shown = format!("{}{LINES}{shown}", listed(text, before_start, before_end));
            start = before_start;
        }
        // Which of its texts a message's own words are is told by how it begins; a call or an output is
        // told by its tool.
        let label = label(conv, fact.message, m, source);
        let source_heading = if source == 0 { heading(&label, text, start) } else { label };
        return FactLine { place: (fact.message, source, start), end, source: Some(source_heading), text: shown };
    }
    bare((!alone).then(|| label(conv, fact.message, m, 0)))
}

/// The heading of a message's `text` (written by `label`) for a line starting at byte `start` of it: the
/// label, and when the line is not the text's first, how the text begins.
fn heading(label: &str, text: &str, start: usize) -> String {
    let lead = text.len() - text.trim_start().len();
    let first_line_end = text[lead..].find('\n').map_or(text.len(), |n| lead + n);
    if start < first_line_end {
        return label.to_string();
    }
    let opening = one_line(&text[..first_line_end], MAX_OPENING_CHARS);
    format!("{label}, in the message that begins \"{opening}\"")
}

/// Bytes of the words right before a value that are its label ("Flight Number: ", "Economy Price: ").
const LABEL_CHARS: usize = 16;

/// What of `text` is shown for the value at bytes `at..at + len`: the part of its line (`line_around`), and
/// where the value is one of a list's like items, what tells it from the others. Its label then names
/// every item alike ("Flight Number: HAT085", "Flight Number: HAT023"): the rest of its line does
/// ("Flight 2: JFK to SFO on 2024-05-18"), so a long line is shown as a record's is, and a short line that
/// holds little but label and value is shown after the line before it (the item's other field: "Arrival:
/// 03:00+1 EST / Economy Price: $164"). Returns the shown part of the value's line, and of the line before
/// it where that is shown too.
fn shown_part(text: &str, at: usize, len: usize) -> (usize, usize, Option<(usize, usize)>) {
    let line = line_of(text, at);
    let (line_start, line_end) = line;
    // A value of a JSON record (`"flight_number": "HAT017"`) is told from another record's by the fields
    // after it (`"origin": "MCO", "destination": "BOS"`).
    let around = |window| {
        let (start, end) = line_around(text, line, at, len, window);
        (start, end, None)
    };
    if text[..at].ends_with("\": \"") || text[..at].ends_with("\":\"") {
        return around(Window::Record);
    }
    if !label_repeats(text, line, at) {
        return around(Window::Words);
    }
    if line_end - line_start > MAX_LINE_CHARS {
        return around(Window::Item);
    }
    let before = text[..line_start].trim_end();
    if before.is_empty() {
        return (line_start, line_end, None);
    }
    let (before_start, before_end) = line_of(text, before.len());
    // The line before by its start, where its label is, as wide as a record's value: it is what tells the
    // item from the others ("Flight Numbers: HAT069 (JFK to SEA) & HAT011 (SEA to SFO)"), and its indent
    // is not shown, so it takes none of the width.
    let before_line = &text[before_start..before_end];
    let indent = before_line.len() - before_line.trim_start().len();
    let end = ceil_boundary(text, (before_start + indent + MAX_RECORD_CHARS).min(before_end));
    (line_start, line_end, Some((before_start, end)))
}

/// How far before and after a value's line another item of its list is looked for (bytes): a list's items
/// stand together, and a search of the whole text for each value would read a long tool output once per fact.
const LIST_REACH: usize = 1024;

/// Whether the label of the value at byte `at` (the `LABEL_CHARS` before it on its `line`, with a letter) is
/// written on another line of `text` near it too.
fn label_repeats(text: &str, (line_start, line_end): (usize, usize), at: usize) -> bool {
    let label = &text[ceil_boundary(text, at.saturating_sub(LABEL_CHARS).max(line_start))..at];
    if !label.chars().any(char::is_alphabetic) {
        return false;
    }
    let (near_start, near_end) =
        (floor_boundary(text, line_start.saturating_sub(LIST_REACH)), ceil_boundary(text, line_end + LIST_REACH));
    let mut from = near_start;
    while let Some(k) = find(&text[from..near_end], label) {
        let found = from + k;
        if found < line_start || found >= line_end {
            return true;
        }
        from = found + label.len();
    }
    false
}

/// How much of a long line is shown around a value.
#[derive(Clone, Copy, PartialEq)]
enum Window {
    /// `MAX_LINE_CHARS`, two thirds of it before the value, where its label is.
    Words,
    /// `MAX_RECORD_CHARS`, two thirds before: an item of a list, told apart by the rest of its line.
    Item,
    /// `MAX_RECORD_CHARS`, a third before (the key): a JSON record's value, told apart by the fields after it.
    Record,
}

/// The part of `text`'s `line` around bytes `at..at + len` that is shown: the whole line when short, else
/// a window of the `kind` given.
fn line_around(
    text: &str,
    (line_start, line_end): (usize, usize),
    at: usize,
    len: usize,
    kind: Window,
) -> (usize, usize) {
    let width = if kind == Window::Words { MAX_LINE_CHARS } else { MAX_RECORD_CHARS }.max(len + MIN_WORDS_CHARS);
    if line_end - line_start <= width {
        return (line_start, line_end);
    }
    // Moved inside the line where the fact sits near one of its ends.
    let side = if kind == Window::Record { (width - len) / 3 } else { (width - len) * 2 / 3 };
    let start = at.saturating_sub(side).max(line_start).min(line_end - width);
    let mut start = floor_boundary(text, start);
    // Never inside the fact (a start moved back to a character's first byte moves the window with it).
    let mut end = ceil_boundary(text, start + width).max(at + len).min(line_end);
    // Whole words at the cuts, where a space is near enough.
    if start > line_start && !text[..start].ends_with(char::is_whitespace) {
        if let Some((i, space)) = text[start..at].char_indices().find(|(_, c)| c.is_whitespace()) {
            start += i + space.len_utf8();
        }
    }
    if end < line_end && !text[end..].starts_with(char::is_whitespace) {
        if let Some(space) = text[at + len..end].rfind(char::is_whitespace) {
            end = at + len + space;
        }
    }
    (start, end)
}

/// The bounds of the line of `text` holding byte `at`.
fn line_of(text: &str, at: usize) -> (usize, usize) {
    let start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    (start, text[at..].find('\n').map_or(text.len(), |n| at + n))
}

/// Bytes `start..end` of one line of `text` as listed under their heading: a line that was an item of a
/// list is not shown as a list in a list.
fn listed(text: &str, start: usize, end: usize) -> String {
    let shown = window(text, start, end);
    match shown.strip_prefix("- ").or_else(|| shown.strip_prefix("* ")) {
        Some(item) => item.to_string(),
        None => shown,
    }
}

/// Bytes `start..end` of one line of `text`, on one line, trimmed when they are the whole line, with an
/// ellipsis where the line was cut.
fn window(text: &str, start: usize, end: usize) -> String {
    let (line_start, line_end) = line_of(text, start);
    if (start, end) == (line_start, line_end) {
        return one_line(text[start..end].trim(), end - start);
    }
    let mut shown = String::new();
    if start > line_start {
        shown.push('…');
    }
    shown.push_str(&one_line(&text[start..end], (end - start) * 2));
    if end < line_end {
        shown.push('…');
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::audit::facts_of;
    use serde_json::json;

    #[test]
    fn a_value_is_shown_in_its_words_under_the_message_it_was_written_in() {
        let msgs = json!([
            { "role": "user", "content": "Find my booking, the code is QX7-2291." },
            { "role": "assistant", "content": "I have found your reservation details:\n- **Reservation ID**: M20IZO\n- Status: booked" },
            { "role": "assistant", "content": "Booked.\nIt is KX9-1182 now, and QX7-2291 is cancelled." }
        ]);
        let conv = crate::fixtures::read(&msgs);
        let facts = facts_of(&conv, &[0, 1, 2]);
        let line = |text: &str| line_of_fact(&conv, &facts, text);
        // On the message's first line: its writer is heading enough.
        let code = line("QX7-2291");
        assert_eq!(
            (code.source.as_deref(), code.text.as_str()),
            (Some("user"), "Find my booking, the code is QX7-2291.")
        );
        // Further down: how the message begins says which of the assistant's messages it was; the
        // line's list marker goes, since the line is listed under that heading.
        let id = line("M20IZO");
        let heading = "assistant, in the message that begins \"I have found your reservation details:\"";
        assert_eq!((id.source.as_deref(), id.text.as_str()), (Some(heading), "**Reservation ID**: M20IZO"));
        // Two facts of one message, under one heading.
        let later = line("KX9-1182");
        let heading = "assistant, in the message that begins \"Booked.\"";
        assert_eq!(
            (later.source.as_deref(), later.text.as_str()),
            (Some(heading), "It is KX9-1182 now, and QX7-2291 is…")
        );
        assert!(code.order() < id.order() && id.order() < later.order());
        // The record a tool returned, under the tool's name.
        let booked = json!([
            { "role": "assistant", "content": "", "tool_calls": [
                { "id": "c1", "type": "function", "function": { "name": "book_reservation", "arguments": "{}" } }] },
            { "role": "tool", "tool_call_id": "c1", "content": "{\n  \"reservation_id\": \"ZFA04Y\",\n  \"status\": \"ok\"\n}" }
        ]);
        let conv = crate::fixtures::read(&booked);
        let facts = facts_of(&conv, &[0, 1]);
        let record = line_of_fact(&conv, &facts, "ZFA04Y");
        assert_eq!(
            (record.source.as_deref(), record.text.as_str()),
            (Some("output of `book_reservation`"), "\"reservation_id\": \"ZFA04Y\",")
        );
        assert!(!code.same_source(&id) && !id.same_source(&later) && later.same_source(&later));
    }

    #[test]
    fn a_records_value_is_shown_with_the_fields_that_tell_it_from_another_records() {
        let flights = r#"[{"flight_number": "HAT017", "origin": "MCO", "destination": "BOS", "scheduled_departure_time_est": "10:00:00", "status": "available"}]"#;
        let at = flights.find("HAT017").unwrap();
        let shown = shown_around(flights, at, 6);
        assert_eq!(shown, r#"[{"flight_number": "HAT017", "origin": "MCO", "destination": "BOS",…"#);
        // A value in prose keeps the window of its words, most of it before (its label).
        let prose =
            "After a long search the agent found that the flight number HAT017 leaves from gate 12 in the morning.";
        let shown = shown_around(prose, prose.find("HAT017").unwrap(), 6);
        assert_eq!(shown, "…the flight number HAT017 leaves from…");
    }

    #[test]
    fn an_item_of_a_list_is_shown_with_what_tells_it_from_the_others() {
        let listing = "Your flights:\n1. **Flight 1**: IAH to JFK on 2024-05-18, Flight Number: HAT085\n2. **Flight 2**: JFK to SFO on 2024-05-18, Flight Number: HAT023\n\nThe options:\n- Arrival: 03:00+1 EST\n- Economy Price: $164\n- Arrival: 20:00 EST\n- Economy Price: $187\nThe agent found that the cheapest fare of the whole week is HAT999 on the first morning.";
        in_one_message(listing, |_, line| {
            // "Flight Number:" names both: the whole line, where the route tells them apart.
            assert_eq!(line("HAT023").text, "2. **Flight 2**: JFK to SFO on 2024-05-18, Flight Number: HAT023");
            // "Economy Price:" names both, and the line holds nothing else: the item's line before it too.
            let price = line("$164");
            assert_eq!(price.text, "Arrival: 03:00+1 EST / Economy Price: $164");
            assert_eq!(price.place.2, listing.find("- Arrival: 03:00").unwrap());
            // A label said once keeps the short window.
            assert_eq!(line("HAT999").text, "…of the whole week is HAT999 on the…");
        });
        // Said again far from it, in another part of the text, the label makes no list.
        let far = format!("Paid.\nTotal: $164\n{}\nRefunded.\nTotal: $187", "More text here. ".repeat(100));
        in_one_message(&far, |_, line| assert_eq!(line("$164").text, "Total: $164"));
    }

    #[test]
    fn an_item_shown_after_its_line_before_holds_that_line_whole_and_takes_its_place() {
        let listing = "One-stop options:\n   - Flight Numbers: HAT069 (JFK to SEA) & HAT011 (SEA to SFO)\n     - Price: $123\n   - Flight Numbers: HAT069 (JFK to SEA) & HAT258 (SEA to SFO)\n     - Price: $290";
        in_one_message(listing, |conv, line| {
            // The second leg is what tells the items apart: the line before is not cut at the short window,
            // and its indent takes none of the width.
            let (flight, price) = (line("HAT011"), line("$123"));
            assert_eq!(flight.text, "Flight Numbers: HAT069 (JFK to SEA) & HAT011 (SEA to SFO)");
            assert_eq!(price.text, "Flight Numbers: HAT069 (JFK to SEA) & HAT011 (SEA to SFO) / Price: $123");
            // Listed for both facts, the line is shown once, in the item.
            assert_eq!(flight.merged(&price, conv), Some(price.clone()));
            assert_eq!(price.merged(&flight, conv), Some(price.clone()));
            assert_eq!(line("HAT258").merged(&price, conv), None, "another item");
        });
    }

    #[test]
    fn items_in_a_row_are_shown_in_a_row_with_their_shared_line_once() {
        let listing = "Your reservation:\n1. **Outbound Flights on 2024-05-17:**\n   - JFK to ORD, Flight Number: HAT079\n   - ORD to DTW, Flight Number: HAT020\n2. **Return Flights on 2024-05-19:**\n   - DTW to JFK, Flight Number: HAT263";
        in_one_message(listing, |conv, line| {
            let (first, second) = (line("HAT079"), line("HAT020"));
            assert_eq!(first.text, "1. **Outbound Flights on 2024-05-17:** / JFK to ORD, Flight Number: HAT079");
            assert_eq!(second.text, "JFK to ORD, Flight Number: HAT079 / ORD to DTW, Flight Number: HAT020");
            let both = first.merged(&second, conv).expect("lines in a row");
            assert_eq!(
                both.text,
                "1. **Outbound Flights on 2024-05-17:** / JFK to ORD, Flight Number: HAT079 / ORD to DTW, Flight Number: HAT020"
            );
            assert_eq!(second.merged(&first, conv), Some(both.clone()));
            assert_eq!((both.place, both.end), (first.place, second.end));
            // The next item's line before is not the pair's last line: listed apart.
            assert_eq!(both.merged(&line("HAT263"), conv), None);
        });
    }

    /// Runs `check` on a conversation of one assistant message, `content`, with the line listed for each
    /// fact the audit finds in it.
    fn in_one_message(content: &str, check: impl FnOnce(&Conversation, &dyn Fn(&str) -> FactLine)) {
        let msgs = json!([{ "role": "assistant", "content": content }]);
        let conv = crate::fixtures::read(&msgs);
        let facts = facts_of(&conv, &[0]);
        check(&conv, &|text| line_of_fact(&conv, &facts, text));
    }

    /// The line listed for the fact the audit found as `text`.
    fn line_of_fact(conv: &Conversation, facts: &[Fact], text: &str) -> FactLine {
        let fact = facts.iter().find(|f| f.text == text).unwrap_or_else(|| panic!("{text} in {facts:?}"));
        fact_line(conv, fact)
    }

    fn shown_around(text: &str, at: usize, len: usize) -> String {
        let (start, end, _) = shown_part(text, at, len);
        window(text, start, end)
    }

    #[test]
    fn facts_of_one_sentence_are_shown_in_one_part_of_it() {
        let text = "Done. Your new booking code is QX7-2291 and the flight number is HAT069, leaving from gate 12 in the morning.\nThe refund REF-88123 is on its way.";
        in_one_message(text, |conv, line| {
            let (code, flight, refund) = (line("QX7-2291"), line("HAT069"), line("REF-88123"));
            assert!(!code.text.contains("HAT069") && !flight.text.contains("QX7-2291"), "{code:?} {flight:?}");
            let both = code.merged(&flight, conv).expect("parts of one line");
            assert_eq!(both, flight.merged(&code, conv).unwrap());
            assert!(both.text.contains("code is QX7-2291 and the flight number is HAT069"), "{}", both.text);
            assert!(both.text.len() < code.text.len() + flight.text.len(), "{}", both.text);
            assert_eq!(both.place.2, code.place.2);
            // Another line of the same message is listed on its own.
            assert_eq!(code.merged(&refund, conv), None);
        });
    }

    #[test]
    fn a_short_line_is_shown_whole() {
        let text = "Found it.\n- **Reservation ID**: M20IZO\n- Status: booked";
        let at = text.find("M20IZO").unwrap();
        let (start, end, _) = shown_part(text, at, 6);
        let shown = window(text, start, end);
        assert_eq!(shown, "- **Reservation ID**: M20IZO");
        assert_eq!(start, "Found it.\n".len());
    }

    #[test]
    fn a_long_line_is_cut_around_the_fact() {
        let text = format!("{}the code is QX7-2291 for the flight{}", "a ".repeat(200), " b".repeat(200));
        let at = text.find("QX7-2291").unwrap();
        let shown = shown_around(&text, at, 8);
        assert!(shown.starts_with('…') && shown.ends_with('…'), "{shown}");
        assert!(shown.contains("the code is QX7-2291 for the"), "{shown}");
        assert!(shown.len() <= MAX_LINE_CHARS + 2 * '…'.len_utf8(), "{}", shown.len());
    }

    #[test]
    fn a_fact_near_the_end_of_a_long_line_keeps_the_window_full() {
        let text = format!("{}ends with 42 GB", "x ".repeat(300));
        let at = text.find("42 GB").unwrap();
        let shown = shown_around(&text, at, 5);
        assert!(shown.starts_with('…') && shown.ends_with("ends with 42 GB"), "{shown}");
    }

    #[test]
    fn a_fact_as_long_as_the_window_is_shown_in_a_long_line() {
        let sentence = format!("You must never {}touch the production database.", "really ".repeat(25));
        let text = format!("{} {sentence} {}", "Some context. ".repeat(100), "More text. ".repeat(100));
        let at = text.find(&sentence).unwrap();
        let shown = shown_around(&text, at, sentence.len());
        assert!(shown.contains(&sentence), "{shown}");
    }

    #[test]
    fn a_path_is_shown_with_the_words_that_say_what_was_done_with_it() {
        let text = format!(
            "Both pass. {}I will run the existing tests in `tests/utils_tests/test_timesince.py`. I'll also run `tests/template_tests/filter_tests/test_timesince.py` after that.",
            "The change keeps the behaviour for naive datetimes. ".repeat(4)
        );
        in_one_message(&text, |_, line| {
            let first = line("tests/utils_tests/test_timesince.py");
            let second = line("tests/template_tests/filter_tests/test_timesince.py");
            assert!(first.source.is_some() && first.text.contains("tests in `tests/utils_tests"), "{first:?}");
            assert!(second.text.contains("also run `tests/template_tests"), "{second:?}");
        });
    }

    #[test]
    fn a_fact_nearly_as_long_as_the_window_is_shown_whole() {
        // Three-byte characters before it: a window start inside one moves back by up to two bytes.
        for len in MAX_LINE_CHARS - 4..=MAX_LINE_CHARS {
            let fact = "x".repeat(len);
            let text = format!("{}{fact} {}", "中".repeat(40), "文".repeat(40));
            let at = text.find(&fact).unwrap();
            let shown = shown_around(&text, at, fact.len());
            assert!(shown.contains(&fact), "{len}: {shown}");
        }
    }

    #[test]
    fn multibyte_text_is_cut_on_character_boundaries() {
        let text =
            format!("{}预订号是\u{3000}QX7-2291，请保存{}", "很长的句子\u{3000}".repeat(40), "后面还有".repeat(40));
        let at = text.find("QX7-2291").unwrap();
        let shown = shown_around(&text, at, 8);
        assert!(shown.contains("QX7-2291"), "{shown}");
    }
}
