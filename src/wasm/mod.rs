//! The JavaScript binding: one small file per export. It converts between JS values and the core's
//! JSON values, turns core errors into JS `Error`s, and builds output arrays from the caller's own
//! objects. It decides nothing.

mod apply_summary;
mod assemble_turn;
mod cache_breakpoints;
mod compact;
mod convert;
mod estimate;
mod plan_compaction;
mod prune;
mod repair;
mod session;
mod summarize_offline;
mod summarizer;
mod validate;

/// talc's allocator rather than the standard library's dlmalloc: 1.9 KiB gzip smaller (measured with
/// scripts/build.mjs's wasm-opt flags). `new_global` is unsafe because it requires single-threaded wasm,
/// which this module is: wasm32-unknown-unknown built without the atomics feature, one instance per
/// JS realm, no threads. Memory that grows while allocating is allowed (talc's own docs).
#[global_allocator]
static ALLOCATOR: talc::TalckWasm = unsafe { talc::TalckWasm::new_global() };
