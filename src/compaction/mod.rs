//! Compaction: when (`plan`; `topic` for a change of subject), where to cut (`plan`, `strategy`, `pins`), how
//! to ask for the summary (`prompt`, `template`), the host's answer read and cleaned (`answer`) and spliced
//! back (`apply`), what it lost (`facts`, `named` and `constraints`, `audit`; `probe` for a host's own check)
//! and what is restored after it (`restore`; `fact_lines` shows a fact in its line), a summary without an LLM
//! (`digest`), the policy of a whole run (`compact`, `run`, `revise`, `summarizer`), and a run remembered for
//! the next request (`memory`). The types that several of them share, such as ranges, jobs and plans, live in
//! `types`.

pub mod answer;
pub mod apply;
pub mod audit;
pub mod compact;
pub mod constraints;
pub mod digest;
pub mod fact_lines;
pub mod facts;
pub mod fingerprint;
pub mod memory;
pub mod named;
pub mod pins;
pub mod plan;
pub mod probe;
pub mod prompt;
pub mod restore;
pub mod revise;
pub mod run;
pub mod strategy;
pub mod summarizer;
pub mod template;
pub mod topic;
pub mod types;
