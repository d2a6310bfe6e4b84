//! ctxfold: keeps long LLM conversations inside the model's context window.
//!
//! The core modules are pure Rust over `serde_json::Value` and are tested natively; `wasm` is the
//! thin JavaScript binding and holds no behaviour of its own.

// Reading what the host passed: the request body, the five formats, the message view, options.
pub mod error;
pub mod format;
pub mod input;
pub mod message;
pub mod options;
pub mod preset;

// Counting: the scanner and its fitted profiles, the estimate and its calibration.
pub mod calibration;
pub mod estimate;
pub mod image;
pub mod profiles;
pub mod tokens;

// Checking and fixing a history before it is sent.
pub mod repair;
pub mod validate;

// Shortening without an LLM, every turn.
pub mod arguments;
pub mod prune;

// Compaction: where to cut, what stays verbatim, the prompt, the summary spliced back, and what a
// summary lost.
pub mod apply;
pub mod audit;
pub mod compact;
pub mod digest;
pub mod facts;
pub mod fingerprint;
pub mod pins;
pub mod plan;
pub mod prompt;
pub mod strategy;
pub mod summarizer;
pub mod template;

// The provider's prompt cache: what an edit costs, where the markers go, the next turn, a session.
pub mod breakpoints;
pub mod cache_cost;
pub mod session;
pub mod turn;

// Shared by all: the edits an operation returns, ordering, small text helpers.
pub mod edit;
pub mod order;
pub mod text;
pub mod json;
pub mod to_json;

#[cfg(test)]
mod fixtures;

#[cfg(target_arch = "wasm32")]
mod wasm;
