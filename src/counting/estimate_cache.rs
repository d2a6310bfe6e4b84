//! The per-message cache behind `estimate`: a history whose messages were seen before costs a read of
//! their entries, and only the new messages are read and scanned.
//!
//! The host side (the binding) keeps which message object is which entry: it hands each call the entry
//! id of every item (or none), the items not cached, and their JSON lengths. An entry is plain data,
//! without the message's text: its tokens under each profile, the formats its shape admits, its
//! tool-call and result ids (to re-link a history of cached messages), the length of its JSON (for the
//! input-size limit) and, with a host counter, that counter's exact count.
//!
//! Two paths give the same result. Warm: the whole history is detected and re-linked from what the
//! entries kept, so the same input gives the same answer, or the same error, whatever was cached. Cold:
//! the whole input read at once, as every other operation reads it; it runs whenever the warm path has
//! any doubt (an error to report, ids made from positions, an input over the size limit), and its errors
//! are the canonical ones. A message mutated in place after it was estimated keeps its old cost:
//! messages are taken as immutable, as everywhere in ctxfold.
//!
//! Entries are never freed one by one. When the next call would go past `MAX_ENTRIES`, the cache starts
//! over in a new generation, so memory stays bounded on a server that sees many conversations, and an
//! id from an older generation is never read.

use crate::counting::estimate::{finish, texts, Estimate, MessageSize};
use crate::counting::profiles::PROFILES;
use crate::error::{item_path, Error, Result};
use crate::options::Options;
use crate::reading::format::{self, Format, FormatSet};
use crate::reading::input::{Input, MAX_INPUT_CHARS};
use crate::reading::message::Message;
use serde_json::Value;
use std::cell::RefCell;

/// About 100 bytes each beside their ids: at most about 10 MB of memory.
pub const MAX_ENTRIES: usize = 100_000;

/// A host's exact `(text) => tokens` counter.
pub trait Counter {
    /// Its serial: counts are kept per message and counter, and reused only for the same one.
    fn serial(&self) -> u32;
    /// Tokens of one text of `what` (for the error's message).
    fn count(&mut self, text: &str, what: &str) -> Result<f64>;
}

/// A counter as the functions here take it: owned data, no borrowed state.
pub type DynCounter = dyn Counter + 'static;

/// What the host side found: the entry ids of the items and the items not cached.
#[derive(Debug, Default)]
pub struct Lookup {
    /// The cache generation its ids belong to.
    pub generation: u32,
    /// Each item's entry id, -1 when not cached; empty when the input has no array of items.
    pub ids: Vec<i32>,
    /// The items not cached, in order; None when they could not be read, which leaves it to the cold path.
    pub missing: Option<Vec<Value>>,
    /// The length of each one's JSON, in UTF-16 units as `JSON.stringify` measures it.
    pub lengths: Vec<u32>,
    /// A request body with its array emptied (its system prompt and shape tell the format); None for a
    /// bare array.
    pub body: Option<Value>,
    /// The body's JSON length in UTF-16 units, brackets included.
    pub body_len: u64,
}

/// What a warm call gives back: the estimate and the id of the first entry kept for the items not
/// cached, in order (None: none kept).
#[derive(Debug)]
pub struct Warmed {
    pub estimate: Estimate,
    pub first: Option<u32>,
}

/// Why the warm path did not answer.
#[derive(Debug)]
pub enum Miss {
    /// An error that goes back as it is: the host counter's, or the calibration's.
    Failed(Error),
    /// Cached entries cannot serve this call (read in another format, not counted by this counter, or
    /// from a generation since cleared): the cache has started over; call again with nothing cached.
    Reset,
    /// The cold path decides.
    Cold,
}

/// What the estimate needs of a message, without its text.
#[derive(Debug)]
struct Entry {
    /// Its tokens under each of `PROFILES`, framing included: per call, a cached message costs a read.
    tokens: [u32; PROFILES.len()],
    /// The format it was read in: an entry read in another format is not reused.
    format: Format,
    /// The formats its shape admits, for detection.
    admits: FormatSet,
    /// Characters of its JSON text, as `JSON.stringify` counts them.
    json_len: u32,
    /// Its tokens by a host counter, under each profile's framing: (counter serial, tokens).
    counted: Option<(u32, [u32; PROFILES.len()])>,
    calls: Box<[Box<str>]>,
    results: Box<[Box<str>]>,
}

