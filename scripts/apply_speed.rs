//! `cargo run --release --example apply_speed`: `apply_summary` natively on the Workers bench's body (OpenAI
//! Chat messages of corpus agent runs until `estimate` counts 200 000 tokens), planned for a 128 000-token
//! window, with a one-sentence summary per job: the audit and the restoring of what the summary lost, most
//! of an apply's time. Median of 60 runs. Prints numbers, asserts nothing; for `perf record` (with
//! `CARGO_PROFILE_RELEASE_DEBUG=true`), to see where an apply's time goes.
#[path = "workers_body.rs"]
mod workers_body;

use ctxfold::compaction::apply::apply_summary;
use ctxfold::compaction::plan::plan_compaction;
use ctxfold::json::to_text;
use ctxfold::options::Options;
use ctxfold::reading::input::Input;
use serde_json::{json, Value};
use std::time::Instant;

const SUMMARY: &str = "The user and the assistant worked on the task.";

fn main() {
    let options = Options::from_json(&json!({ "contextWindow": 128_000 })).expect("options");
    let messages = workers_body::messages(&options);
    let input = Input::items(&messages);
    // The plan as a host hands it back: its JSON.
    let plan: Value = serde_json::from_str(&to_text(&plan_compaction(&input, &options).expect("plan"))).expect("JSON");
    let jobs = plan["jobs"].as_array().map_or(0, Vec::len);
    let summary = match jobs {
        1 => json!(SUMMARY),
        n => json!(vec![SUMMARY; n]),
    };
    let mut times = Vec::new();
    for _ in 0..60 {
        let t = Instant::now();
        std::hint::black_box(apply_summary(&input, &plan, &summary).expect("apply"));
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    println!("{} messages, {jobs} job(s): apply_summary median {:.2} ms", messages.len(), times[times.len() / 2]);
}
