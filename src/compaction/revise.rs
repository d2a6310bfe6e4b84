//! Revision rounds of `compact`: when a job's summary lost salient facts (the audit's), the model is
//! shown its summary and the facts it lost and asked to write it again (`maxRevisions`, default one
//! round). The revised summary replaces the first only when it keeps more of the facts and stays
//! within the job's size: a small model's revision can drop more than it restores, or ramble.
//!
//! A summary is judged as `apply_summary` will write it: followed by the quotes of the user's messages
//! (`keepUserText`). A fact those quotes state is not lost, and asking the model to restore it would only
//! spend its room on a copy of the user's words.

use crate::compaction::audit::{checked, echoes_revision_prompt, revision_prompt_for, Fact, Found};
use crate::compaction::restore::Restore;
use crate::compaction::template::Prompt;
use crate::compaction::types::PlanRef;
use crate::counting::estimate::per_message_known;
use crate::reading::format::Conversation;

/// How far past its planned output budget a revised summary may go: the restored facts take room.
const GROWTH: f64 = 1.25;

/// How many of job `job`'s facts `summary` lost, and the prompt asking to restore them (None when it
/// lost none). `facts` are those of the plan's summarized messages of `conv` (`PlanFacts::of`).
pub fn lost_facts(
    conv: &Conversation,
    plan: &PlanRef,
    facts: &Found,
    job: usize,
    summary: &str,
) -> (usize, Option<Prompt>) {
    let lost = restoring(conv, plan, |restore| lost_in_job(restore, facts, job, summary));
    let count = lost.len();
    (count, (count > 0).then(|| revision_prompt_for(summary, lost)))
}

/// Which summary job `job` keeps: the revision when it lost fewer facts than the first, stays within the
/// job's budget (or the first's size, if that was larger), and is not a copy of the revision prompt.
pub fn keeps_revision(
    conv: &Conversation,
    plan: &PlanRef,
    facts: &Found,
    job: usize,
    first: &str,
    revised: &str,
) -> bool {
    restoring(conv, plan, |restore| {
        let lost_first = lost_in_job(restore, facts, job, first);
        let lost_first_count = lost_first.len();
        if echoes_revision_prompt(first, lost_first, revised) {
            return false;
        }
        let fewer_lost = lost_in_job(restore, facts, job, revised).len() < lost_first_count;
        let size = |t: &str| plan.profile.text(t);
        let allowed = (f64::from(plan.jobs[job].max_output_tokens) * GROWTH).max(size(first));
        // Never larger than what it replaces, whatever the budget.
        let (_, replaced) = restore.job_messages(&plan.jobs[job]);
        fewer_lost && size(revised) <= allowed && size(revised) < replaced as f64 && !revised.trim().is_empty()
    })
}

/// `check` run with the plan's summarized messages and every message's tokens (what quoting the user's
/// messages reads), and no facts of its own: the checks pass theirs.
fn restoring<T>(conv: &Conversation, plan: &PlanRef, check: impl FnOnce(&Restore) -> T) -> T {
    let (summarized, tokens) = (plan.summarized(), per_message_known(conv, &plan.profile, plan.counted.as_ref()));
    check(&Restore { conv, plan, summarized: &summarized, tokens: &tokens, facts: &[] })
}

