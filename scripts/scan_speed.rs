//! `cargo run --release --example scan_speed`: the scanner's speed natively, over the texts the
//! benchmark weighs (every message's content, name, tool-call names and arguments in pkg-tests/corpus),
//! best of several passes. Prints numbers, asserts nothing.
#[path = "../src/tests/corpus_files.rs"]
mod corpus_files;

use ctxfold::counting::scanner::Counts;
use ctxfold::counting::shapes::classes_of;
use serde_json::Value;
use std::time::Instant;

/// The texts of one message, as scripts/corpus-texts.mjs `messageTexts` takes them.
fn message_texts(m: &Value, out: &mut Vec<String>) {
    match &m["content"] {
        Value::String(s) => out.push(s.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter(|p| p["type"] == "text" || p["type"] == "refusal")
                .filter_map(|p| p["text"].as_str().or(p["refusal"].as_str()))
                .collect();
            out.push(texts.join("\n"));
        }
        _ => {}
    }
    if let Some(name) = m["name"].as_str() {
        out.push(name.to_string());
    }
    for call in m["tool_calls"].as_array().into_iter().flatten() {
        for key in ["name", "arguments"] {
            out.push(call["function"][key].as_str().unwrap_or("").to_string());
        }
    }
}

fn main() {
    let mut texts = Vec::new();
    for file in corpus_files::corpus_names() {
        let body = corpus_files::corpus_text(&file);
        for line in body.lines().filter(|l| !l.trim().is_empty()) {
            let conv: Value = serde_json::from_str(line).expect("one JSON conversation per line");
            conv["messages"].as_array().into_iter().flatten().for_each(|m| message_texts(m, &mut texts));
        }
    }
    texts.retain(|t| !t.is_empty());
    let bytes: usize = texts.iter().map(String::len).sum();
    let ascii: usize = texts.iter().map(|t| t.bytes().filter(u8::is_ascii).count()).sum();
    let passes = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10);
    let mb = bytes as f64 / 1e6;
    println!(
        "{} texts, {mb:.1} MB ({:.1}% ASCII bytes), best of {passes} passes",
        texts.len(),
        100.0 * ascii as f64 / bytes as f64
    );
    let (ascii_texts, other_texts): (Vec<&String>, Vec<&String>) = texts.iter().partition(|t| t.is_ascii());
    for (label, set) in [
        ("all texts", texts.iter().collect()),
        ("ASCII-only texts", ascii_texts),
        ("texts with non-ASCII", other_texts),
    ] {
        let (ms, rate, checksum) = time(&set, passes);
        println!(
            "  {label:<22} classes_of {ms:>7.1} ms per pass, {rate:>5.0} MB/s  (checksum of the counts: {checksum})"
        );
    }
}

/// Best time of `passes` passes over `texts` (ms), the rate (MB/s) and a checksum of the counts, which
/// must not change when only the speed does.
fn time(texts: &[&String], passes: usize) -> (f64, f64, u64) {
    let mut best = f64::INFINITY;
    let mut total = Counts::default();
    for _ in 0..passes {
        let started = Instant::now();
        let mut sum = Counts::default();
        for t in texts {
            sum.add(&classes_of(std::hint::black_box(t)));
        }
        best = best.min(started.elapsed().as_secs_f64());
        total = std::hint::black_box(sum);
    }
    let mb = texts.iter().map(|t| t.len()).sum::<usize>() as f64 / 1e6;
    (best * 1e3, mb / best, total.0.iter().map(|&n| u64::from(n)).sum())
}
