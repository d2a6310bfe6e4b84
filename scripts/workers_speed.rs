//! `cargo run --release --example workers_speed`: the Workers bench's request natively, step by step. The
//! body is the one `pkg-tests/bench/workers.mjs` sends (OpenAI Chat `{ model, messages }` of corpus agent runs
//! until `estimate` counts 200 000 tokens); each round makes it new (a number at the start of every content
//! string, as the bench's "new body" case) and times what the Worker does with it: read the text, prune,
//! write the pruned text, take it back (the binding keeps what it wrote: `edit::reread`), plan. Median of 100 rounds after 100 warm-up rounds. Prints numbers,
//! asserts nothing; natively the wasm's time is about halved, but where it goes is the same.
#[path = "workers_body.rs"]
mod workers_body;

use ctxfold::compaction::plan::plan_compaction;
use ctxfold::edit::{items_of, materialize_text, reread};
use ctxfold::json::{parse_with_spans, to_text};
use ctxfold::options::Options;
use ctxfold::pruning::prune::prune;
use ctxfold::reading::input::Input;
use serde_json::json;
use std::time::{Duration, Instant};

const STEPS: [&str; 6] =
    ["read the body", "prune", "write the pruned body", "take it back", "plan", "the plan as JSON"];

fn main() {
    let options = Options::from_json(&json!({ "contextWindow": 128_000 })).expect("options");
    let messages = workers_body::messages(&options);
    let body = to_text(&json!({ "model": "gpt-4.1", "messages": messages }));
    println!("a {:.2} MB body of {} messages", body.len() as f64 / 1e6, messages.len());
    let mut rounds: Vec<[Duration; STEPS.len()]> = Vec::new();
    for round in 0..200 {
        let body = body.replace("\"content\":\"", &format!("\"content\":\"{round} "));
        let mut marks = [Instant::now(); STEPS.len() + 1];
        let (value, spans) = parse_with_spans(&body).expect("JSON");
        marks[1] = Instant::now();
        let input = Input::read(&value).expect("a request body");
        let pruned = prune(&input, &options).expect("prune");
        marks[2] = Instant::now();
        let written = materialize_text(
            &pruned.slots,
            &body,
            &spans.items(input.key).expect("messages"),
            items_of(&value, input.key),
        );
        let key = input.key;
        marks[3] = Instant::now();
        let (value, _) = reread(&written.text, &written.at, &pruned.slots, value, spans, key).expect("its own text");
        marks[4] = Instant::now();
        let plan = plan_compaction(&Input::read(&value).expect("a request body"), &options).expect("plan");
        marks[5] = Instant::now();
        std::hint::black_box(to_text(&plan));
        marks[6] = Instant::now();
        if round >= 100 {
            rounds.push(std::array::from_fn(|k| marks[k + 1] - marks[k]));
        }
    }
    let median = |mut v: Vec<Duration>| {
        v.sort();
        v[v.len() / 2].as_secs_f64() * 1000.0
    };
    for (k, step) in STEPS.iter().enumerate() {
        println!("  {step:<22} {:6.2} ms", median(rounds.iter().map(|r| r[k]).collect()));
    }
    println!("  {:<22} {:6.2} ms", "all", median(rounds.iter().map(|r| r.iter().sum()).collect()));
}
