//! A `compact` run as the core decides it, around the host's asynchronous summarizer: prune first (it
//! may be enough), plan on what is left and choose the fallback (`begin`); once the summarizer has
//! answered, `compact_with` picks each job's summary, and `job_errors` says which error each job
//! reports. `Runs` keeps the runs that wait for their summaries. After a provider refused the history
//! as too long, `after_overflow` turns its error into the options that compact harder.

use crate::checking::overflow::Overflow;
use crate::compaction::compact::{Compacted, Fallback, Outcome, Source};
use crate::compaction::plan::{plan_compaction_known, Plan};
use crate::compaction::restore::PlanFacts;
use crate::compaction::types::PlanRef;
use crate::counting::estimate::KnownTokens;
use crate::edit::materialize;
use crate::error::Result;
use crate::options::Options;
use crate::pruning::prune::{prune, Prune};
use crate::reading::format::{self, Conversation};
use crate::reading::input::Input;
use serde_json::{Map, Value};
use std::cell::OnceCell;
use std::rc::Rc;

/// A run after planning.
#[derive(Debug)]
pub struct Begun {
    /// The history the plan was made from: the input (shared with the caller, who may keep it), or its
    /// pruned copy.
    pub value: Rc<Value>,
    /// What pruning changed, when it changed anything (its slots map the pruned history onto the
    /// caller's objects).
    pub pruned: Option<Prune>,
    pub plan: Plan,
    pub plan_ref: PlanRef,
    /// What stands in for a failed summary; None: the summarizer's error is thrown.
    pub fallback: Option<Fallback>,
    /// The facts of the plan's summarized messages, found when first needed: the revision checks and the
    /// apply of one run read the same ones (`facts`).
    facts: OnceCell<PlanFacts>,
}

impl Begun {
    /// The facts of the plan's summarized messages in the run's history, found on the first call.
    pub fn facts(&self) -> Result<&PlanFacts> {
        if let Some(facts) = self.facts.get() {
            return Ok(facts);
        }
        let facts = self.read(|conv| PlanFacts::of(&self.plan_ref, conv, &self.plan_ref.summarized()))?;
        Ok(self.facts.get_or_init(|| facts))
    }

    /// `f` on the run's history, read in the plan's format.
    pub fn read<T>(&self, f: impl FnOnce(&Conversation) -> T) -> Result<T> {
        Ok(f(&format::read(&Input::read(&self.value)?, Some(self.plan_ref.format))?))
    }

    /// Whether the plan changes the history: summary jobs for the summarizer, or messages a provider's
    /// compaction item stands for to drop (a run with no job to wait for).
    pub fn has_work(&self) -> bool {
        self.plan.needed && (!self.plan.jobs.is_empty() || self.plan.dropped.is_some())
    }

    /// Tokens the pruning saved, counted into the result's `tokensBefore`.
    pub fn pruned_tokens(&self) -> u64 {
        self.pruned.as_ref().map_or(0, |p| p.report.tokens_before - p.report.tokens_after)
    }
}

/// Prunes (unless `prune` is false), plans on what is left, and chooses the fallback from the host's
/// `fallback` option and the preset.
pub fn begin(value: Rc<Value>, options: &Options, prune_first: bool, fallback: Option<&str>) -> Result<Begun> {
    let (value, pruned, known) = match prune_first {
        true => pruned(value, options)?,
        false => (value, None, None),
    };
    let plan = plan_compaction_known(&Input::read(&value)?, options, known.as_ref())?;
    let plan_ref = plan.to_ref()?;
    let fallback = Fallback::chosen(fallback, options.preset);
    Ok(Begun { value, pruned, plan, plan_ref, fallback, facts: OnceCell::new() })
}

/// The options to compact with after the provider refused a history we estimated at `estimated`
/// tokens as too long: the limit it states becomes the window, in our units (scaled by how much
/// higher the provider counted the same history, when it says), less the answer's reserve as always;
/// and compaction is forced, since the estimate thought the history fit.
pub fn after_overflow(options: &Options, overflow: &Overflow, estimated: u64) -> Options {
    let mut o = options.clone();
    o.force = true;
    if let Some(limit) = overflow.limit {
        let scale = match overflow.actual {
            Some(actual) if actual > estimated && estimated > 0 => estimated as f64 / actual as f64,
            _ => 1.0,
        };
        let window = ((limit as f64 * scale) as u64).clamp(1, u64::from(u32::MAX)) as u32;
        o.context_window = Some(o.context_window.map_or(window, |w| w.min(window)));
        o.reserved_output = o.reserved_output.filter(|&r| r < window);
    }
    o
}

