//! For scripts/fit-profiles.mjs: reads one JSON string per line on stdin and prints, for each, the class
//! counts the package weighs (space-separated, in `Class` order: the scanner's classes after the text that
//! is not prose was taken out of them), then that text's own tokens for o200k, cl100k and claude. Those
//! shapes are measured apart (scripts/fit-shapes.mjs), not fitted: the fit takes their tokens off the real
//! counts and fits the scanner's classes on the rest, exactly as the package adds them up.
//!
//! With `--json-marks` or `--code-marks` (for scripts/fit-shapes.mjs), it prints instead the runs of JSON
//! marks, or of minified code's marks, counted in each text, then the tokens of everything else in it for
//! o200k, cl100k and claude: what the runs' cost is fitted against.
use ctxfold::counting::profiles::{CL100K, CLAUDE, O200K};
use ctxfold::counting::scanner::{Class, CLASS_NAMES, PROSE_CLASSES};
use ctxfold::counting::shapes::classes_of;
use std::io::{BufRead, BufWriter, Write};

fn main() {
    let stdin = std::io::stdin();
    let mut out = BufWriter::new(std::io::stdout());
    let flag = |name: &str| std::env::args().any(|a| a == name);
    if flag("--names") {
        writeln!(out, "{}", CLASS_NAMES.join(" ")).expect("stdout");
        return;
    }
    // The runs whose cost is fitted in context, if asked for.
    let marks = if flag("--json-marks") {
        Some(Class::JsonMarks)
    } else if flag("--code-marks") {
        Some(Class::CodeMarks)
    } else {
        None
    };
    for line in stdin.lock().lines() {
        let line = line.expect("stdin");
        let text: String = serde_json::from_str(&line).expect("one JSON string per line");
        let mut counts = classes_of(&text);
        if let Some(class) = marks {
            let runs = std::mem::take(&mut counts.0[class as usize]);
            let rest = [O200K, CL100K, CLAUDE].map(|p| format!("{:.4}", p.weigh(&counts)));
            writeln!(out, "{runs} {}", rest.join(" ")).expect("stdout");
            continue;
        }
        let mut fields: Vec<String> = counts.0[..PROSE_CLASSES].iter().map(|n| n.to_string()).collect();
        counts.0[..PROSE_CLASSES].fill(0);
        fields.extend([O200K, CL100K, CLAUDE].iter().map(|p| format!("{:.4}", p.weigh(&counts))));
        writeln!(out, "{}", fields.join(" ")).expect("stdout");
    }
}
