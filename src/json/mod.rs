//! JSON text in and out: our reader (the same values and errors as serde_json's, in less wasm; a crate of
//! its own, compiled for speed) and the writer every result goes through.

pub use ctxfold_json_read as read;
pub(crate) mod write;

pub use read::{parse, parse_with_spans, power_of_ten, utf16_len, ItemSpans, ParseError, Spans};
pub use write::{to_text, ToJson, Writer};