/// The history with old tool outputs cleared, as data, and what the pruning did (the same history and None
/// when it changed nothing); and the tokens of the messages it kept, as it counted them, for the plan.
fn pruned(value: Rc<Value>, options: &Options) -> Result<(Rc<Value>, Option<Prune>, Option<KnownTokens>)> {
    let (done, key, items) = {
        let input = Input::read(&value)?;
        let done = prune(&input, options)?;
        let changed = !done.report.pruned.is_empty() || !done.report.cut_arguments.is_empty();
        let items = changed.then(|| Value::Array(materialize(&done.slots, input.items)));
        (done, input.key, items)
    };
    let known = Some(done.counted.through(&done.slots));
    let Some(items) = items else { return Ok((value, None, known)) };
    // A body: its other fields copied (the messages, most of it, are the new items).
    let pruned = match (key, &*value) {
        (Some(key), Value::Object(body)) => {
            let mut copy = Map::new();
            for (k, v) in body {
                if k != key {
                    copy.insert(k.clone(), v.clone());
                }
            }
            copy.insert(key.to_string(), items);
            Value::Object(copy)
        }
        _ => items,
    };
    Ok((Rc::new(pruned), Some(done), known))
}

/// Why a job did not get the model's summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobError {
    /// The summarizer failed for it: its own error goes with the job.
    Summarizer,
    /// Its summary came but was refused (empty, not smaller, malformed): that refusal goes with it.
    Refused,
}

/// For each job, in order, the error it reports, if any.
pub fn job_errors(outcomes: &[Outcome], done: &Compacted) -> Vec<Option<JobError>> {
    let mut out = Vec::with_capacity(outcomes.len());
    for (outcome, source) in outcomes.iter().zip(&done.sources) {
        out.push(match outcome {
            Outcome::Failed => Some(JobError::Summarizer),
            Outcome::Text(_) if *source != Source::Llm && done.llm_rejected.is_some() => Some(JobError::Refused),
            Outcome::Text(_) => None,
        });
    }
    out
}

/// The warning a job's fallback adds to the result, so that a failing summarizer is never silent:
/// which job, what stood in, and why (`reason`: the error's text).
pub fn fallback_warning(job_id: &str, source: Source, why: JobError, reason: &str) -> String {
    let stood_in = match source {
        Source::Truncated => "its messages were dropped with a notice",
        _ => "the offline digest stands in",
    };
    let what = match why {
        JobError::Summarizer => "the summarizer failed",
        JobError::Refused => "the model's summary was refused",
    };
    format!("{job_id}: {what}, {stood_in}: {reason}")
}

/// Runs waiting for their summaries, by handle. A handle is used once: `take` frees its slot, which
/// the next run reuses, so the registry stays as small as the most runs in flight at once.
#[derive(Debug)]
pub struct Runs<T> {
    slots: Vec<Option<T>>,
}

impl<T> Runs<T> {
    pub const fn new() -> Runs<T> {
        Runs { slots: Vec::new() }
    }

