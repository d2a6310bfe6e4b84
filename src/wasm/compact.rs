//! The Rust half of `compact(messages, { summarize, fallback, ...options })`: synchronous steps that the
//! JS half (`scripts/entries/async.js`) drives, awaiting the host's `summarize` between them. What is
//! decided (pruning first, planning, the fallback, which summary each job gets and which error it
//! reports) is decided in `crate::compaction::run`; this file reads and writes JS values.
//!
//! The awaiting is in JS: the host's `summarize` is any JS function, and a few lines of JS await it,
//! run jobs side by side and call back, where a Rust `async fn` would compile to a large state machine
//! for the same. The exports are prefixed `__`: the entries do not re-export them.

use super::context_overflow::overflow_of;
use super::convert::error_text;
use super::prelude::*;
use crate::checking::overflow::Overflow;
use crate::compaction::compact::{compact_with, Fallback, Outcome};
use crate::compaction::revise;
use crate::compaction::run::{self, Begun, JobError, Runs};
use crate::error::subpath;
use crate::options::Options;
use crate::reading::format::{fields, obj, with};
use js_sys::{Array, Function, Object, Reflect};
use serde_json::Value;
use std::cell::RefCell;

/// A compaction waiting for its summaries: the core's run, and the JS values its result is made of.
struct Run {
    begun: Begun,
    plan_js: JsValue,
    /// The caller's objects as they were then: the host may push to (or even reorder) its array while
    /// the summaries are written, and the result must hold the objects the plan was made from.
    snapshot: JsValue,
    /// What pruning cleared before planning, for the result.
    pruned_list: JsValue,
}

thread_local! {
    /// A slot is freed by `__compact_finish` or `__compact_cancel`, which the JS half always calls (in a
    /// `finally`).
    static RUNS: RefCell<Runs<Run>> = const { RefCell::new(Runs::new()) };
}

/// Reads the options and messages and plans. Returns `{ result }` when there is nothing to summarize,
/// else `{ run, summarize, fallback, concurrency, maxRevisions, onProgress, onFallback, prompts }`: one prompt per job, in order,
/// for `summarize`.
#[wasm_bindgen(js_name = __compact_begin)]
pub fn compact_begin(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let (own, core_options) = split_options(&options)?;
    let mut options =
        value_from_js(&core_options, "options", Code::InvalidOption).and_then(|o| Options::from_json(&o))?;
    let value = messages_from_js(&messages)?;
    if let Some(overflow) = &own.overflow {
        let estimated = crate::counting::estimate::estimate(&Input::read(&value)?, &options)?.total;
        options = run::after_overflow(&options, overflow, estimated);
    }
    let key = Input::read(&value)?.key;
    let given = value.clone(); // what the pruning's slots map onto
    let begun = run::begin(value, &options, own.prune, own.fallback.as_deref())?;
    // The caller's objects, or the pruned copies where pruning changed one.
    let (messages, pruned_list) = match &begun.pruned {
        Some(p) => (output_to_js(&p.slots, &messages, key, &given)?, to_js(&p.report.pruned)?),
        None => (messages, Array::new().into()),
    };
    let snapshot = snapshot(&messages, key)?;
    let plan_js = to_js(&begun.plan)?;
    let out = Object::new();

    if !begun.has_work() {
        let plan = &begun.plan;
        let result = to_js(&obj(vec![
            ("compacted", false.into()),
            ("tokensBefore", (plan.tokens_before + begun.pruned_tokens()).into()),
            ("tokensAfter", plan.tokens_before.into()),
            ("audit", Value::Null),
            ("factsAppended", Value::Array(Vec::new())),
            ("userTextAppended", Value::Array(Vec::new())),
            ("warnings", plan.warnings.clone().into()),
            ("jobs", Value::Array(Vec::new())),
        ]))?;
        set(&result, "plan", &plan_js)?;
        set(&result, "pruned", &pruned_list)?;
        // A new array (or body) of the caller's own objects, as when something is compacted.
        set(&out, "result", &with_messages(result, snapshot)?)?;
        return Ok(out.into());
    }

    let prompts = Array::new();
    for job in &begun.plan.jobs {
        let texts = fields(&[("jobId", &job.id), ("system", &job.prompt.system), ("user", &job.prompt.user)]);
        prompts.push(&value_to_js(&Value::Object(with(texts, "maxOutputTokens", job.max_output_tokens.into())))?);
    }
    let throws = begun.fallback.is_none();
    let handle = RUNS.with_borrow_mut(|runs| runs.insert(Run { begun, plan_js, snapshot, pruned_list }));
    set(&out, "run", &handle.into())?;
    set(&out, "summarize", &own.summarize)?;
    set(&out, "fallback", &(!throws).into())?;
    set(&out, "concurrency", &own.concurrency.into())?;
    set(&out, "maxRevisions", &own.max_revisions.into())?;
    set(&out, "onProgress", &own.on_progress)?;
    set(&out, "onFallback", &own.on_fallback)?;
    set(&out, "prompts", &prompts)?;
    Ok(out.into())
}

