//! Reading ../shared/corpus, shared by the test files that run over it (each includes this module).

use serde_json::Value;
use std::path::PathBuf;

/// The conversations of one corpus file, with their ids, in file order.
pub fn corpus(file: &str) -> Vec<(String, Vec<Value>)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus").join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("the corpus must sit at {} (beside the repo): {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            let id = v["id"].as_str().unwrap_or("?").to_string();
            (id, v["messages"].take().as_array().cloned().unwrap())
        })
        .collect()
}
