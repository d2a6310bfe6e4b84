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

/// An error: its fields are read through `Deref` (`e.code`, `e.path`, `e.message`).
///
/// Boxed so that a `Result<T, Error>` is one pointer wider than `T`: results pass through `?` at
/// hundreds of sites, and an unboxed error was copied field by field at each (about 3 KB of wasm).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(Box<Details>);

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Details {
    pub code: Code,
    pub message: String,
    /// Where the problem is, in the caller's terms (`messages[3].role`, `options.threshold`).
    pub path: String,
}

impl std::ops::Deref for Error {
    type Target = Details;
    fn deref(&self) -> &Details {
        &self.0
    }
}

impl std::ops::DerefMut for Error {
    fn deref_mut(&mut self) -> &mut Details {
        &mut self.0
    }
}

impl Error {
    // Not inlined: errors are built at hundreds of sites, and inlined each would copy the two string
    // conversions into every one of them.
    #[inline(never)]
    pub fn new(code: Code, path: impl Into<String>, message: impl Into<String>) -> Self {
        Error(Box::new(Details { code, path: path.into(), message: message.into() }))
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

/// The path of `field` inside `path` (`messages[3]` and `role` give `messages[3].role`). A function
/// rather than `format!("{path}.{field}")` at each of the fifty places that name a field in an error:
/// one call is much less wasm than building the format arguments there.
#[inline(never)]
pub fn subpath(path: &str, field: &str) -> String {
    let mut out = String::with_capacity(path.len() + 1 + field.len());
    out.push_str(path);
    out.push('.');
    out.push_str(field);
    out
}

/// The path of item `index` of the list at `path` (`messages` and 3 give `messages[3]`), for the same
/// reason as `subpath`.
pub fn item_path(path: &str, index: usize) -> String {
    let mut out = String::new();
    set_item_path(&mut out, path, index);
    out
}

/// `out` set to `item_path(path, index)`. The format readers name every message they read in one string:
/// with a string each, naming them took about an eighth of reading a conversation's format.
#[inline(never)]
pub fn set_item_path(out: &mut String, path: &str, index: usize) {
    // Without `write!`, whose machinery was over a third of reading a message alone (the estimate cache's
    // new messages; pkg-tests/bench/README.md, "Profiling the wasm").
    let mut buffer = [0; 20];
    let digits = crate::json::write::decimal(index as u64, &mut buffer);
    out.clear();
    out.reserve(path.len() + digits.len() + 2);
    out.push_str(path);
    out.push('[');
    out.push_str(digits);
    out.push(']');
}

/// "expected `what`, got `got`'s type": the message of every error about a value of the wrong type.
/// One function instead of a `format!` at each of the forty places (less wasm), and no format pieces
/// repeated in the data.
#[inline(never)]
pub fn expected(what: &str, got: &serde_json::Value) -> String {
    ["expected ", what, ", got ", type_name(got)].concat()
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item_paths_name_the_index_in_decimal() {
        assert_eq!(item_path("messages", 0), "messages[0]");
        assert_eq!(item_path("messages[3].content", 10), "messages[3].content[10]");
        let mut reused = String::from("messages[999].tool_calls[7]");
        set_item_path(&mut reused, "contents", usize::MAX);
        assert_eq!(reused, format!("contents[{}]", usize::MAX));
    }
}