/// What `summarize` settled to for job `job_id`, if it is the summary text; else the error to report.
#[wasm_bindgen(js_name = __compact_text)]
pub fn compact_text(job_id: &str, settled: JsValue) -> Result<String, JsValue> {
    settled.as_string().ok_or_else(|| {
        let what = settled.js_typeof().as_string().unwrap_or_default();
        JsValue::from(Error::new(
            Code::InvalidInput,
            format!("summarize({job_id})"),
            format!("returned a {what}, not the summary text"),
        ))
    })
}

/// The revision prompt for job `job`'s summary `text` when it lost salient facts (as `prompts` gives
/// them, with `revision: true`), else `undefined`.
#[wasm_bindgen(js_name = __compact_revision)]
pub fn compact_revision(run: u32, job: u32, text: &str) -> Result<JsValue, JsValue> {
    with_run(run, |begun| {
        let job_ref = &begun.plan_ref.jobs[job as usize];
        let facts = &begun.facts()?.all;
        let (_, prompt) = begun.read(|conv| revise::lost_facts(conv, &begun.plan_ref, facts, job as usize, text))?;
        let Some(prompt) = prompt else { return Ok(JsValue::UNDEFINED) };
        let texts = fields(&[("jobId", &job_ref.id), ("system", &prompt.system), ("user", &prompt.user)]);
        let texts = with(texts, "maxOutputTokens", job_ref.max_output_tokens.into());
        value_to_js(&Value::Object(with(texts, "revision", true.into())))
    })
}

/// Whether job `job` takes the revised summary over the first (see `revise::keeps_revision`).
#[wasm_bindgen(js_name = __compact_keeps_revision)]
pub fn compact_keeps_revision(run: u32, job: u32, first: &str, revised: &str) -> Result<bool, JsValue> {
    with_run(run, |begun| {
        let facts = &begun.facts()?.all;
        Ok(begun.read(|conv| revise::keeps_revision(conv, &begun.plan_ref, facts, job as usize, first, revised))?)
    })
}

/// `f` on a run still waiting for its summaries.
fn with_run<T>(run: u32, f: impl FnOnce(&Begun) -> Result<T, JsValue>) -> Result<T, JsValue> {
    RUNS.with_borrow(|runs| match runs.get(run) {
        Some(r) => f(&r.begun),
        None => Err(JsValue::from(Error::new(Code::InvalidInput, "run", "this compaction is already finished"))),
    })
}

/// Applies the summaries and frees the run. `texts[i]`: job i's summary, or `undefined` when its
/// `summarize` failed with `failures[i]` (the host's own error, reported unchanged); `revisions[i]`: the
/// revision rounds it kept, `revision_errors[i]`: why its last revision failed, if it did.
#[wasm_bindgen(js_name = __compact_finish)]
pub fn compact_finish(
    run: u32,
    texts: Array,
    failures: Array,
    revisions: Array,
    revision_errors: Array,
) -> Result<JsValue, JsValue> {
    let Some(Run { begun, plan_js, snapshot, pruned_list }) = RUNS.with_borrow_mut(|runs| runs.take(run)) else {
        return Err(JsValue::from(Error::new(Code::InvalidInput, "run", "this compaction is already finished")));
    };
    let input = Input::read(&begun.value)?;
    let mut outcomes = Vec::with_capacity(begun.plan.jobs.len());
    for i in 0..begun.plan.jobs.len() as u32 {
        outcomes.push(texts.get(i).as_string().map_or(Outcome::Failed, Outcome::Text));
    }
    let fallback = begun.fallback.unwrap_or(Fallback::Digest);
    let done = compact_with(&input, &begun.plan_ref, &outcomes, fallback, Some(begun.facts()?))?;
    let errors = run::job_errors(&outcomes, &done);
    let rejected = done.llm_rejected.clone().map(JsValue::from);
    let jobs = Array::new();
    let mut report = done.applied.report;
    for (i, job) in begun.plan.jobs.iter().enumerate() {
        let entry = value_to_js(&Value::Object(fields(&[("id", &job.id), ("source", done.sources[i].as_str())])))?;
        let error = match errors[i] {
            Some(JobError::Summarizer) => failures.get(i as u32),
            Some(JobError::Refused) => rejected.clone().unwrap_or(JsValue::UNDEFINED),
            None => JsValue::UNDEFINED,
        };
        if let Some(why) = errors[i] {
            set(&entry, "error", &error)?;
            report.warnings.push(run::fallback_warning(&job.id, done.sources[i], why, &error_text(&error)));
        }
        set(&entry, "revisions", &revisions.get(i as u32))?;
        let revision_error = revision_errors.get(i as u32);
        if !revision_error.is_undefined() {
            set(&entry, "revisionError", &revision_error)?;
        }
        jobs.push(&entry);
    }
    report.tokens_before += begun.pruned_tokens();
    let result = to_js(&report)?;
    set(&result, "compacted", &JsValue::TRUE)?;
    set(&result, "pruned", &pruned_list)?;
    set(&result, "plan", &plan_js)?;
    set(&result, "jobs", &jobs)?;
    with_messages(result, output_to_js(&done.applied.slots, &snapshot, input.key, &begun.value)?)
}

