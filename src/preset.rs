//! Presets: the compaction of well-known systems as option bundles (`preset: "claude-code"`). Each
//! sets only options that exist on their own, so a preset is a shorthand, never a hidden mode, and any
//! option the caller gives explicitly overrides it. The numbers are the systems' documented ones;
//! `src/tests/presets.rs` checks each preset reproduces them.

use crate::error::{Error, Result};
use crate::options::{Options, Shape, SplitAt, Strategy};
use crate::template::Template;

pub const NAMES: [&str; 5] = ["opencode", "spring-ai", "claude-code", "gemini-cli", "smart"];

pub fn options(name: &str) -> Result<Options> {
    let base = Options::default();
    let preset = NAMES.iter().find(|n| **n == name).copied().ok_or_else(|| {
        Error::option("options.preset", format!("unknown preset {name:?}; expected one of {}", NAMES.join(", ")))
    })?;
    let o = match preset {
        // OpenCode: prune old tool outputs (newest 20K tokens protected, only when 10K or more would go);
        // compact when the input would overflow the window minus the 32K kept for the answer; the summary
        // comes back as the assistant's answer to "What did we do so far?".
        "opencode" => Options {
            protect_tokens: 20_000,
            minimum_prune_tokens: 10_000,
            threshold: 1.0,
            reserved_output: Some(32_000),
            keep_recent_turns: 1,
            split_at: SplitAt::User,
            summary_shape: Shape::Exchange,
            ..base
        },
        // A Java ReAct agent's ContextCompactor. Layer 1, every round: the newest 4 tool outputs stay and
        // older ones become "[truncated: N chars]", their calls' arguments cut at 200 characters, except
        // protected tools (Skill). Layer 2 above 60 000
        // tokens: everything but the system prompt and the recent rounds becomes one system message that
        // starts with 【历史摘要】, written with the user's current question in view.
        "spring-ai" => Options {
            protect_results: 4,
            max_argument_chars: Some(200),
            protect_tokens: 0,
            minimum_prune_tokens: 0,
            placeholder: "[truncated: {chars} chars]".into(),
            protected_tools: vec!["Skill".into()],
            threshold: 1.0,
            threshold_tokens: Some(60_000),
            keep_recent_turns: 2,
            summary_shape: Shape::System,
            summary_prefix: Some("【历史摘要】".into()),
            include_latest_request: true,
            ..base
        },
        // Claude Code: compact at 70% of the window, urgently at 90%; keep the last 4 turns or 20K tokens;
        // the largest runs of tool exchanges are summarized first, each to about a fifth; user and
        // assistant text stay; summaries are never summarized again.
        "claude-code" => Options {
            threshold: 0.70,
            hard_threshold: Some(0.90),
            keep_recent_turns: 4,
            keep_recent_tokens: Some(20_000),
            strategy: Strategy::Regions,
            resummarize: false,
            template: Template::Progress,
            ..base
        },
        // Gemini CLI: compress at 70% of the window, keep the newest 30% of the tokens, split only before a
        // user message; the summary is an XML state snapshot sent as a user turn that the model acknowledges.
        "gemini-cli" => Options {
            threshold: 0.70,
            keep_fraction: Some(0.30),
            keep_recent_turns: 0,
            split_at: SplitAt::User,
            template: Template::Snapshot,
            summary_shape: Shape::Acknowledged,
            ..base
        },
        // SmartCompactor: critical messages stay verbatim (file writes and code runs, errors, the user's
        // constraints); the rest is summarized in chunks of about 20 messages, then joined.
        _ => Options { keep_critical: true, strategy: Strategy::Hierarchical, chunk_messages: 20, ..base },
    };
    Ok(Options { preset: Some(preset), ..o })
}