    pub fn insert(&mut self, run: T) -> u32 {
        match self.slots.iter().position(Option::is_none) {
            Some(free) => {
                self.slots[free] = Some(run);
                free as u32
            }
            None => {
                self.slots.push(Some(run));
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// The run, left in place: None for a handle never given or already taken.
    pub fn get(&self, handle: u32) -> Option<&T> {
        self.slots.get(handle as usize).and_then(Option::as_ref)
    }

    /// The run, once: None for a handle never given or already taken.
    pub fn take(&mut self, handle: u32) -> Option<T> {
        self.slots.get_mut(handle as usize).and_then(Option::take)
    }
}

impl<T> Default for Runs<T> {
    fn default() -> Self {
        Runs::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::plan::plan_compaction;

    #[test]
    fn an_overflow_compacts_harder_on_the_provider_s_numbers() {
        let msgs = agent_run(40, 200);
        let options = Options::from_json(&json!({ "contextWindow": 1_000_000 })).unwrap();
        let input = Input::items(&msgs);
        assert!(!plan_compaction(&input, &options).unwrap().needed, "the estimate thinks it fits");
        let estimated = crate::counting::estimate::estimate(&input, &options).unwrap().total;
        // The provider counts twice what we estimate: its limit, in our units, is half.
        let overflow = Overflow { provider: "openai", limit: Some(estimated), actual: Some(estimated * 2) };
        let harder = after_overflow(&options, &overflow, estimated);
        let plan = plan_compaction(&input, &harder).unwrap();
        assert!(plan.needed && !plan.jobs.is_empty(), "{}", plan.detail);
        assert_eq!(plan.context_window, (estimated / 2) as u32);
        assert!(u64::from(plan.limit) < estimated / 2);
        // Without numbers (OpenAI's Responses wording), compaction is still forced on the host's window.
        let bare = after_overflow(&options, &Overflow { provider: "openai", limit: None, actual: None }, estimated);
        assert!(bare.force && bare.context_window == Some(1_000_000));
    }

    #[test]
    fn a_fallback_says_which_job_what_stood_in_and_why() {
        let w = fallback_warning("summary-1", Source::Offline, JobError::Summarizer, "SUMMARIZER_HTTP 400: bad");
        assert_eq!(w, "summary-1: the summarizer failed, the offline digest stands in: SUMMARIZER_HTTP 400: bad");
        let w = fallback_warning("summary-2", Source::Truncated, JobError::Refused, "SUMMARY_EMPTY");
        assert!(w.contains("summary was refused, its messages were dropped"), "{w}");
    }
    use crate::compaction::compact::compact_with;
    use crate::fixtures::agent_run;
    use serde_json::json;

    fn options(o: Value) -> Options {
        Options::from_json(&o).unwrap()
    }

    #[test]
    fn pruning_first_can_be_enough() {
        // Long tool outputs, a window they overflow only a little: clearing old outputs is enough.
        let msgs = Value::Array(agent_run(40, 500));
        let total = crate::counting::estimate::estimate(&Input::read(&msgs).unwrap(), &Options::default()).unwrap();
        // The default limit is 0.6 of the window: this one puts it at 0.9 of the total.
        let window = total.total * 10 / 6 * 9 / 10;
        let o = options(json!({ "contextWindow": window, "protectTokens": 5000, "minimumPruneTokens": 1000 }));
        let msgs = Rc::new(msgs);
        let begun = begin(msgs.clone(), &o, true, None).unwrap();
        assert!(begun.pruned.is_some(), "old tool outputs were cleared");
        assert!(begun.pruned_tokens() > 0);
        assert!(!begun.has_work(), "{}", begun.plan.reason);
        // Without pruning, the same window needs a summary.
        let unpruned = begin(msgs, &o, false, None).unwrap();
        assert!(unpruned.pruned.is_none() && unpruned.has_work(), "{} {}", unpruned.plan.reason, unpruned.plan.detail);
    }

    #[test]
    fn the_plan_is_made_from_the_pruned_history() {
        let msgs = Rc::new(Value::Array(agent_run(40, 500)));
        let o = options(json!({ "contextWindow": 3000, "protectTokens": 2000, "minimumPruneTokens": 1000 }));
        let begun = begin(msgs, &o, true, None).unwrap();
        assert!(
            begun.pruned.is_some() && begun.has_work(),
            "{:?} {} {}",
            begun.pruned.as_ref().map(|p| p.report.pruned.len()),
            begun.plan.reason,
            begun.plan.detail
        );
        let input = Input::read(&begun.value).unwrap();
        assert!(begun.plan_ref.check(input.items).is_ok(), "the plan's fingerprint is of the pruned history");
        assert_eq!(begun.fallback, Some(Fallback::Digest));
    }

    #[test]
    fn each_job_reports_its_own_error() {
        let msgs = Rc::new(Value::Array(agent_run(40, 200)));
        let begun = begin(msgs, &options(json!({ "contextWindow": 8000 })), false, Some("offline")).unwrap();
        let input = Input::read(&begun.value).unwrap();
        // The run's facts, found once, serve every apply (and give what an apply finding them itself gives).
        let facts = Some(begun.facts().unwrap());
        let failed = [Outcome::Failed];
        let done = compact_with(&input, &begun.plan_ref, &failed, Fallback::Digest, facts).unwrap();
        assert_eq!(job_errors(&failed, &done), vec![Some(JobError::Summarizer)]);
        let refused = [Outcome::Text(" ".into())];
        let done = compact_with(&input, &begun.plan_ref, &refused, Fallback::Digest, facts).unwrap();
        assert_eq!(job_errors(&refused, &done), vec![Some(JobError::Refused)]);
        let fine = [Outcome::Text("We fixed src/app.py.".into())];
        let done = compact_with(&input, &begun.plan_ref, &fine, Fallback::Digest, facts).unwrap();
        assert_eq!(job_errors(&fine, &done), vec![None]);
        let alone = compact_with(&input, &begun.plan_ref, &fine, Fallback::Digest, None).unwrap();
        assert_eq!(alone.applied.report, done.applied.report);
    }

    #[test]
    fn handles_are_reused_once_taken_and_never_read_twice() {
        let mut runs = Runs::new();
        let (a, b) = (runs.insert("a"), runs.insert("b"));
        assert_eq!((a, b), (0, 1));
        assert_eq!(runs.take(a), Some("a"));
        assert_eq!(runs.take(a), None, "a handle is used once");
        assert_eq!(runs.take(7), None);
        assert_eq!(runs.insert("c"), 0, "the free slot is reused");
        assert_eq!(runs.take(b), Some("b"));
    }
}
