//! `estimate`'s Rust half; see `ctxfold.d.ts`. Its JavaScript half, scripts/entries/estimate.js, keeps
//! which message object is which entry of the per-message cache (`cache.rs`) and calls this with what it
//! found: the entry id of each item (-1: not cached) and the items not cached, as one JSON array with
//! each one's length. Besides
//! the options every export reads, it takes the host's exact `counter`, a function, which is not JSON
//! and so is read here.
//!
//! Two paths give the same result. Warm (every call that can): only the messages not seen before are
//! read and scanned, and the whole history is detected and re-linked from what the cache kept, so the
//! same input gives the same answer, or the same error, whatever was cached. Cold: the whole input read
//! at once, as every other export does; it runs whenever the warm path has any doubt (an error to
//! report, ids made from positions, an input over the size limit), and its errors are the canonical
//! ones. A message mutated in place after it was estimated keeps its old cost: messages are taken as
//! immutable, as everywhere in ctxfold.

mod cache;

use super::binary;
use super::convert::{messages_from_js, to_js, value_from_js};
use crate::error::{Code, Error};
use crate::counting::estimate::{self, Estimate, MessageSize};
use crate::reading::format::{self, Format, FormatSet};
use crate::reading::input::{Input, MAX_INPUT_CHARS};
use crate::reading::message::Message;
use crate::options::Options;
use crate::counting::profiles::PROFILES;
use cache::Entry;
use js_sys::{Array, Function, Object, Reflect, Uint32Array, JSON};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// What the JavaScript half found in its map: see scripts/entries/estimate.js.
struct Lookup {
    /// The cache generation its ids belong to.
    generation: u32,
    /// Each item's entry id, -1 when not cached; empty when the input has no array of items.
    ids: Vec<i32>,
    /// The items not cached, in order, as one JSON array in UTF-8 (None: they could not be made JSON).
    missing: Option<Vec<u8>>,
    /// The length of each one's JSON, in UTF-16 units as JavaScript measures it.
    lengths: Vec<u32>,
    /// A request body's JSON with its array emptied (for its system prompt and what its shape says of
    /// the format); None for a bare array.
    body: Option<String>,
    /// The items not cached that hold binary data, read here (see binary.rs): their places among the
    /// items not cached (each is a `null` in `missing`), and the items themselves.
    walked: Vec<u32>,
    walked_items: Option<Array>,
}

/// The estimate, and where the items not cached were kept: `[result, generation, first, perMessage]`.
/// The JavaScript half starts its map over when `generation` is not the one it knew (the cache was
/// cleared), then maps the k-th item not cached to `first + k` (`first` is -1 when they were not kept).
/// `perMessage` (one number per message: most of the result) comes apart, as a typed array, which costs
/// far less than JSON text or an array built from here; the JavaScript half puts it in its place in the
/// result as a plain array. A null result asks it to start over and call again with nothing cached.
#[wasm_bindgen(js_name = __estimate)]
pub fn estimate_js(
    messages: JsValue,
    options: JsValue,
    generation: u32,
    ids: Vec<i32>,
    missing: Option<Vec<u8>>,
    lengths: Option<Vec<u32>>,
    body: Option<String>,
    walked: Option<Vec<u32>>,
    walked_items: Option<Array>,
) -> Result<Array, JsValue> {
    let mut lookup = Lookup { generation, ids, missing, lengths: lengths.unwrap_or_default(), body, walked: walked.unwrap_or_default(), walked_items };
    let (counter, options) = read_options(&options)?;
    let mut counter = counter.map(|f| Counter { serial: cache::with(|c| c.counter_serial(&f)), f, thrown: None });
    let (result, first) = match warm(&mut lookup, &options, counter.as_mut()) {
        Ok((result, first)) => (Some(result), first),
        Err(Warm::Failed(thrown)) => return Err(thrown),
        Err(Warm::Reset) => {
            cache::with(|c| c.clear());
            (None, -1)
        }
        Err(Warm::Cold) => (Some(cold(&messages, &options, counter.as_mut())?), -1),
    };
    let (result, per_message) = match result {
        Some(mut result) => {
            let per_message = Uint32Array::from(std::mem::take(&mut result.per_message).as_slice());
            (to_js(&result)?, per_message.into())
        }
        None => (JsValue::NULL, JsValue::NULL),
    };
    let generation = cache::with(|c| c.generation);
    Ok([result, JsValue::from(generation), JsValue::from(first), per_message].into_iter().collect())
}

