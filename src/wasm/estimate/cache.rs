//! The per-message cache behind `estimate`: what each message object cost.
//!
//! scripts/entries/estimate.js keeps a `WeakMap` (so a message the host drops is forgotten with it) from
//! each message object to the id of its entry here, and looks a whole array up in one JavaScript loop:
//! a history of 10 000 cached messages costs that loop and one pass over the entries here. An entry is
//! plain Rust data, without the message's text: its tokens under each profile, the formats its shape
//! admits, its tool-call and result ids (to re-link a history of cached messages), the length of its
//! JSON (for the input-size limit) and, with a host counter, that counter's exact count.
//!
//! Entries are never freed one by one. When the next call would go past `MAX_ENTRIES`, the cache starts
//! over in a new generation, and the JavaScript half with a new map, so memory stays bounded on a server
//! that sees many conversations, and an id is never read from the wrong generation.

use crate::counting::estimate::MessageSize;
use crate::counting::profiles::PROFILES;
use crate::reading::format::{Format, FormatSet};
use crate::reading::message::Message;
use js_sys::{Function, WeakMap};
use std::cell::RefCell;
use wasm_bindgen::JsValue;

/// About 100 bytes each beside their ids: at most about 10 MB of WebAssembly memory.
pub const MAX_ENTRIES: usize = 100_000;

/// What the estimate needs of a message, without its text.
#[derive(Debug)]
pub struct Entry {
    /// Its tokens under each of `PROFILES`, framing included: per call, a cached message costs a read.
    pub tokens: [u32; PROFILES.len()],
    /// The format it was read in: an entry read in another format is not reused.
    pub format: Format,
    /// The formats its shape admits, for detection.
    pub admits: FormatSet,
    /// Characters of its JSON text, as `JSON.stringify` counts them.
    pub json_len: u32,
    /// Its tokens by a host counter, under each profile's framing: (counter serial, tokens).
    pub counted: Option<(u32, [u32; PROFILES.len()])>,
    calls: Box<[Box<str>]>,
    results: Box<[Box<str>]>,
}

impl Entry {
    pub fn new(m: &Message, size: &MessageSize, format: Format, admits: FormatSet, json_len: u32) -> Entry {
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
    pub fn tokens(&self, index: usize, serial: Option<u32>) -> Option<u32> {
        match (serial, self.counted) {
            (None, _) => Some(self.tokens[index]),
            (Some(s), Some((by, counted))) if by == s => Some(counted[index]),
            _ => None,
        }
    }

    /// Whether it has tool calls or results: only those take part in linking.
    pub fn links(&self) -> bool {
        !self.calls.is_empty() || !self.results.is_empty()
    }

    /// Its tool-call ids and the ids its results answer, for re-linking.
    pub fn ids(&self) -> (impl Iterator<Item = &str>, impl Iterator<Item = &str>) {
        (self.calls.iter().map(|id| &**id), self.results.iter().map(|id| &**id))
    }
}

/// Whether a message's ids are made from its position (Gemini calls without ids, legacy
/// `function_call`): such a message reads differently elsewhere in the history, so it is never cached.
pub fn positional(m: &Message) -> bool {
    m.tool_calls.iter().any(|c| c.id.contains('@')) || m.tool_results.iter().any(|r| r.id.contains('@'))
}

pub struct Cache {
    /// Bumped by `clear`: ids read before a clear must not be looked up after it.
    pub generation: u32,
    /// By id: the JavaScript half maps each message object to its entry's index here.
    pub entries: Vec<Entry>,
    /// Counter function → serial, so each counter's counts are kept apart.
    counters: WeakMap,
    next_counter: u32,
}

impl Cache {
    fn new() -> Cache {
        Cache { generation: 0, entries: Vec::new(), counters: WeakMap::new(), next_counter: 1 }
    }

    /// Forgets every message (the counters keep their serials).
    pub fn clear(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        self.entries = Vec::new();
    }

    /// The serial of a counter function, the same for the same function object.
    pub fn counter_serial(&mut self, f: &Function) -> u32 {
        if let Some(n) = self.counters.get(f).as_f64() {
            return n as u32;
        }
        let serial = self.next_counter;
        self.next_counter += 1;
        self.counters.set(f, &JsValue::from(serial));
        serial
    }
}

thread_local! {
    // Created on first use, never at module load (Workers allow no work at global scope).
    static CACHE: RefCell<Option<Cache>> = const { RefCell::new(None) };
}

/// Runs `f` on the cache. Never call the host (its counter may call `estimate` again) inside `f`.
pub fn with<T>(f: impl FnOnce(&mut Cache) -> T) -> T {
    CACHE.with(|c| f(c.borrow_mut().get_or_insert_with(Cache::new)))
}
