//! JSON text in and out: our reader (the same values and errors as serde_json's, in less wasm) and
//! the writer every result goes through.

pub(crate) mod read;
pub(crate) mod write;

pub use read::{parse, parse_with_spans, power_of_ten, ItemSpans, ParseError, Spans};
pub use write::{to_text, ToJson, Writer};
