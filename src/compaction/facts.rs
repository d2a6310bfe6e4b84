//! Salient facts of a stretch of conversation, found without an LLM: file paths, commands, error
//! lines. The offline digest is built from them, and the audit checks a summary kept them.

use crate::find::find;
use crate::reading::message::ToolCall;
use crate::text::one_line;
use serde_json::Value;

const EXTENSIONS: &[&str] = &[
    "py", "rs", "js", "mjs", "cjs", "ts", "tsx", "jsx", "json", "md", "txt", "toml", "yaml", "yml", "cfg", "ini", "c",
    "h", "cc", "cpp", "hpp", "go", "java", "kt", "rb", "php", "sh", "html", "css", "scss", "sql", "lock", "xml", "csv",
    "rst", "ipynb", "swift", "vue", "svelte", "log", "env", "pyi", "pyx",
];

/// File paths mentioned in `text`, in order of first appearance, without duplicates.
pub fn paths(text: &str, out: &mut Vec<String>) {
    // `matches!`, not a string's `contains`: that searches the string for every character of the text.
    let separators = |c: char| {
        crate::text::is_space(c)
            || matches!(c, '"' | '\'' | '`' | '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>' | ',' | ';' | '=' | '|')
    };
    for (start, end) in crate::text::runs(text, |c| !separators(c)) {
        // Most words have neither a slash nor a dot: told from the run, before trimming (which leaves a word
        // a slash or a dot only where its run has one).
        if !may_be_path(&text[start..end]) {
            continue;
        }
        let word = text[start..end].trim_start_matches(':').trim_end_matches(['.', ':', ',', '!', '?']);
        if is_path(word) && !out.iter().any(|p| p == word) {
            out.push(word.to_string());
        }
    }
}

/// A path has three bytes at least and a slash or an extension's dot: most words end here, before any
/// per-character test.
fn may_be_path(w: &str) -> bool {
    w.len() >= 3 && w.bytes().any(|b| b == b'/' || b == b'.')
}

pub fn is_path(w: &str) -> bool {
    if !may_be_path(w) || w.len() > 200 {
        return false;
    }
    if w.contains("://") || w.starts_with("--") {
        return false;
    }
    let allowed = |c: char| c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '~' | '+' | '@');
    if !w.chars().all(allowed) || !w.chars().any(char::is_alphabetic) {
        return false;
    }
    let last = w.rsplit('/').next().unwrap_or(w);
    let has_extension = last
        .rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()));
    let rooted = (w.starts_with('/') || w.starts_with("./") || w.starts_with("~/")) && w.len() > 3;
    has_extension || (rooted && w.matches('/').count() >= 2)
}

/// Signs of a line that reports an error, specific enough that imports and identifiers (`from x import
/// ShapeError`) do not match.
const ERROR_SIGNS: &[&str] = &[
    "Error:",
    "error:",
    "ERROR",
    "Exception:",
    "Traceback",
    "FAILED",
    "fatal:",
    "panicked",
    "command not found",
    "No such file",
    "Permission denied",
];

/// Lines that report an error, in order, trimmed and cut to one short line each. Each sign is looked for
/// once in the whole text: a tool output has thousands of lines, and a search per line and sign costs a
/// setup each. A loop rather than an iterator chain: each caller's use of one would compile its own copy.
pub fn error_lines(text: &str) -> Vec<String> {
    let mut starts = Vec::new();
    for sign in ERROR_SIGNS {
        let mut from = 0;
        while let Some(at) = find(&text[from..], sign).map(|at| from + at) {
            starts.push(text[..at].rfind('\n').map_or(0, |n| n + 1));
            // On to the next line: one sign is enough for this one.
            from = text[at..].find('\n').map_or(text.len(), |n| at + n);
        }
    }
    let mut starts = crate::order::sorted(starts);
    starts.dedup(); // a line with two signs
    let mut out = Vec::with_capacity(starts.len());
    for start in starts {
        let end = text[start..].find('\n').map_or(text.len(), |n| start + n);
        out.push(one_line(text[start..end].trim(), 200));
    }
    out
}

/// Whether `text` has a line that reports an error.
pub fn has_error_line(text: &str) -> bool {
    ERROR_SIGNS.iter().any(|sign| find(text, sign).is_some())
}

/// A tool call as one short line: its shell command when it has one, else its arguments.
pub fn command_line(call: &ToolCall) -> String {
    let args = crate::json::parse(&call.arguments).ok();
    let command = args.as_ref().and_then(|a| {
        ["command", "cmd", "code", "query", "path", "file_path", "url"]
            .iter()
            .find_map(|k| a.get(*k).and_then(Value::as_str))
    });
    match command {
        Some(c) => format!("{}: {}", call.name, one_line(c, 160)),
        None => format!("{}({})", call.name, one_line(&call.arguments, 160)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_lines_are_the_lines_holding_a_sign_in_order_each_once() {
        let by_line = |text: &str| -> Vec<String> {
            let holds = |l: &str| ERROR_SIGNS.iter().any(|s| l.contains(s));
            text.lines().map(str::trim).filter(|l| !l.is_empty() && holds(l)).map(|l| one_line(l, 200)).collect()
        };
        for text in [
            "ok\nTraceback (most recent call last):\n  File \"a.py\"\nValueError: bad\n",
            "ERROR: x FAILED and fatal: y\r\nfine\r\n  error: z  ",
            "Error:",
            "no sign here\n\n",
            "bash: foo: command not found\nls: cannot access 'x': No such file or directory",
            "  \tPermission denied\n\u{3000}panicked at src/main.rs",
        ] {
            assert_eq!(error_lines(text), by_line(text), "{text:?}");
            assert_eq!(has_error_line(text), !by_line(text).is_empty(), "{text:?}");
        }
    }

    #[test]
    fn finds_paths_not_prose() {
        let mut out = Vec::new();
        paths("Edited src/app.py and ./tests/test_app.py; see /usr/lib/python3/x and and/or, 1/2, https://x.io/a.py. Also `setup.cfg`.", &mut out);
        assert_eq!(out, ["src/app.py", "./tests/test_app.py", "/usr/lib/python3/x", "setup.cfg"]);
    }

    #[test]
    fn finds_error_lines() {
        let text = "ok\nTraceback (most recent call last):\n  x\nIndexError: tuple index out of range\n";
        let lines = error_lines(text);
        assert_eq!(lines, ["Traceback (most recent call last):", "IndexError: tuple index out of range"]);
    }

    #[test]
    fn commands_are_one_line() {
        let call = ToolCall {
            id: "1".into(),
            name: "bash",
            arguments: r#"{"command":"cd /repo &&\n pytest -x"}"#.into(),
            path: String::new(),
        };
        assert_eq!(command_line(&call), "bash: cd /repo && pytest -x");
    }
}
