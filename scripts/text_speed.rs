//! `cargo run --release --example text_speed`: `estimate` on JSON text natively, step by step, over
//! the conversations the estimate bench times (every corpus group but the prose), each as the bench
//! gives it (`JSON.stringify(messages)`): read the text into values, read the format, count. Best of
//! several passes. Prints numbers, asserts nothing.
#[path = "../src/tests/corpus_files.rs"]
mod corpus_files;

use ctxfold::counting::estimate::estimate;
use ctxfold::json::{parse_with_spans, to_text};
use ctxfold::options::Options;
use ctxfold::reading::format;
use ctxfold::reading::input::Input;
use serde_json::{json, Value};
use std::time::Instant;

fn main() {
    let options = Options::from_json(&json!({})).expect("options");
    let mut bodies = Vec::new();
    for file in corpus_files::corpus_names().into_iter().filter(|f| f != "prose-en") {
        for (_, conversation) in corpus_files::corpus(&file) {
            bodies.push(to_text(&Value::Array(conversation)));
        }
    }
    let mb = bodies.iter().map(String::len).sum::<usize>() as f64 / 1e6;
    println!("{} bodies, {mb:.1} MB", bodies.len());
    let passes = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(5);
    let mut best = [f64::INFINITY; 4];
    for _ in 0..passes {
        let mut spent = [0.0; 4];
        for body in &bodies {
            let t0 = Instant::now();
            let (value, _spans) = parse_with_spans(std::hint::black_box(body)).expect("JSON");
            let t1 = Instant::now();
            let input = Input::read(&value).expect("input");
            let conv = format::read(&input, None).expect("format");
            std::hint::black_box(&conv);
            let t2 = Instant::now();
            std::hint::black_box(estimate(&input, &options).expect("estimate"));
            let t3 = Instant::now();
            spent[0] += (t1 - t0).as_secs_f64();
            spent[1] += (t2 - t1).as_secs_f64();
            spent[2] += (t3 - t2).as_secs_f64();
            spent[3] += (t3 - t0).as_secs_f64();
        }
        for k in 0..4 {
            best[k] = best[k].min(spent[k]);
        }
    }
    for (k, step) in
        ["parse (values and spans)", "read the format", "estimate (reads the format again)", "all"].iter().enumerate()
    {
        println!("  {step:<34} {:7.1} ms", best[k] * 1000.0);
    }
}
