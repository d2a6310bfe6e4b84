//! `compact`'s decisions, without its async calls: given a plan and what the host's summarizer gave for
//! each job (a text, or nothing usable), pick each job's summary, falling back to the offline digest,
//! and apply. The binding (`src/wasm/compact.rs`) calls the summarizer and reports what this decided.

use crate::compaction::apply::{apply_with_facts, offline_with_facts, Applied};
use crate::compaction::restore::PlanFacts;
use crate::compaction::template::{Template, SNAPSHOT_TAG};
use crate::compaction::types::{PlanRef, Range};
use crate::error::{Code, Error, Result};
use crate::reading::input::Input;
use serde_json::{Map, Value};

/// What the summarizer gave for one job.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Text(String),
    /// It threw, rejected, or returned something other than a string.
    Failed,
}

/// Where a job's summary came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Llm,
    Offline,
    /// No summary: the range was dropped, with a notice in its place (`fallback: "truncate"`).
    Truncated,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Llm => "llm",
            Source::Offline => "offline",
            Source::Truncated => "truncated",
        }
    }
}

/// What stands in for a job whose summary failed: the offline digest, or (Claude Code's way) a notice
/// that the range was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    Digest,
    Truncate,
}

impl Fallback {
    /// The host's `fallback` option ("offline", "truncate", "none" or absent) for options made from
    /// `preset`: None means the summarizer's error is thrown. The offline digest unless asked
    /// otherwise, or unless the preset is Claude Code's, which drops the range with a notice.
    pub fn chosen(asked: Option<&str>, preset: Option<&str>) -> Option<Fallback> {
        match asked {
            Some("none") => None,
            Some("truncate") => Some(Fallback::Truncate),
            None if preset == Some("claude-code") => Some(Fallback::Truncate),
            _ => Some(Fallback::Digest),
        }
    }
}

