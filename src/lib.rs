//! ctxfold: keeps long LLM conversations inside the model's context window.
//!
//! The core is pure Rust over `serde_json::Value`, tested natively; `wasm` is the JavaScript binding,
//! which converts values and errors and decides nothing. Each folder is one subsystem:
//!
//! - `reading`: the request body, the five provider formats, the message view;
//! - `options`: what the caller asks for, presets included;
//! - `counting`: the scanner, fitted profiles, images, estimates and calibration;
//! - `checking`: validate and repair;
//! - `pruning`: clearing old tool outputs and cutting long arguments;
//! - `compaction`: plan, prompt, apply, audit, the offline digest and the policy of a run;
//! - `prompt_cache`: cache costs, breakpoints, the next turn, sessions;
//! - `json`: JSON text in and out.
//!
//! The files beside them are used by every subsystem: errors, edits, ordering, finding text in text and small text helpers.

pub mod checking;
pub mod compaction;
pub mod counting;
pub mod options;
pub mod prompt_cache;
pub mod pruning;
pub mod reading;

pub mod edit;
pub mod error;
pub mod find;
pub mod json;
pub mod order;
pub mod text;

#[cfg(test)]
mod fixtures;

#[cfg(target_arch = "wasm32")]
mod wasm;
