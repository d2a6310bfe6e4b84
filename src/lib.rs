//! ctxfold: keeps long LLM conversations inside the model's context window.
//!
//! The core modules are pure Rust over `serde_json::Value` and are tested natively; `wasm` is the
//! thin JavaScript binding and holds no behaviour of its own.

pub mod apply;
pub mod breakpoints;
pub mod cache_cost;
pub mod arguments;
pub mod audit;
pub mod compact;
pub mod digest;
pub mod edit;
pub mod error;
pub mod estimate;
pub mod facts;
pub mod fingerprint;
pub mod format;
pub mod input;
pub mod message;
pub mod options;
pub mod order;
pub mod pins;
pub mod plan;
pub mod preset;
pub mod profiles;
pub mod prompt;
pub mod prune;
pub mod strategy;
pub mod summarizer;
pub mod template;
pub mod text;
pub mod tokens;
pub mod turn;
pub mod repair;
pub mod session;
pub mod validate;

#[cfg(test)]
mod fixtures;

#[cfg(target_arch = "wasm32")]
mod wasm;
