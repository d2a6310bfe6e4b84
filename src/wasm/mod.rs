//! The JavaScript binding: one small file per export. It converts between JS values and the core's
//! JSON values, turns core errors into JS `Error`s, and builds output arrays from the caller's own
//! objects. It decides nothing.

mod apply_summary;
mod assemble_turn;
mod binary;
mod cache_breakpoints;
mod compact;
mod context_overflow;
mod convert;
mod estimate;
mod memory;
mod plan_compaction;
mod prelude;
mod prune;
mod quality_probe;
mod repair;
mod session;
mod summarize_offline;
mod summarizer;
mod text;
mod validate;

// The standard allocator (dlmalloc), on purpose: talc saved 1.9 KiB gzip but made `estimate` about a
// quarter slower and apply and the digest 4× slower per message at 100 000 messages (npm run bench).
// Free lists per size class in front of dlmalloc (blocks up to 512 bytes, slabs never given back) made the
// text path 0.96 of its time and prune → plan in workerd 0.94 to 0.97, but kept what each class once held:
// after six histories of 0.7 to 5 MB in a row, 48.8 MB of memory against dlmalloc's 40.0. Up to 128 bytes (JSON
// objects' tree nodes left to dlmalloc) it kept no more and was no faster.

/// Runs once, when the module is instantiated: only sets the panic hook (no I/O, nothing a Worker's
/// global scope forbids). The core is written never to panic; should it, the host's console gets the
/// message and where, and the call still fails with a `RuntimeError`.
#[wasm_bindgen::prelude::wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}