/// Frees a run that will not be finished (`summarize` failed with `fallback: "none"`).
#[wasm_bindgen(js_name = __compact_cancel)]
pub fn compact_cancel(run: u32) {
    RUNS.with_borrow_mut(|runs| runs.take(run));
}

/// `compact`'s own options, beside the usual ones.
struct CompactOptions {
    summarize: Function,
    /// `"offline"`, `"truncate"` or `"none"`; `None` when not given (it then depends on the preset).
    fallback: Option<String>,
    /// How many `summarize` calls may be in flight at once.
    concurrency: u32,
    /// Called as jobs finish (`{ jobId, done, total, source }`), or not at all.
    on_progress: JsValue,
    /// Called for each job that fell back (`{ jobId, source, error }`), or not at all.
    on_fallback: JsValue,
    /// Revision rounds per job when a summary lost facts.
    max_revisions: u32,
    /// Prune before planning (the default).
    prune: bool,
    /// The provider's context-length error for this history, to compact harder on its numbers.
    overflow: Option<Overflow>,
}

fn split_options(options: &JsValue) -> Result<(CompactOptions, JsValue), Error> {
    if !options.is_object() || options.is_function() || Array::is_array(options) {
        return Err(Error::option("options", "expected { summarize, ...options }"));
    }
    let field = |name: &str| {
        Reflect::get(options, &name.into()).map_err(|_| Error::option(subpath("options", name), "cannot be read"))
    };
    let summarize = field("summarize")?.dyn_into::<Function>().map_err(|_| {
        Error::option("options.summarize", "required: a function (prompt) => summary text, or a Promise of it")
    })?;
    let fallback = field("fallback")?;
    let fallback = match fallback.as_string() {
        _ if fallback.is_undefined() => None,
        Some(f) if ["offline", "truncate", "none"].contains(&f.as_str()) => Some(f),
        _ => return Err(Error::option("options.fallback", "expected \"offline\", \"truncate\" or \"none\"")),
    };
    let concurrency = field("concurrency")?;
    let concurrency = match concurrency.as_f64() {
        _ if concurrency.is_undefined() => 4,
        Some(n) if (1.0..=64.0).contains(&n) && n.fract() == 0.0 => n as u32,
        _ => return Err(Error::option("options.concurrency", "expected a whole number from 1 to 64")),
    };
    let max_revisions = field("maxRevisions")?;
    let max_revisions = match max_revisions.as_f64() {
        _ if max_revisions.is_undefined() => 1,
        Some(n) if (0.0..=5.0).contains(&n) && n.fract() == 0.0 => n as u32,
        _ => return Err(Error::option("options.maxRevisions", "expected a whole number from 0 to 5")),
    };
    let on_progress = field("onProgress")?;
    if !on_progress.is_undefined() && !on_progress.is_function() {
        return Err(Error::option(
            "options.onProgress",
            "expected a function ({ jobId, done, total, source }) => void",
        ));
    }
    let on_fallback = field("onFallback")?;
    if !on_fallback.is_undefined() && !on_fallback.is_function() {
        return Err(Error::option("options.onFallback", "expected a function ({ jobId, source, error }) => void"));
    }
    let overflow = field("overflow")?;
    let overflow = match overflow_of(&overflow) {
        _ if overflow.is_undefined() => None,
        Some(found) => Some(found),
        None => {
            return Err(Error::option(
                "options.overflow",
                "not a context-length error of OpenAI, Anthropic or Gemini (see context_overflow)",
            ))
        }
    };
    let prune = field("prune")?;
    let prune = match prune.as_bool() {
        _ if prune.is_undefined() => true,
        Some(b) => b,
        None => return Err(Error::option("options.prune", "expected a boolean")),
    };
    let rest = Object::assign(&Object::new(), options.unchecked_ref());
    for name in [
        "summarize",
        "fallback",
        "concurrency",
        "maxRevisions",
        "onProgress",
        "onFallback",
        "prune",
        "overflow",
        "memory",
    ] {
        let _ = Reflect::delete_property(&rest, &name.into());
    }
    Ok((
        CompactOptions { summarize, fallback, concurrency, max_revisions, on_progress, on_fallback, prune, overflow },
        rest.into(),
    ))
}

fn set(target: &JsValue, key: &str, value: &JsValue) -> Result<(), JsValue> {
    Reflect::set(target, &key.into(), value).map(drop)
}
