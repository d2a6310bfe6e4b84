//! The messages of the Workers bench's request body (`pkg-tests/bench/workers.mjs`), for the examples that
//! take its work apart natively: corpus agent runs (mini-swe-agent-tools, then swe-agent), each without its
//! system prompt, put one after another until `estimate` counts 200 000 tokens under `options`.
#[path = "../src/tests/corpus_files.rs"]
mod corpus_files;

use ctxfold::counting::estimate::estimate;
use ctxfold::options::Options;
use ctxfold::reading::input::Input;
use serde_json::Value;

pub fn messages(options: &Options) -> Vec<Value> {
    let mut messages: Vec<Value> = Vec::new();
    for file in ["mini-swe-agent-tools.jsonl", "swe-agent.jsonl"] {
        for (_, conversation) in corpus_files::corpus(file) {
            if estimate(&Input::items(&messages), options).expect("estimate").total >= 200_000 {
                return messages;
            }
            let system_first = |i: usize, m: &Value| i == 0 && m["role"] == "system";
            messages.extend(conversation.into_iter().enumerate().filter(|(i, m)| !system_first(*i, m)).map(|(_, m)| m));
        }
    }
    messages
}
