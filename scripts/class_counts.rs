//! For scripts/fit-profiles.mjs: reads one JSON string per line on stdin and prints the scanner's class
//! counts of each (space-separated, in `Class` order), so the fit uses exactly the scanner that ships. The
//! classes of text that is not prose are measured apart (scripts/fit-shapes.mjs), not fitted.
use ctxfold::counting::scanner::{Counts, CLASS_NAMES, PROSE_CLASSES};
use std::io::{BufRead, BufWriter, Write};

fn main() {
    let stdin = std::io::stdin();
    let mut out = BufWriter::new(std::io::stdout());
    if std::env::args().any(|a| a == "--names") {
        writeln!(out, "{}", CLASS_NAMES.join(" ")).expect("stdout");
        return;
    }
    for line in stdin.lock().lines() {
        let line = line.expect("stdin");
        let text: String = serde_json::from_str(&line).expect("one JSON string per line");
        let counts = Counts::scan(&text).0[..PROSE_CLASSES].iter().map(|n| n.to_string()).collect::<Vec<_>>();
        writeln!(out, "{}", counts.join(" ")).expect("stdout");
    }
}
