//! Shortening without an LLM, cheap enough for every turn: old tool outputs become placeholders and
//! over-long tool-call arguments are cut.

pub mod arguments;
pub mod prune;
