//! Presets: the compaction of well-known systems as option bundles (`preset: "claude-code"`). Each
//! sets only options that exist on their own, so a preset is a shorthand, never a hidden mode, and any
//! option the caller gives explicitly overrides it. The numbers are the systems' documented ones;
//! `src/tests/presets.rs` checks each preset reproduces them.

use super::values::{Options, Shape, SplitAt, Strategy};
use crate::compaction::template::Template;
use crate::error::{Error, Result};

pub const NAMES: [&str; 5] = ["opencode", "spring-ai", "claude-code", "gemini-cli", "smart"];

pub fn options(name: &str) -> Result<Options> {
    let preset = NAMES.iter().find(|n| **n == name).copied().ok_or_else(|| {
        Error::option(
            "options.preset",
            format!("unknown preset {}; expected one of {}", crate::text::quoted(name), NAMES.join(", ")),
        )
    })?;
    // Fields set one by one on the defaults, not `Options { .., ..base }`: that form copies the whole
    // struct in each arm (smaller wasm).
    let mut o = Options::default();
    match preset {
        // OpenCode: prune old tool outputs (newest 20K tokens protected, only when 10K or more would go);
        // compact when the input would overflow the window minus the 32K kept for the answer; the summary
        // comes back as the assistant's answer to "What did we do so far?".
        "opencode" => {
            o.protect_tokens = 20_000;
            o.minimum_prune_tokens = 10_000;
            o.threshold = 1.0;
            o.reserved_output = Some(32_000);
            o.keep_recent_turns = 1;
            o.split_at = SplitAt::User;
            o.summary_shape = Shape::Exchange;
        }
        // A Java ReAct agent's ContextCompactor. Layer 1, every round: the newest 4 tool outputs stay and
        // older ones become "[truncated: N chars]", their calls' arguments cut at 200 characters, except
        // protected tools (Skill). Layer 2 above 60 000
        // tokens: everything but the system prompt and the recent rounds becomes one system message that
        // starts with 【历史摘要】, written with the user's current question in view.
        "spring-ai" => {
            o.protect_results = 4;
            o.max_argument_chars = Some(200);
            o.protect_tokens = 0;
            o.minimum_prune_tokens = 0;
            o.placeholder = "[truncated: {chars} chars]".into();
            o.protected_tools = vec!["Skill".into()];
            o.threshold = 1.0;
            o.threshold_tokens = Some(60_000);
            o.keep_recent_turns = 2;
            o.summary_shape = Shape::System;
            o.summary_prefix = Some("【历史摘要】".into());
            o.include_latest_request = true;
        }
        // Claude Code: compact at 70% of the window, urgently at 90%; keep the last 4 turns or 20K tokens;
        // the largest runs of tool exchanges are summarized first, each to about a fifth; user and
        // assistant text stay; summaries are never summarized again.
        "claude-code" => {
            o.threshold = 0.70;
            o.hard_threshold = Some(0.90);
            o.keep_recent_turns = 4;
            o.keep_recent_tokens = Some(20_000);
            o.strategy = Strategy::Regions;
            o.resummarize = false;
            o.template = Template::Progress;
        }
        // Gemini CLI: compress at 70% of the window, keep the newest 30% of the tokens, split only before a
        // user message; the summary is an XML state snapshot sent as a user turn that the model acknowledges.
        "gemini-cli" => {
            o.threshold = 0.70;
            o.keep_fraction = Some(0.30);
            o.keep_recent_turns = 0;
            o.split_at = SplitAt::User;
            o.template = Template::Snapshot;
            o.summary_shape = Shape::Acknowledged;
        }
        // SmartCompactor: critical messages stay verbatim (file writes and code runs, errors, the user's
        // constraints); the rest is summarized in chunks of about 20 messages, then joined.
        _ => {
            o.keep_critical = true;
            o.strategy = Strategy::Hierarchical;
            o.chunk_messages = 20;
        }
    }
    o.preset = Some(preset);
    Ok(o)
}