impl Entry {
    fn new(m: &Message, size: &MessageSize, format: Format, admits: FormatSet, json_len: u32) -> Entry {
        // Loops rather than two collected maps: each collect is its own copy of the iterator code.
        let mut calls = Vec::with_capacity(m.tool_calls.len());
        for c in &m.tool_calls {
            calls.push(Box::from(c.id.as_ref()));
        }
        let mut results = Vec::with_capacity(m.tool_results.len());
        for r in &m.tool_results {
            results.push(Box::from(r.id.as_ref()));
        }
        Entry {
            tokens: PROFILES.map(|p| size.tokens(&p)),
            format,
            admits,
            json_len,
            counted: None,
            calls: calls.into_boxed_slice(),
            results: results.into_boxed_slice(),
        }
    }

    /// Its tokens under `PROFILES[index]`, by the counter with this serial when there is one.
    fn tokens(&self, index: usize, serial: Option<u32>) -> Option<u32> {
        match (serial, self.counted) {
            (None, _) => Some(self.tokens[index]),
            (Some(s), Some((by, counted))) if by == s => Some(counted[index]),
            _ => None,
        }
    }

    /// Whether it has tool calls or results: only those take part in linking.
    fn links(&self) -> bool {
        !self.calls.is_empty() || !self.results.is_empty()
    }

    /// Its tool-call ids and the ids its results answer, for re-linking.
    fn ids(&self) -> (impl Iterator<Item = &str>, impl Iterator<Item = &str>) {
        (self.calls.iter().map(|id| &**id), self.results.iter().map(|id| &**id))
    }
}

/// Whether a message's ids are made from its position (Gemini calls without ids, legacy
/// `function_call`): such a message reads differently elsewhere in the history, so it is never cached.
fn positional(m: &Message) -> bool {
    m.tool_calls.iter().any(|c| c.id.contains('@')) || m.tool_results.iter().any(|r| r.id.contains('@'))
}

/// The entries, by id. Borrowed only between calls to the host's counter, which may estimate again.
#[derive(Debug, Default)]
pub struct EstimateCache {
    inner: RefCell<Entries>,
}

#[derive(Debug, Default)]
struct Entries {
    /// Bumped by `clear`: ids read before a clear must not be looked up after it.
    generation: u32,
    entries: Vec<Entry>,
}

impl EstimateCache {
    pub const fn new() -> EstimateCache {
        EstimateCache { inner: RefCell::new(Entries { generation: 0, entries: Vec::new() }) }
    }

    /// The generation the host's ids must belong to.
    pub fn generation(&self) -> u32 {
        self.inner.borrow().generation
    }

    /// Forgets every entry and starts a new generation.
    pub fn clear(&self) {
        let mut e = self.inner.borrow_mut();
        e.generation = e.generation.wrapping_add(1);
        e.entries = Vec::new();
    }

    /// The estimate from the entries and the items not cached, or why the cold path must answer.
    /// On `Miss::Reset` the cache has been cleared already.
    pub fn warm(
        &self,
        lookup: &Lookup,
        options: &Options,
        mut counter: Option<&mut DynCounter>,
    ) -> std::result::Result<Warmed, Miss> {
        let Some(values) = &lookup.missing else { return Err(Miss::Cold) };
        let ids = &lookup.ids;
        // One pass over the cached items: whether their ids are this cache's, and their JSON's length.
        let hits_len = {
            let c = self.inner.borrow();
            let known = c.generation == lookup.generation;
            let mut len = 0u64;
            for &id in ids.iter().filter(|&&id| id >= 0) {
                match c.entries.get(id as usize).filter(|_| known) {
                    Some(e) => len += u64::from(e.json_len),
                    None => {
                        drop(c);
                        self.clear();
                        return Err(Miss::Reset);
                    }
                }
            }
            len
        };
        let missed = ids.iter().filter(|&&id| id < 0).count();
        if lookup.lengths.len() != missed || values.len() != missed {
            return Err(Miss::Cold);
        }
        // The input's JSON length as the cold path measures it: each item and a comma after all but
        // the last, the brackets, and the body around the array.
        let items_len = hits_len
            + lookup.lengths.iter().map(|&l| u64::from(l)).sum::<u64>()
            + ids.len().saturating_sub(1) as u64
            + 2;
        if items_len + lookup.body_len.saturating_sub(2) > MAX_INPUT_CHARS as u64 {
            return Err(Miss::Cold);
        }
        let input = match &lookup.body {
            Some(b) => Input::read(b).map_err(|_| Miss::Cold)?,
            None => Input::items(&[]),
        };
        let (format, per_message, fresh) =
            match self.read_warm(ids, values, &lookup.lengths, &input, options, counter.as_deref_mut()) {
                Err(Miss::Reset) => {
                    self.clear();
                    return Err(Miss::Reset);
                }
                other => other?,
            };
        let estimate = finish_counted(per_message, format, options, &input, counter).map_err(Miss::Failed)?;
        Ok(Warmed { estimate, first: self.remember(fresh) })
    }

