//! The one error type of the core. Every failure carries a stable `code` (hosts branch on it), a
//! human message, and the path of the offending field (`messages[12].tool_calls[0].id`), so the
//! binding can throw a JS `Error` that says exactly where the problem is.

use std::fmt;

/// Stable error codes. They are part of the public contract: add to them, never rename.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// The messages (or another input) are not of an accepted shape.
    InvalidInput,
    /// An option has the wrong type or an impossible value.
    InvalidOption,
    /// The plan object is not one `plan_compaction` made, or it was edited.
    InvalidPlan,
    /// The messages changed, other than by appending, since the plan was made.
    StalePlan,
    /// The summary was empty (or only whitespace).
    SummaryEmpty,
    /// The summary is not in the form the plan's template asked for (a snapshot without its element).
    SummaryMalformed,
    /// Splicing the summary in would not make the history smaller.
    SummaryNotSmaller,
    /// The plan says no compaction is needed or possible, so there is nothing to apply.
    NothingToApply,
    /// The input is larger than `input::MAX_INPUT_CHARS`: refused before it is copied into memory.
    InputTooLarge,
    /// Over the limit, and nothing is left to compact: only earlier summaries, which the options say
    /// are not summarized again (`resummarize: false`), pinned messages and the recent tail remain.
    CannotCompactFurther,
}

impl Code {
    pub fn as_str(self) -> &'static str {
        match self {
            Code::InvalidInput => "INVALID_INPUT",
            Code::InvalidOption => "INVALID_OPTION",
            Code::InvalidPlan => "INVALID_PLAN",
            Code::StalePlan => "STALE_PLAN",
            Code::SummaryEmpty => "SUMMARY_EMPTY",
            Code::SummaryMalformed => "SUMMARY_MALFORMED",
            Code::SummaryNotSmaller => "SUMMARY_NOT_SMALLER",
            Code::NothingToApply => "NOTHING_TO_APPLY",
            Code::InputTooLarge => "INPUT_TOO_LARGE",
            Code::CannotCompactFurther => "CANNOT_COMPACT_FURTHER",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub code: Code,
    pub message: String,
    /// Where the problem is, in the caller's terms (`messages[3].role`, `options.threshold`).
    pub path: String,
}

impl Error {
    pub fn new(code: Code, path: impl Into<String>, message: impl Into<String>) -> Self {
        Error { code, path: path.into(), message: message.into() }
    }
    pub fn input(path: impl Into<String>, message: impl Into<String>) -> Self {
        Error::new(Code::InvalidInput, path, message)
    }
    pub fn option(path: impl Into<String>, message: impl Into<String>) -> Self {
        Error::new(Code::InvalidOption, path, message)
    }
    pub fn plan(path: impl Into<String>, message: impl Into<String>) -> Self {
        Error::new(Code::InvalidPlan, path, message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}: {}", self.code.as_str(), self.path, self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

/// A short description of a JSON value's type, for messages like "expected a string, got number".
pub fn type_name(v: &serde_json::Value) -> &'static str {
    use serde_json::Value::*;
    match v {
        Null => "null",
        Bool(_) => "boolean",
        Number(_) => "number",
        String(_) => "string",
        Array(_) => "array",
        Object(_) => "object",
    }
}
