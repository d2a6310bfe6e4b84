//! Restoring what a summary lost: the salient facts of its messages (the audit's: user constraints,
//! error lines, numbers, URLs, identifiers, paths) that the summary does not state are appended to
//! it verbatim, most important kinds first, in a short marked section. Small models drop exactly
//! these (the booking code, the file being edited), and the model that reads the compacted history
//! cannot ask for them again.

use crate::compaction::audit::{facts_of, lost_in};
use crate::compaction::types::PlanRef;
use crate::reading::format::Conversation;

/// The heading of the appended section; the marker tells the reading model where the list comes from.
pub const HEADING: &str = "Facts from the summarized messages, verbatim:";

/// The most a job's section may cost: what the summary left of the output budget the plan reserved
/// for it (so the history ends no larger than planned), and at most a quarter of that budget and of
/// the messages it summarized.
fn budget(max_output_tokens: u32, summarized_tokens: u64, summary_tokens: f64) -> f64 {
    let max = f64::from(max_output_tokens);
    (max / 4.0).min(summarized_tokens as f64 / 4.0).min(max - summary_tokens)
}

/// Appends to each job's summary the facts of its messages it lost, within the budget; returns the
/// facts appended, in order.
pub fn append_lost_facts(
    conv: &Conversation,
    plan: &PlanRef,
    summarized: &[usize],
    tokens: &[u32],
    summaries: &mut [String],
) -> Vec<String> {
    let mut appended = Vec::new();
    for (job, summary) in plan.jobs.iter().zip(summaries.iter_mut()) {
        let indices = job.range.select(summarized);
        let summarized_tokens: u64 = indices.iter().map(|&i| u64::from(tokens[i])).sum();
        let facts = facts_of(conv, &indices);
        let lost = lost_in(&facts, summary);
        if lost.is_empty() {
            continue;
        }
        let summary_tokens = plan.profile.text(summary);
        let mut left = budget(job.max_output_tokens, summarized_tokens, summary_tokens) - plan.profile.text(HEADING);
        let mut section = String::new();
        for fact in lost {
            let line = format!("\n- {}", fact.text);
            let cost = plan.profile.text(&line);
            if cost > left {
                continue; // a shorter fact further down may still fit
            }
            left -= cost;
            section.push_str(&line);
            appended.push(fact.text.clone());
        }
        if !section.is_empty() {
            summary.push_str("\n\n");
            summary.push_str(HEADING);
            summary.push_str(&section);
        }
    }
    appended
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::apply::apply_summary;
    use crate::compaction::plan::plan_compaction;
    use crate::edit::materialize;
    use crate::options::Options;
    use crate::reading::input::Input;
    use serde_json::{json, Value};

    /// A support chat whose early turns hold a booking code, an e-mail and a constraint, then filler.
    fn chat() -> Vec<Value> {
        let mut msgs = vec![
            json!({ "role": "system", "content": "You are a travel agent." }),
            json!({ "role": "user", "content": "My booking code is QX7-2291 and my e-mail is ana@example.com. I must never fly through Chicago." }),
            json!({ "role": "assistant", "content": "Noted. Let me look at booking QX7-2291." }),
        ];
        for i in 0..30 {
            msgs.push(json!({ "role": "user", "content": format!("Question {i} about the weather and the hotels in the city, in some detail, please.") }));
            msgs.push(json!({ "role": "assistant", "content": format!("Answer {i}: the weather is mild and the hotels near the centre have rooms this week.") }));
        }
        msgs
    }

    fn apply(msgs: &[Value], options: Value, summary: &str) -> (crate::compaction::apply::Applied, String) {
        let o = Options::from_json(&options).unwrap();
        let plan = serde_json::to_value(plan_compaction(&Input::items(msgs), &o).unwrap()).unwrap();
        assert_eq!(plan["needed"], true, "the fixture must need compaction");
        let applied = apply_summary(&Input::items(msgs), &plan, &json!(summary)).unwrap();
        let out = materialize(&applied.slots, msgs);
        let text = out
            .iter()
            .filter_map(|m| m["content"].as_str())
            .find(|t| t.contains("ctxfold-summary"))
            .unwrap()
            .to_string();
        (applied, text)
    }

    #[test]
    fn facts_a_summary_lost_are_appended_verbatim() {
        let (applied, text) =
            apply(&chat(), json!({ "contextWindow": 1500 }), "The user asked about weather and hotels.");
        assert!(text.contains(HEADING), "{text}");
        for fact in ["QX7-2291", "ana@example.com", "I must never fly through Chicago."] {
            assert!(text.contains(fact), "{fact} in {text}");
            assert!(applied.report.facts_appended.iter().any(|f| f.contains(fact)), "{fact} reported");
        }
        assert!(applied.report.tokens_after < applied.report.tokens_before);
        assert!(applied.report.audit.facts_missing.is_empty(), "{:?}", applied.report.audit.facts_missing);
    }

    #[test]
    fn a_summary_that_kept_them_gets_nothing_and_keep_facts_false_gets_it_as_given() {
        let kept = "Booking QX7-2291, e-mail ana@example.com. I must never fly through Chicago. Weather and hotels.";
        let (applied, text) = apply(&chat(), json!({ "contextWindow": 1500 }), kept);
        assert!(applied.report.facts_appended.is_empty() && !text.contains(HEADING), "{text}");
        let (applied, text) =
            apply(&chat(), json!({ "contextWindow": 1500, "keepFacts": false }), "Weather and hotels.");
        assert!(applied.report.facts_appended.is_empty() && !text.contains(HEADING), "{text}");
        assert!(!applied.report.audit.facts_missing.is_empty());
    }

    #[test]
    fn facts_never_push_the_history_over_the_limit() {
        let msgs = chat();
        let o = Options::from_json(&json!({ "contextWindow": 1500 })).unwrap();
        let plan = plan_compaction(&Input::items(&msgs), &o).unwrap();
        // A summary that uses the whole output budget: no room is left for facts.
        let words = "weather hotels ".repeat(plan.jobs[0].max_output_tokens as usize / 2);
        let applied = apply_summary(&Input::items(&msgs), &serde_json::to_value(&plan).unwrap(), &json!(words));
        if let Ok(applied) = applied {
            assert!(applied.report.facts_appended.is_empty());
        }
    }
}