    /// Detects, reads, links and counts; the entries of the messages not cached come back to be kept.
    fn read_warm(
        &self,
        ids: &[i32],
        values: &[Value],
        lengths: &[u32],
        input: &Input,
        options: &Options,
        counter: Option<&mut DynCounter>,
    ) -> std::result::Result<(Format, Vec<u32>, Vec<Entry>), Miss> {
        let serial = counter.as_deref().map(|c| c.serial());
        // Entries keep their tokens under every built-in profile (options only ever pick one of them).
        let index = PROFILES.iter().position(|p| *p == options.profile).ok_or(Miss::Cold)?;
        let mut admits: Vec<FormatSet> = Vec::with_capacity(values.len());
        for v in values {
            admits.push(format::item_formats(v).ok_or(Miss::Cold)?);
        }
        let mut set = match options.format {
            Some(_) => [true; 5],
            None => format::admitted_by_shape(input),
        };
        // One pass over the cached messages: the formats they admit (detection as the cold path does
        // it), the formats they were read in, whether this counter counted them, their tokens, and
        // which of them take part in linking (those with tool calls or results).
        let mut per_message = vec![0u32; ids.len()];
        let mut read_in = [false; 5];
        let mut linking = Vec::new();
        let mut counted = true;
        {
            let c = self.inner.borrow();
            for (i, &id) in ids.iter().enumerate() {
                let Some(e) = usize::try_from(id).ok().map(|id| &c.entries[id]) else { continue };
                set = std::array::from_fn(|k| set[k] && e.admits[k]);
                read_in[Format::ALL.iter().position(|f| *f == e.format).unwrap_or(0)] = true;
                match e.tokens(index, serial) {
                    Some(t) => per_message[i] = t,
                    None => counted = false,
                }
                if e.links() {
                    linking.push(i);
                }
            }
        }
        for s in &admits {
            set = std::array::from_fn(|k| set[k] && s[k]);
        }
        let format = match options.format {
            Some(f) => f,
            None if set.iter().any(|x| *x) => format::chosen(&set),
            None => return Err(Miss::Cold),
        };
        // Cached messages read in another format, or not counted by this counter, must be read again.
        if !counted || Format::ALL.iter().zip(read_in).any(|(f, on)| on && *f != format) {
            return Err(Miss::Reset);
        }
        // The new messages read in one list (they need not be neighbours in the history), not linked
        // (`links_pair_up` pairs the whole history's ids below): nothing in a message's cost depends on the
        // messages around it, and its ids only do when they are made from positions, which the cold path
        // handles.
        let mut fresh = Vec::with_capacity(values.len());
        let mut read: Vec<(Message, MessageSize)> = Vec::with_capacity(values.len());
        let messages = format::messages(&Input::items(values), format).map_err(|_| Miss::Cold)?;
        for ((m, &len), admits) in messages.into_iter().zip(lengths).zip(&admits) {
            if positional(&m) {
                return Err(Miss::Cold);
            }
            let size = MessageSize::of(&m);
            fresh.push(Entry::new(&m, &size, format, *admits, len));
            read.push((m, size));
        }
        let mut misses: Vec<usize> = Vec::with_capacity(values.len());
        for (i, &id) in ids.iter().enumerate() {
            if id < 0 {
                misses.push(i);
            }
        }
        if !self.links_pair_up(ids, &linking, &misses, &fresh) {
            return Err(Miss::Cold); // a pairing problem is the cold path's to report
        }
        // The host's counter on the new messages only, in order (it may throw, or estimate again).
        if let Some(c) = counter {
            for ((&i, (m, size)), e) in misses.iter().zip(&read).zip(fresh.iter_mut()) {
                let t = count_message(c, m, input.root, i).map_err(Miss::Failed)?;
                e.counted = Some((c.serial(), PROFILES.map(|p| size.tokens_counted(t, &p))));
            }
        }
        for (&i, e) in misses.iter().zip(&fresh) {
            per_message[i] = e.tokens(index, serial).ok_or(Miss::Cold)?;
        }
        Ok((format, per_message, fresh))
    }