/// The facts of job `job`'s messages that `summary` does not keep as `apply_summary` writes it: followed by
/// the quotes of the job's user messages (`keepUserText`), as they stand where no room bounds them (where
/// the room is short it quotes fewer, and lists the facts of the others instead).
fn lost_in_job(restore: &Restore, facts: &Found, job: usize, summary: &str) -> Vec<Fact> {
    let plan = restore.plan;
    let quotes = plan.keep.user_text.then(|| restore.wanted_quotes(&plan.jobs[job], summary)).flatten();
    let applied = match quotes {
        Some(quotes) => format!("{summary}\n\n{quotes}"),
        None => summary.to_string(),
    };
    let checked = checked(facts, &plan.jobs[job..=job], &[applied]);
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
    use crate::reading::format;
    use crate::reading::input::Input;
    use serde_json::{json, Value};

    /// A plan of `msgs` whose summaries go back as written, without the user's messages quoted after them
    /// (which state the fixture's facts).
    fn plan(msgs: &[Value]) -> PlanRef {
        plan_with(msgs, json!({ "contextWindow": 1500, "keepUserText": false }))
    }

    fn plan_with(msgs: &[Value], options: Value) -> PlanRef {
        let o = Options::from_json(&options).unwrap();
        plan_compaction(&Input::items(msgs), &o).unwrap().to_ref().unwrap()
    }

    /// The history and the facts of the plan's summarized messages, as a compaction finds them once for
    /// its checks.
    fn read<'a>(msgs: &'a [Value], plan: &PlanRef) -> (Conversation<'a>, Found) {
        let conv = format::read_items(msgs, Some(plan.format)).unwrap();
        let facts = PlanFacts::of(plan, &conv, &plan.summarized()).all;
        (conv, facts)
    }

    #[test]
    fn a_summary_that_lost_facts_gets_a_prompt_naming_them() {
        let msgs = chat();
        let plan = plan(&msgs);
        let (conv, facts) = read(&msgs, &plan);
        let (lost, prompt) = lost_facts(&conv, &plan, &facts, 0, "The user asked about the weather.");
        assert!(lost >= 3, "{lost}");
        let prompt = prompt.unwrap();
        assert!(prompt.user.contains("QX7-2291") && prompt.user.contains("ana@example.com"), "{}", prompt.user);
        let whole = "Booking QX7-2291, e-mail ana@example.com; I must never fly through Chicago. Weather and hotels.";
        assert_eq!(lost_facts(&conv, &plan, &facts, 0, whole), (0, None));
    }

    #[test]
    fn what_the_quotes_of_the_users_messages_state_is_not_lost() {
        let msgs = chat();
        let plan = plan_with(&msgs, json!({ "contextWindow": 1500 }));
        let (conv, facts) = read(&msgs, &plan);
        // The booking code, the e-mail and the rule are the user's words, quoted after any summary.
        let (lost, prompt) = lost_facts(&conv, &plan, &facts, 0, "The user asked about the weather.");
        let prompt_text = prompt.as_ref().map_or(String::new(), |p| p.user.clone());
        assert!(!prompt_text.contains("QX7-2291") && !prompt_text.contains("ana@example.com"), "{prompt_text}");
        let (lost_unquoted, _) = lost_facts(&conv, &self::plan(&msgs), &facts, 0, "The user asked about the weather.");
        assert!(lost + 3 <= lost_unquoted, "{lost} with the quotes, {lost_unquoted} without");
        // And so a revision that only copies them in keeps no more than the first summary.
        let copied = "Booking QX7-2291, e-mail ana@example.com; the user asked about the weather.";
        let first = "The user asked about the weather.";
        assert!(!keeps_revision(&conv, &plan, &facts, 0, first, copied));
    }

    #[test]
    fn a_revision_is_kept_only_when_it_keeps_more_within_its_size() {
        let msgs = chat();
        let plan = plan(&msgs);
        let (conv, facts) = read(&msgs, &plan);
        let first = "The user asked about the weather.";
        let better = "Booking QX7-2291, e-mail ana@example.com; the user asked about the weather.";
        assert!(keeps_revision(&conv, &plan, &facts, 0, first, better));
        assert!(!keeps_revision(&conv, &plan, &facts, 0, better, first), "losing more is refused");
        assert!(!keeps_revision(&conv, &plan, &facts, 0, first, first), "no better: the first stays");
        let rambling = format!("{better} {}", "And more about the weather. ".repeat(400));
        assert!(!keeps_revision(&conv, &plan, &facts, 0, first, &rambling), "too long is refused");
    }

    #[test]
    fn a_revision_that_copies_the_revision_prompt_is_refused() {
        let msgs = chat();
        let plan = plan(&msgs);
        let (conv, facts) = read(&msgs, &plan);
        let first = "The user asked about the weather.";
        let prompt = lost_facts(&conv, &plan, &facts, 0, first).1.unwrap();
        // What a small model answered: the prompt's own text, the list of missing facts included.
        assert!(!keeps_revision(&conv, &plan, &facts, 0, first, &prompt.user), "the prompt itself is refused");
        let tail = prompt.user.split_once("</summary-").unwrap().1;
        let copied = format!("Booking QX7-2291, the weather.\n</summary-{tail}");
        assert!(!keeps_revision(&conv, &plan, &facts, 0, first, &copied), "a copy of the list is refused");
        // Written in its own words, the same facts are kept.
        let own = "Booking QX7-2291, e-mail ana@example.com; the user must never fly through Chicago.";
        assert!(keeps_revision(&conv, &plan, &facts, 0, first, own));
    }
}
