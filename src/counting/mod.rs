//! Counting tokens without a tokenizer: the scanner sorts text into classes (a crate of its own,
//! compiled for speed), text that is not prose is counted apart (`shapes`), a fitted profile per
//! tokenizer family weighs them (images included, as their provider bills them), and reported usage
//! calibrates the result. Messages' long texts counted lately are found again rather than scanned
//! again (`memo`).

pub mod calibration;
pub mod estimate;
pub mod estimate_cache;
mod memo;
pub mod profiles;
pub use ctxfold_scanner as scanner;
pub use ctxfold_scanner::shapes;