    /// Whether the whole history's calls and results pair up, re-linked in order from the ids the
    /// entries kept: `linking` (cached) and the fresh entries at `misses` are both in message order.
    fn links_pair_up(&self, ids: &[i32], linking: &[usize], misses: &[usize], fresh: &[Entry]) -> bool {
        let mut fresh_linking = misses.iter().zip(fresh).filter(|(_, e)| e.links()).peekable();
        if linking.is_empty() && fresh_linking.peek().is_none() {
            return true;
        }
        let c = self.inner.borrow();
        let mut cached = linking.iter().map(|&i| (i, &c.entries[ids[i] as usize])).peekable();
        let merged = std::iter::from_fn(|| {
            let take_cached = match (cached.peek(), fresh_linking.peek()) {
                (Some((i, _)), Some((j, _))) => i < *j,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => return None,
            };
            if take_cached {
                cached.next().map(|(_, e)| e)
            } else {
                fresh_linking.next().map(|(_, e)| e)
            }
        });
        format::ids_pair_up(merged.map(Entry::ids))
    }

    /// Keeps the new entries; past `MAX_ENTRIES` the cache starts over first. The id of the first.
    fn remember(&self, fresh: Vec<Entry>) -> Option<u32> {
        if fresh.is_empty() || fresh.len() > MAX_ENTRIES {
            return None;
        }
        if self.inner.borrow().entries.len() + fresh.len() > MAX_ENTRIES {
            self.clear();
        }
        let mut c = self.inner.borrow_mut();
        let first = c.entries.len() as u32;
        c.entries.extend(fresh);
        Some(first)
    }
}

/// The cold path: the whole input read at once, as every other operation reads it, the texts counted
/// by the profile or the host's counter.
pub fn estimate_counted(input: &Input, options: &Options, mut counter: Option<&mut DynCounter>) -> Result<Estimate> {
    let conv = format::read(input, options.format)?;
    let mut per_message = Vec::with_capacity(conv.len());
    for (i, m) in conv.messages.iter().enumerate() {
        let size = MessageSize::of(m);
        per_message.push(match counter.as_deref_mut() {
            Some(c) => size.tokens_counted(count_message(c, m, input.root, i)?, &options.profile),
            None => size.tokens(&options.profile),
        });
    }
    finish_counted(per_message, conv.format, options, input, counter)
}

/// Overhead, calibration, total and budget, the texts outside the messages counted by the profile or
/// the host's counter.
fn finish_counted(
    per_message: Vec<u32>,
    format: Format,
    options: &Options,
    input: &Input,
    counter: Option<&mut DynCounter>,
) -> Result<Estimate> {
    let profile = options.profile;
    match counter {
        None => finish(per_message, format, options, input, false, &mut |t| Ok(profile.text(t))),
        Some(c) => finish(per_message, format, options, input, true, &mut |t| c.count(t, "the system prompt or tools")),
    }
}