/// Why the warm path did not answer.
enum Warm {
    /// An error that goes back as it is: what the host's counter threw, or the calibration's error.
    Failed(JsValue),
    /// Cached entries cannot serve this call (read in another format, not counted by this counter, or
    /// from a cache since cleared): start the cache over and call again with nothing cached.
    Reset,
    /// The cold path decides.
    Cold,
}

/// The cache's answer, and the id of the first entry kept for the items not cached (-1: none kept).
fn warm(lookup: &mut Lookup, options: &Options, mut counter: Option<&mut Counter>) -> Result<(Estimate, i32), Warm> {
    let Some(text) = &lookup.missing else { return Err(Warm::Cold) };
    let ids = &lookup.ids;
    // One pass over the cached items: whether their ids are this cache's, and their JSON's length.
    let Some(hits_len) = cache::with(|c| {
        let known = c.generation == lookup.generation;
        let mut len = 0u64;
        for &id in ids {
            if id >= 0 {
                len += u64::from(c.entries.get(id as usize).filter(|_| known)?.json_len);
            }
        }
        Some(len)
    }) else {
        return Err(Warm::Reset);
    };
    let missed = ids.iter().filter(|&&id| id < 0).count();
    if lookup.lengths.len() != missed {
        return Err(Warm::Cold);
    }
    // The input's JSON length as the cold path measures it, before the text is parsed: each item (cached
    // ones from their entries) and a comma after all but the last, the brackets, and the body around
    // the array.
    let items_len = hits_len + lookup.lengths.iter().map(|&l| u64::from(l)).sum::<u64>() + ids.len().saturating_sub(1) as u64 + 2;
    let body_len = lookup.body.as_ref().map_or(0, |s| (s.encode_utf16().count() as u64).saturating_sub(2));
    if items_len + body_len > MAX_INPUT_CHARS as u64 {
        return Err(Warm::Cold);
    }
    let Some(Ok(Value::Array(mut values))) = std::str::from_utf8(text).ok().map(crate::json::parse) else { return Err(Warm::Cold) };
    if values.len() != missed {
        return Err(Warm::Cold);
    }
    if !lookup.walked.is_empty() {
        let items = lookup.walked_items.as_ref().ok_or(Warm::Cold)?;
        let mut left = (MAX_INPUT_CHARS as u64).saturating_sub(items_len + body_len) as usize;
        for (n, &k) in lookup.walked.iter().enumerate() {
            let json = binary::json_of(&items.get(n as u32)).map_err(|_| Warm::Cold)?;
            let length = json.length() as usize;
            left = left.checked_sub(length).ok_or(Warm::Cold)?;
            let value = crate::json::parse(&String::from(json)).map_err(|_| Warm::Cold)?;
            *lookup.lengths.get_mut(k as usize).ok_or(Warm::Cold)? = length as u32;
            *values.get_mut(k as usize).ok_or(Warm::Cold)? = value;
        }
    }
    let body = match lookup.body.as_deref().map(crate::json::parse) {
        None => None,
        Some(Ok(v)) => Some(v),
        Some(Err(_)) => return Err(Warm::Cold),
    };
    let input = match &body {
        Some(b) => Input::read(b).map_err(|_| Warm::Cold)?,
        None => Input::items(&[]),
    };
    let (format, per_message, fresh) = read_warm(ids, &values, &lookup.lengths, &input, options, counter.as_deref_mut())?;
    let result = finish(per_message, format, options, &input, counter).map_err(Warm::Failed)?;
    Ok((result, remember(fresh)))
}

