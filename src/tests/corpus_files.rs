//! Reading the corpus of real conversations (pkg-tests/corpus, gzipped JSONL; its README says what each
//! file is), shared by the test files and examples that run over it (each includes this module).
#![allow(dead_code)] // each includer uses part of it

use flate2::read::GzDecoder;
use serde_json::Value;
use std::io::Read;
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("pkg-tests/corpus")
}

/// The corpus files, by name without `.jsonl.gz`, sorted.
pub fn corpus_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .unwrap_or_else(|e| panic!("the corpus at {}: {e}", dir().display()))
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.strip_suffix(".jsonl.gz").map(String::from))
        .collect();
    names.sort();
    names
}

/// The JSONL text of one corpus file (`file`: its name, with or without `.jsonl`).
pub fn corpus_text(file: &str) -> String {
    let path = dir().join(format!("{}.jsonl.gz", file.trim_end_matches(".jsonl")));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("the corpus file {}: {e}", path.display()));
    let mut text = String::new();
    GzDecoder::new(&bytes[..]).read_to_string(&mut text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text
}

/// The conversations of one corpus file, with their ids, in file order.
pub fn corpus(file: &str) -> Vec<(String, Vec<Value>)> {
    corpus_text(file)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            let id = v["id"].as_str().unwrap_or("?").to_string();
            (id, v["messages"].take().as_array().cloned().unwrap())
        })
        .collect()
}