/// The host's count of message `index`'s texts; `root` names the input's item list in its errors.
fn count_message(c: &mut DynCounter, m: &Message, root: &str, index: usize) -> Result<f64> {
    let at = item_path(root, index);
    let mut total = 0.0;
    for text in texts(m) {
        total += c.count(text, &at)?;
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Code;
    use serde_json::json;

    /// The binding's half: which message (by its position in `known`) is which entry.
    struct Host {
        cache: EstimateCache,
        known: Vec<(Value, u32, u32)>, // (message, generation, entry id)
    }

    impl Host {
        fn new() -> Host {
            Host { cache: EstimateCache::new(), known: Vec::new() }
        }

        fn lookup(&self, items: &[Value]) -> Lookup {
            let generation = self.cache.generation();
            let mut lookup = Lookup { generation, missing: Some(Vec::new()), ..Lookup::default() };
            for item in items {
                match self.known.iter().find(|(m, g, _)| m == item && *g == generation) {
                    Some((_, _, id)) => lookup.ids.push(*id as i32),
                    None => {
                        lookup.ids.push(-1);
                        lookup.lengths.push(crate::json::to_text(item).encode_utf16().count() as u32);
                        lookup.missing.as_mut().unwrap().push(item.clone());
                    }
                }
            }
            lookup
        }

        fn estimate(
            &mut self,
            items: &[Value],
            options: &Options,
            mut counter: Option<&mut DynCounter>,
        ) -> Result<Estimate> {
            for _ in 0..2 {
                let lookup = self.lookup(items);
                match self.cache.warm(&lookup, options, counter.as_deref_mut()) {
                    Ok(w) => {
                        let missing = lookup.missing.unwrap();
                        if let Some(first) = w.first {
                            let generation = self.cache.generation();
                            self.known.extend(
                                missing.into_iter().enumerate().map(|(k, m)| (m, generation, first + k as u32)),
                            );
                        }
                        return Ok(w.estimate);
                    }
                    Err(Miss::Failed(e)) => return Err(e),
                    Err(Miss::Reset) => self.known.clear(),
                    Err(Miss::Cold) => break,
                }
            }
            let whole = Value::Array(items.to_vec());
            estimate_counted(&Input::read(&whole)?, options, counter)
        }
    }

    fn cold(items: &[Value], options: &Options) -> Estimate {
        let whole = Value::Array(items.to_vec());
        estimate_counted(&Input::read(&whole).unwrap(), options, None).unwrap()
    }

    struct ByChars(u32);
    impl Counter for ByChars {
        fn serial(&self) -> u32 {
            self.0
        }
        fn count(&mut self, text: &str, _: &str) -> Result<f64> {
            Ok(text.chars().count() as f64 / 4.0)
        }
    }

    fn agent_run() -> Vec<Value> {
        crate::fixtures::agent_run(12, 300)
    }

    #[test]
    fn growing_history_warm_equals_cold_at_every_length() {
        let items = agent_run();
        let options = Options::default();
        let mut host = Host::new();
        for n in 1..=items.len() {
            let warm = host.estimate(&items[..n], &options, None).unwrap();
            assert_eq!(warm, cold(&items[..n], &options), "at {n} messages");
        }
        // Every message was read once: each later call found the earlier ones in the cache.
        assert_eq!(host.known.len(), items.len());
    }

    #[test]
    fn another_profile_is_served_from_the_same_entries() {
        let items = agent_run();
        let mut host = Host::new();
        host.estimate(&items, &Options::default(), None).unwrap();
        let claude = Options::from_json(&json!({ "model": "claude-sonnet-4" })).unwrap();
        let lookup = host.lookup(&items);
        assert!(lookup.missing.as_ref().unwrap().is_empty());
        let warm = host.cache.warm(&lookup, &claude, None).unwrap();
        assert_eq!(warm.estimate.total, cold(&items, &claude).total);
        assert_eq!(warm.first, None);
    }

    #[test]
    fn a_new_counter_resets_and_counts_exactly() {
        let items = agent_run();
        let options = Options::default();
        let mut host = Host::new();
        host.estimate(&items, &options, None).unwrap();
        let lookup = host.lookup(&items);
        assert!(matches!(host.cache.warm(&lookup, &options, Some(&mut ByChars(1))), Err(Miss::Reset)));
        let counted = host.estimate(&items, &options, Some(&mut ByChars(1))).unwrap();
        let whole = Value::Array(items.clone());
        let expected = estimate_counted(&Input::read(&whole).unwrap(), &options, Some(&mut ByChars(1))).unwrap();
        assert_eq!(counted.total, expected.total);
        assert_ne!(counted.total, cold(&items, &options).total);
    }

    #[test]
    fn ids_of_a_cleared_generation_are_never_read() {
        let items = agent_run();
        let options = Options::default();
        let mut host = Host::new();
        host.estimate(&items, &options, None).unwrap();
        let stale = host.lookup(&items);
        host.cache.clear();
        assert!(matches!(host.cache.warm(&stale, &options, None), Err(Miss::Reset)));
    }

    #[test]
    fn a_broken_history_is_left_to_the_cold_path_and_its_error() {
        let options = Options::default();
        let mut host = Host::new();
        let call = json!({ "role": "assistant", "tool_calls": [{ "id": "c1", "type": "function", "function": { "name": "f", "arguments": "{}" } }] });
        let result = json!({ "role": "tool", "tool_call_id": "c1", "content": "ok" });
        host.estimate(&[call.clone(), result.clone()], &options, None).unwrap();
        // The same result twice: the cached entries alone cannot say what is wrong.
        let lookup = host.lookup(&[call.clone(), result.clone(), result.clone()]);
        assert!(matches!(host.cache.warm(&lookup, &options, None), Err(Miss::Cold)));
        let err = host.estimate(&[call, result.clone(), result], &options, None).unwrap_err();
        assert_eq!(err.code, Code::InvalidInput);
    }

    #[test]
    fn a_format_change_reads_every_message_again() {
        let options = Options::default();
        let mut host = Host::new();
        let text = json!({ "role": "user", "content": "hello there" });
        host.estimate(std::slice::from_ref(&text), &options, None).unwrap();
        // An Anthropic tool_use block makes the history Anthropic; the cached message was read as OpenAI.
        let anthropic =
            json!({ "role": "assistant", "content": [{ "type": "tool_use", "id": "t1", "name": "f", "input": {} }] });
        let answer =
            json!({ "role": "user", "content": [{ "type": "tool_result", "tool_use_id": "t1", "content": "ok" }] });
        let items = [text, anthropic, answer];
        let warm = host.estimate(&items, &options, None).unwrap();
        assert_eq!(warm.format, "anthropic");
        assert_eq!(warm, cold(&items, &options));
    }

    #[test]
    fn the_cache_starts_over_past_its_bound() {
        let options = Options::default();
        let cache = EstimateCache::new();
        let message = |i: usize| json!({ "role": "user", "content": format!("message {i}") });
        let fill: Vec<Value> = (0..MAX_ENTRIES).map(message).collect();
        let lookup = Lookup {
            ids: vec![-1; fill.len()],
            lengths: vec![30; fill.len()],
            missing: Some(fill),
            ..Lookup::default()
        };
        assert_eq!(cache.warm(&lookup, &options, None).unwrap().first, Some(0));
        let more = Lookup {
            generation: cache.generation(),
            ids: vec![-1],
            lengths: vec![30],
            missing: Some(vec![message(0)]),
            ..Lookup::default()
        };
        let before = cache.generation();
        assert_eq!(cache.warm(&more, &options, None).unwrap().first, Some(0));
        assert_eq!(cache.generation(), before + 1);
    }

    /// Records where each text it counts is, as a counter's errors name it.
    struct Where(Vec<String>);
    impl Counter for Where {
        fn serial(&self) -> u32 {
            7
        }
        fn count(&mut self, _: &str, what: &str) -> Result<f64> {
            self.0.push(what.to_string());
            Ok(1.0)
        }
    }

    #[test]
    fn a_counter_is_told_the_body_list_its_texts_are_in() {
        let options = Options::default();
        let turn = |role: &str, text: &str| json!({ "role": role, "parts": [{ "text": text }] });
        let items = vec![turn("user", "hello"), turn("model", "hi")];
        let body = json!({ "systemInstruction": { "parts": [{ "text": "be brief" }] }, "contents": items });
        let mut cold = Where(Vec::new());
        estimate_counted(&Input::read(&body).unwrap(), &options, Some(&mut cold)).unwrap();
        assert_eq!(cold.0, ["contents[0]", "contents[1]", "the system prompt or tools"]);

        let emptied = json!({ "systemInstruction": body["systemInstruction"], "contents": [] });
        let lookup = Lookup {
            ids: vec![-1, -1],
            lengths: vec![40, 40],
            missing: Some(items),
            body_len: crate::json::to_text(&emptied).len() as u64,
            body: Some(emptied),
            ..Lookup::default()
        };
        let mut warm = Where(Vec::new());
        EstimateCache::new().warm(&lookup, &options, Some(&mut warm)).unwrap();
        assert_eq!(warm.0, cold.0);
    }
}
