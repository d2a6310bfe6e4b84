//! Revision rounds of `compact`: when a job's summary lost salient facts (the audit's), the model is
//! shown its summary and the facts it lost and asked to write it again (`maxRevisions`, default one
//! round). The revised summary replaces the first only when it keeps more of the facts and stays
//! within the job's size: a small model's revision can drop more than it restores, or ramble.

use crate::compaction::audit::{checked, echoes_revision_prompt, revision_prompt_for, Fact, Found};
use crate::compaction::template::Prompt;
use crate::compaction::types::PlanRef;
use crate::counting::estimate::per_message_known;
use crate::error::Result;
use crate::reading::format;
use crate::reading::input::Input;

/// How far past its planned output budget a revised summary may go: the restored facts take room.
const GROWTH: f64 = 1.25;

/// How many of job `job`'s facts `summary` lost, and the prompt asking to restore them (None when it
/// lost none). `facts` are those of the plan's summarized messages (`PlanFacts::of`).
pub fn lost_facts(plan: &PlanRef, facts: &Found, job: usize, summary: &str) -> (usize, Option<Prompt>) {
    let lost = lost_in_job(plan, facts, job, summary);
    let count = lost.len();
    (count, (count > 0).then(|| revision_prompt_for(summary, lost)))
}

/// Which summary job `job` keeps: the revision when it lost fewer facts than the first, stays within the
/// job's budget (or the first's size, if that was larger), and is not a copy of the revision prompt.
pub fn keeps_revision(
    input: &Input,
    plan: &PlanRef,
    facts: &Found,
    job: usize,
    first: &str,
    revised: &str,
) -> Result<bool> {
    let conv = format::read(input, Some(plan.format))?;
    let lost_first = lost_in_job(plan, facts, job, first);
    let lost_first_count = lost_first.len();
    if echoes_revision_prompt(first, lost_first, revised) {
        return Ok(false);
    }
    let fewer_lost = lost_in_job(plan, facts, job, revised).len() < lost_first_count;
    let size = |t: &str| plan.profile.text(t);
    let allowed = (f64::from(plan.jobs[job].max_output_tokens) * GROWTH).max(size(first));
    let tokens = per_message_known(&conv, &plan.profile, plan.counted.as_ref());
    // Never larger than what it replaces, whatever the budget.
    let replaced: u64 = plan.jobs[job].range.select(&plan.summarized()).iter().map(|&i| u64::from(tokens[i])).sum();
    Ok(fewer_lost && size(revised) <= allowed && size(revised) < replaced as f64 && !revised.trim().is_empty())
}

/// The facts of job `job`'s messages that `summary` does not keep.
fn lost_in_job(plan: &PlanRef, facts: &Found, job: usize, summary: &str) -> Vec<Fact> {
    let checked = checked(facts, &plan.jobs[job..=job], &[summary.to_string()]);
    let mut lost = Vec::new();
    for (fact, kept) in checked.facts {
        if !kept {
            lost.push(fact);
        }
    }
    lost
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::plan::plan_compaction;
    use crate::compaction::restore::PlanFacts;
    use crate::fixtures::booking_chat as chat;
    use crate::options::Options;
    use serde_json::{json, Value};

    fn plan(msgs: &[Value]) -> PlanRef {
        let o = Options::from_json(&json!({ "contextWindow": 1500 })).unwrap();
        plan_compaction(&Input::items(msgs), &o).unwrap().to_ref().unwrap()
    }

    /// The facts of the plan's summarized messages, as a compaction finds them once for its checks.
    fn facts(msgs: &[Value], plan: &PlanRef) -> Found {
        let conv = format::read_items(msgs, Some(plan.format)).unwrap();
        PlanFacts::of(plan, &conv, &plan.summarized()).all
    }

    #[test]
    fn a_summary_that_lost_facts_gets_a_prompt_naming_them() {
        let msgs = chat();
        let plan = plan(&msgs);
        let facts = facts(&msgs, &plan);
        let (lost, prompt) = lost_facts(&plan, &facts, 0, "The user asked about the weather.");
        assert!(lost >= 3, "{lost}");
        let prompt = prompt.unwrap();
        assert!(prompt.user.contains("QX7-2291") && prompt.user.contains("ana@example.com"), "{}", prompt.user);
        let whole = "Booking QX7-2291, e-mail ana@example.com; I must never fly through Chicago. Weather and hotels.";
        assert_eq!(lost_facts(&plan, &facts, 0, whole), (0, None));
    }

    #[test]
    fn a_revision_is_kept_only_when_it_keeps_more_within_its_size() {
        let msgs = chat();
        let (plan, input) = (plan(&msgs), Input::items(&msgs));
        let facts = facts(&msgs, &plan);
        let first = "The user asked about the weather.";
        let better = "Booking QX7-2291, e-mail ana@example.com; the user asked about the weather.";
        assert!(keeps_revision(&input, &plan, &facts, 0, first, better).unwrap());
        assert!(!keeps_revision(&input, &plan, &facts, 0, better, first).unwrap(), "losing more is refused");
        assert!(!keeps_revision(&input, &plan, &facts, 0, first, first).unwrap(), "no better: the first stays");
        let rambling = format!("{better} {}", "And more about the weather. ".repeat(400));
        assert!(!keeps_revision(&input, &plan, &facts, 0, first, &rambling).unwrap(), "too long is refused");
    }

    #[test]
    fn a_revision_that_copies_the_revision_prompt_is_refused() {
        let msgs = chat();
        let (plan, input) = (plan(&msgs), Input::items(&msgs));
        let facts = facts(&msgs, &plan);
        let first = "The user asked about the weather.";
        let prompt = lost_facts(&plan, &facts, 0, first).1.unwrap();
        // What a small model answered: the prompt's own text, the list of missing facts included.
        assert!(
            !keeps_revision(&input, &plan, &facts, 0, first, &prompt.user).unwrap(),
            "the prompt itself is refused"
        );
        let tail = prompt.user.split_once("</summary-").unwrap().1;
        let copied = format!("Booking QX7-2291, the weather.\n</summary-{tail}");
        assert!(!keeps_revision(&input, &plan, &facts, 0, first, &copied).unwrap(), "a copy of the list is refused");
        // Written in its own words, the same facts are kept.
        let own = "Booking QX7-2291, e-mail ana@example.com; the user must never fly through Chicago.";
        assert!(keeps_revision(&input, &plan, &facts, 0, first, own).unwrap());
    }
}
