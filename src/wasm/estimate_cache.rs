//! The per-message cache behind `estimate`: what each message object cost, keyed by the object
//! itself (a `WeakMap`, so a message the host drops is forgotten with it). Re-estimating a history
//! after one message was appended then reads and scans only that message; the others cost a map
//! look-up each. Message objects are taken as immutable, as everywhere in ctxfold: a host that edits
//! a message in place must pass a new object for it.
//!
//! The map holds an index into `entries` (plain Rust data: no JS call to read it back). Entries are
//! never freed one by one; when there are `MAX_ENTRIES`, the whole cache starts over, which bounds
//! its memory (a few hundred bytes per entry) on a server that sees many conversations.

use crate::estimate::MessageSize;
use crate::format::Format;
use crate::message::{Message, Role, ToolCall};
use js_sys::{Function, WeakMap};
use std::borrow::Cow;
use std::cell::RefCell;
use wasm_bindgen::JsValue;

const MAX_ENTRIES: usize = 200_000;

/// What the estimate needs of a message, without its text.
#[derive(Debug, Clone)]
pub struct Entry {
    pub size: MessageSize,
    pub format: Format,
    role: Role,
    /// Its tool calls (id, name) and the call it answers: enough to re-link a history of cached
    /// messages with the format's own rules.
    calls: Vec<(String, String)>,
    answers: Option<String>,
    /// Exact text tokens by host counters: (counter serial, tokens).
    counted: Vec<(u32, f64)>,
}

impl Entry {
    pub fn new(m: &Message, format: Format) -> Entry {
        Entry {
            size: MessageSize::of(m),
            format,
            role: m.role,
            calls: m.tool_calls.iter().map(|c| (c.id.to_string(), c.name.to_string())).collect(),
            answers: m.answers.map(str::to_string),
            counted: Vec::new(),
        }
    }

    /// The message view, without text, for linking.
    pub fn view(&self) -> Message<'_> {
        Message {
            role: self.role,
            text: Cow::Borrowed(""),
            name: None,
            tool_calls: self.calls.iter().map(|(id, name)| ToolCall { id, name, arguments: "" }).collect(),
            answers: self.answers.as_deref(),
            attachments: 0,
            is_summary: false,
        }
    }

    pub fn counted_by(&self, serial: u32) -> Option<f64> {
        self.counted.iter().find(|(s, _)| *s == serial).map(|&(_, t)| t)
    }

    pub fn set_counted(&mut self, serial: u32, tokens: f64) {
        self.counted.retain(|(s, _)| *s != serial);
        self.counted.push((serial, tokens));
    }
}

pub struct Cache {
    map: WeakMap<JsValue, JsValue>,
    entries: Vec<Entry>,
    /// Counter function → serial, so each counter's results are kept apart.
    counters: WeakMap<JsValue, JsValue>,
    next_counter: u32,
}

thread_local! {
    // Created on first use, never at module load (Workers allow no work at global scope).
    static CACHE: RefCell<Option<Cache>> = const { RefCell::new(None) };
}

/// Runs `f` on the cache. `f` must not call into JavaScript code the host wrote (a counter could
/// call `estimate` again and find the cache borrowed).
pub fn with<R>(f: impl FnOnce(&mut Cache) -> R) -> R {
    CACHE.with(|cell| {
        let mut slot = cell.borrow_mut();
        let cache = slot.get_or_insert_with(|| Cache { map: WeakMap::new_typed(), entries: Vec::new(), counters: WeakMap::new_typed(), next_counter: 0 });
        f(cache)
    })
}

impl Cache {
    /// The entry index of a message object, if it was estimated before.
    pub fn lookup(&self, message: &JsValue) -> Option<usize> {
        let i = self.map.get(message).as_f64()?;
        Some(i as usize).filter(|&i| i < self.entries.len())
    }

    pub fn entry(&self, index: usize) -> &Entry {
        &self.entries[index]
    }

    /// Remembers `entry` for `message` (an object; anything else is not cached), keeping the counts
    /// of counters already known for it.
    pub fn insert(&mut self, message: &JsValue, mut entry: Entry) {
        if !message.is_object() {
            return;
        }
        if let Some(i) = self.lookup(message) {
            let fresh = std::mem::replace(&mut entry.counted, std::mem::take(&mut self.entries[i].counted));
            for (serial, tokens) in fresh {
                entry.set_counted(serial, tokens);
            }
            self.entries[i] = entry;
            return;
        }
        if self.entries.len() >= MAX_ENTRIES {
            self.map = WeakMap::new_typed();
            self.entries.clear();
        }
        self.map.set(message, &JsValue::from_f64(self.entries.len() as f64));
        self.entries.push(entry);
    }

    pub fn counter_serial(&mut self, counter: &Function) -> u32 {
        if let Some(s) = self.counters.get(counter.as_ref()).as_f64() {
            return s as u32;
        }
        let serial = self.next_counter;
        self.next_counter += 1;
        self.counters.set(counter.as_ref(), &JsValue::from_f64(f64::from(serial)));
        serial
    }
}