/// Detects, reads, links and counts; the entries of the messages not cached come back to be kept.
fn read_warm(
    ids: &[i32],
    values: &[Value],
    lengths: &[u32],
    input: &Input,
    options: &Options,
    counter: Option<&mut Counter>,
) -> Result<(Format, Vec<u32>, Vec<Entry>), Warm> {
    let serial = counter.as_deref().map(|c| c.serial);
    // Entries keep their tokens under every built-in profile (options only ever pick one of them).
    let index = PROFILES.iter().position(|p| *p == options.profile).ok_or(Warm::Cold)?;
    let mut admits: Vec<FormatSet> = Vec::with_capacity(values.len());
    for v in values {
        admits.push(format::item_formats(v).ok_or(Warm::Cold)?);
    }
    let mut set = match options.format {
        Some(_) => [true; 5],
        None => format::admitted_by_shape(input),
    };
    // One pass over the cached messages: the formats they admit (detection as the cold path does it),
    // the formats they were read in, whether this counter counted them, their tokens, and which of
    // them take part in linking (those with tool calls or results).
    let mut per_message = vec![0u32; ids.len()];
    let mut read_in = [false; 5];
    let mut linking = Vec::new();
    let usable = cache::with(|c| {
        let mut counted = true;
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
        counted
    });
    for s in &admits {
        set = std::array::from_fn(|k| set[k] && s[k]);
    }
    let format = match options.format {
        Some(f) => f,
        None if set.iter().any(|x| *x) => format::chosen(&set),
        None => return Err(Warm::Cold),
    };
    // Cached messages read in another format, or not counted by this counter, must be read again.
    if !usable || Format::ALL.iter().zip(read_in).any(|(f, on)| on && *f != format) {
        return Err(Warm::Reset);
    }
    // Each new message read on its own: nothing in its cost depends on its neighbours, and its ids only
    // do when they are made from positions, which the cold path handles.
    let mut fresh = Vec::with_capacity(values.len());
    let mut read: Vec<(Message, MessageSize)> = Vec::with_capacity(values.len());
    for ((v, &len), admits) in values.iter().zip(lengths).zip(&admits) {
        let conv = format::read_unchecked(&Input::items(std::slice::from_ref(v)), Some(format)).map_err(|_| Warm::Cold)?;
        let m = conv.messages.into_iter().next().ok_or(Warm::Cold)?;
        if cache::positional(&m) {
            return Err(Warm::Cold);
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
    // The whole history re-linked, in order, from the ids the cache kept: a pairing problem is the
    // cold path's to report.
    let mut fresh_linking = misses.iter().zip(&fresh).filter(|(_, e)| e.links()).peekable();
    if !linking.is_empty() || fresh_linking.peek().is_some() {
        let linked = cache::with(|c| {
            // Both lists are in message order: merged, they are the history's calls and results in order.
            let mut cached = linking.iter().map(|&i| (i, &c.entries[ids[i] as usize])).peekable();
            let merged = std::iter::from_fn(|| {
                let take_cached = match (cached.peek(), fresh_linking.peek()) {
                    (Some((i, _)), Some((j, _))) => i < *j,
                    (Some(_), None) => true,
                    (None, Some(_)) => false,
                    (None, None) => return None,
                };
                if take_cached { cached.next().map(|(_, e)| e) } else { fresh_linking.next().map(|(_, e)| e) }
            });
            format::ids_pair_up(merged.map(Entry::ids))
        });
        if !linked {
            return Err(Warm::Cold);
        }
    }
    // The host's counter on the new messages only, in order (it may throw, or call estimate again).
    if let Some(c) = counter {
        for ((&i, (m, size)), e) in misses.iter().zip(&read).zip(fresh.iter_mut()) {
            let t = c.count_message(m, i).map_err(Warm::Failed)?;
            e.counted = Some((c.serial, PROFILES.map(|p| size.tokens_counted(t, &p))));
        }
    }
    for (&i, e) in misses.iter().zip(&fresh) {
        per_message[i] = e.tokens(index, serial).ok_or(Warm::Cold)?;
    }
    Ok((format, per_message, fresh))
}

/// Keeps the new entries; past `MAX_ENTRIES` the cache starts over first. The id of the first, or -1
/// when none was kept.
fn remember(fresh: Vec<Entry>) -> i32 {
    if fresh.is_empty() || fresh.len() > cache::MAX_ENTRIES {
        return -1;
    }
    cache::with(|c| {
        if c.entries.len() + fresh.len() > cache::MAX_ENTRIES {
            c.clear();
        }
        let first = c.entries.len() as i32;
        c.entries.extend(fresh);
        first
    })
}

/// The cold path: the whole input read at once, as every other export reads it.
fn cold(messages: &JsValue, options: &Options, mut counter: Option<&mut Counter>) -> Result<Estimate, JsValue> {
    let value = messages_from_js(messages)?;
    let input = Input::read(&value)?;
    let conv = format::read(&input, options.format)?;
    let mut per_message = Vec::with_capacity(conv.len());
    for (i, m) in conv.messages.iter().enumerate() {
        let size = MessageSize::of(m);
        per_message.push(match counter.as_deref_mut() {
            Some(c) => size.tokens_counted(c.count_message(m, i)?, &options.profile),
            None => size.tokens(&options.profile),
        });
    }
    finish(per_message, conv.format, options, &input, counter)
}

/// Overhead, calibration, total and budget, with the texts outside the messages counted by the
/// profile or the host's counter.
fn finish(per_message: Vec<u32>, format: Format, options: &Options, input: &Input, counter: Option<&mut Counter>) -> Result<Estimate, JsValue> {
    let profile = options.profile;
    match counter {
        None => Ok(estimate::finish(per_message, format, options, input, false, &mut |t| Ok(profile.text(t)))?),
        Some(c) => {
            let result = estimate::finish(per_message, format, options, input, true, &mut |t| c.count(t, "the system prompt or tools"));
            // What the counter threw goes back to the host as it was.
            result.map_err(|e| c.thrown.take().unwrap_or_else(|| e.into()))
        }
    }
}

/// The options with `counter` (a function) taken out.
fn read_options(options: &JsValue) -> Result<(Option<Function>, Options), Error> {
    let mut counter = None;
    let mut rest = options.clone();
    if options.is_object() && !Array::is_array(options) {
        let key = JsValue::from_str("counter");
        let value = Reflect::get(options, &key).unwrap_or(JsValue::UNDEFINED);
        if !value.is_undefined() && !value.is_null() {
            let f = value.dyn_into::<Function>().map_err(|_| Error::option("options.counter", "expected a function (text) => number of tokens"))?;
            counter = Some(f);
        }
        let copy = Object::assign(&Object::new(), options.unchecked_ref());
        let _ = Reflect::delete_property(&copy, &key);
        rest = copy.into();
    }
    let value = value_from_js(&rest, "options", Code::InvalidOption)?;
    Ok((counter, Options::from_json(&value)?))
}

/// The host's `(text) => number` counter.
struct Counter {
    f: Function,
    /// Its serial in the cache: its counts are kept per message and counter.
    serial: u32,
    /// What the counter threw, passed back unchanged.
    thrown: Option<JsValue>,
}

impl Counter {
    /// Tokens of one text. A throw is kept for the caller; a result that is not a finite,
    /// non-negative number is an `INVALID_OPTION` at `options.counter`.
    fn count(&mut self, text: &str, what: &str) -> Result<f64, Error> {
        match self.f.call1(&JsValue::NULL, &JsValue::from_str(text)) {
            Err(e) => {
                self.thrown = Some(e);
                Err(Error::option("options.counter", "the counter threw"))
            }
            Ok(v) => match v.as_f64() {
                Some(n) if n.is_finite() && n >= 0.0 => Ok(n),
                _ => Err(Error::option("options.counter", format!(
                    "the counter returned {} for a text of {what}; expected a finite number of tokens, 0 or more",
                    describe(&v)
                ))),
            },
        }
    }

    fn count_message(&mut self, m: &Message, index: usize) -> Result<f64, JsValue> {
        let mut total = 0.0;
        for text in estimate::texts(m) {
            total += self.count(text, &format!("messages[{index}]")).map_err(|e| self.thrown.take().unwrap_or_else(|| e.into()))?;
        }
        Ok(total)
    }
}

fn describe(v: &JsValue) -> String {
    if let Some(n) = v.as_f64() {
        return crate::text::number(n);
    }
    JSON::stringify(v).ok().and_then(|s| s.as_string()).unwrap_or_else(|| v.js_typeof().as_string().unwrap_or_default())
}