/// The notice that replaces a dropped range, in the form the plan's template asks for.
fn truncation_notice(range: Range, template: &Template) -> String {
    let notice = format!(
        "Messages #{}-#{} were removed to make room, without a summary (the summarizer failed). Ask the user about anything needed from them.",
        range.start,
        range.end - 1
    );
    match template {
        Template::Snapshot => format!("<{SNAPSHOT_TAG}><key_knowledge>{notice}</key_knowledge></{SNAPSHOT_TAG}>"),
        _ => notice,
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Compacted {
    pub applied: Applied,
    /// One per plan job, in order.
    pub sources: Vec<Source>,
    /// When the model's summaries were refused (empty, malformed, or not smaller) and the digest used instead: why.
    pub llm_rejected: Option<Error>,
}

/// Applies the jobs' summaries, the offline digest standing in for each failed job. When the model's
/// summaries are refused as empty or not smaller, every job falls back to the digest: the caller asked
/// for a shorter history, and the digest is built to fit (see `offline_summaries`).
/// `facts`: those of the plan's summarized messages, when the run found them already.
pub fn compact_with(
    input: &Input,
    plan_ref: &PlanRef,
    outcomes: &[Outcome],
    fallback: Fallback,
    facts: Option<&PlanFacts>,
) -> Result<Compacted> {
    let mut job_ids = Vec::with_capacity(plan_ref.jobs.len());
    for j in &plan_ref.jobs {
        job_ids.push(j.id.clone());
    }
    if outcomes.len() != job_ids.len() {
        return Err(Error::new(
            Code::InvalidInput,
            "summary",
            format!("{} summaries for {} jobs", outcomes.len(), job_ids.len()),
        ));
    }
    let mut offline: Option<Map<String, Value>> = None;
    let mut digest = |id: &str| -> Result<(Value, Source)> {
        if fallback == Fallback::Truncate {
            let job = plan_ref.jobs.iter().find(|j| j.id == id).map_or(Range { start: 0, end: 1 }, |j| j.range);
            return Ok((Value::String(truncation_notice(job, &plan_ref.template)), Source::Truncated));
        }
        if offline.is_none() {
            offline = Some(offline_with_facts(input, plan_ref, facts)?);
        }
        Ok((offline.as_ref().and_then(|o| o.get(id)).cloned().unwrap_or(Value::Null), Source::Offline))
    };
    let mut summaries = Map::new();
    let mut sources = Vec::with_capacity(job_ids.len());
    for (id, outcome) in job_ids.iter().zip(outcomes) {
        let (text, source) = match outcome {
            Outcome::Text(t) => (Value::String(t.clone()), Source::Llm),
            Outcome::Failed => digest(id)?,
        };
        summaries.insert(id.clone(), text);
        sources.push(source);
    }
    match apply_with_facts(input, plan_ref, &Value::Object(summaries), facts) {
        Ok(applied) => Ok(Compacted { applied, sources, llm_rejected: None }),
        Err(e)
            if matches!(e.code, Code::SummaryNotSmaller | Code::SummaryEmpty | Code::SummaryMalformed)
                && sources.contains(&Source::Llm) =>
        {
            let mut all_offline = Map::new();
            let mut sources = Vec::with_capacity(job_ids.len());
            for id in &job_ids {
                let (text, source) = digest(id)?;
                all_offline.insert(id.clone(), text);
                sources.push(source);
            }
            let applied = apply_with_facts(input, plan_ref, &Value::Object(all_offline), facts)?;
            Ok(Compacted { applied, sources, llm_rejected: Some(e) })
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::plan::plan_compaction;
    use crate::fixtures::agent_run;
    use crate::options::Options;
    use serde_json::json;

    fn planned() -> (Vec<Value>, Value) {
        let msgs = agent_run(40, 200);
        let options = Options::from_json(&json!({ "contextWindow": 8000 })).unwrap();
        let plan = plan_compaction(&Input::items(&msgs), &options).unwrap();
        assert!(plan.needed && plan.jobs.len() == 1, "the fixture needs one job");
        (msgs, serde_json::to_value(&plan).unwrap())
    }

    fn planned_ref() -> (Vec<Value>, Value, PlanRef) {
        let (msgs, plan) = planned();
        let plan_ref = PlanRef::from_json(&plan).unwrap();
        (msgs, plan, plan_ref)
    }

    #[test]
    fn the_fallback_is_the_digest_unless_asked_or_claude_code() {
        assert_eq!(Fallback::chosen(None, None), Some(Fallback::Digest));
        assert_eq!(Fallback::chosen(None, Some("opencode")), Some(Fallback::Digest));
        assert_eq!(Fallback::chosen(None, Some("claude-code")), Some(Fallback::Truncate));
        assert_eq!(Fallback::chosen(Some("offline"), Some("claude-code")), Some(Fallback::Digest));
        assert_eq!(Fallback::chosen(Some("truncate"), None), Some(Fallback::Truncate));
        assert_eq!(Fallback::chosen(Some("none"), Some("claude-code")), None);
    }

    #[test]
    fn the_model_summary_is_used_when_it_fits() {
        let (msgs, _, plan_ref) = planned_ref();
        let done = compact_with(
            &Input::items(&msgs),
            &plan_ref,
            &[Outcome::Text("We fixed src/app.py.".into())],
            Fallback::Digest,
            None,
        )
        .unwrap();
        assert_eq!(done.sources, vec![Source::Llm]);
        assert!(done.llm_rejected.is_none());
        assert!(done.applied.report.tokens_after < done.applied.report.tokens_before);
    }

    #[test]
    fn a_failed_job_gets_the_offline_digest() {
        let (msgs, plan, plan_ref) = planned_ref();
        let done = compact_with(&Input::items(&msgs), &plan_ref, &[Outcome::Failed], Fallback::Digest, None).unwrap();
        assert_eq!(done.sources, vec![Source::Offline]);
        let input = Input::items(&msgs);
        let expected = crate::compaction::apply::apply_summary(
            &input,
            &plan,
            &Value::Object(crate::compaction::apply::offline_summaries(&input, &plan).unwrap()),
        )
        .unwrap();
        assert_eq!(done.applied, expected, "the same result as applying summarize_offline by hand");
    }

    #[test]
    fn with_truncate_a_failed_job_leaves_a_notice() {
        let (msgs, plan, plan_ref) = planned_ref();
        let done = compact_with(&Input::items(&msgs), &plan_ref, &[Outcome::Failed], Fallback::Truncate, None).unwrap();
        assert_eq!(done.sources, vec![Source::Truncated]);
        let out = crate::edit::materialize(&done.applied.slots, &msgs);
        let range = &plan["jobs"][0]["range"];
        let notice = format!("Messages #{}-#{} were removed", range["start"], range["end"].as_u64().unwrap() - 1);
        assert!(out[1]["content"].as_str().unwrap().contains(&notice), "{}", out[1]["content"]);
        assert!(done.applied.report.tokens_after < done.applied.report.tokens_before);
    }

    #[test]
    fn a_summary_that_is_not_smaller_falls_back_and_says_why() {
        let (msgs, _, plan_ref) = planned_ref();
        let huge = "All the details. ".repeat(20_000);
        let done =
            compact_with(&Input::items(&msgs), &plan_ref, &[Outcome::Text(huge)], Fallback::Digest, None).unwrap();
        assert_eq!(done.sources, vec![Source::Offline]);
        assert_eq!(done.llm_rejected.map(|e| e.code), Some(Code::SummaryNotSmaller));
        let empty =
            compact_with(&Input::items(&msgs), &plan_ref, &[Outcome::Text("  ".into())], Fallback::Digest, None)
                .unwrap();
        assert_eq!(empty.llm_rejected.map(|e| e.code), Some(Code::SummaryEmpty));
    }

    #[test]
    fn outcomes_must_match_the_jobs() {
        let (msgs, _, plan_ref) = planned_ref();
        assert_eq!(
            compact_with(&Input::items(&msgs), &plan_ref, &[], Fallback::Digest, None).unwrap_err().code,
            Code::InvalidInput
        );
    }
}
