//! The Rust half of `compact(messages, { summarize, fallback, ...options })`: synchronous steps that the
//! JS half (`scripts/entries/async.js`) drives, awaiting the host's `summarize` between them. Planning,
//! which summary each job gets (the model's, or the offline digest when the model failed or its summary
//! was refused) and applying are decided here and in `crate::compact`; JS only calls and awaits.
//!
//! The awaiting is in JS because an `async fn` export needs wasm-bindgen-futures and compiles to a large
//! state machine; see `src/wasm/summarizer.rs`. The exports are prefixed `__`: the entries do not
//! re-export them.

use super::convert::{error_to_js, messages_from_js, output_to_js, snapshot, to_js, value_from_js, with_messages};
use crate::compact::{compact_with, Outcome, Source};
use crate::error::{Code, Error};
use crate::input::Input;
use crate::options::Options;
use crate::plan::Plan;
use js_sys::{Array, Function, Object, Reflect, JSON};
use serde_json::{json, Value};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

/// A compaction waiting for its summaries.
struct Run {
    /// The messages as read when `compact` was called: the plan was made from them.
    value: Value,
    plan: Plan,
    /// The plan as `compact_with` reads it, and as the result gives it to JS.
    plan_value: Value,
    plan_js: JsValue,
    /// The caller's objects as they were then: the host may push to (or even reorder) its array while
    /// the summaries are written, and the result must hold the objects the plan was made from.
    snapshot: JsValue,
}

thread_local! {
    /// Runs by handle; a slot is freed by `__compact_finish` or `__compact_cancel`, which the JS half
    /// always calls (in a `finally`).
    static RUNS: RefCell<Vec<Option<Run>>> = const { RefCell::new(Vec::new()) };
}

/// Reads the options and messages and plans. Returns `{ result }` when there is nothing to summarize,
/// else `{ run, summarize, fallback, prompts }`: one prompt per job, in order, for `summarize`.
#[wasm_bindgen(js_name = __compact_begin)]
pub fn compact_begin(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let (summarize, fallback, core_options) = split_options(&options).map_err(error_to_js)?;
    let value = messages_from_js(&messages).map_err(error_to_js)?;
    let input = Input::read(&value).map_err(error_to_js)?;
    let snapshot = snapshot(&messages, input.key)?;
    let options = value_from_js(&core_options, "options", Code::InvalidOption)
        .and_then(|o| Options::from_json(&o))
        .map_err(error_to_js)?;
    let plan = crate::plan::plan_compaction(&input, &options).map_err(error_to_js)?;
    // The plan's JSON text once, parsed by JS for the result and by serde_json for `compact_with`:
    // `serde_json::to_value` would compile a second serializer for every plan type into the wasm.
    let plan_text = serde_json::to_string(&plan).map_err(|e| JsValue::from(js_sys::Error::new(&e.to_string())))?;
    let plan_js = JSON::parse(&plan_text)?;
    let out = Object::new();

    if !plan.needed || plan.jobs.is_empty() {
        let result = to_js(&json!({
            "compacted": false, "tokensBefore": plan.tokens_before, "tokensAfter": plan.tokens_before,
            "audit": null, "warnings": plan.warnings, "jobs": [],
        }))?;
        set(&result, "plan", &plan_js)?;
        // A new array (or body) of the caller's own objects, as when something is compacted.
        set(&out, "result", &with_messages(result, snapshot)?)?;
        return Ok(out.into());
    }

    let prompts = Array::new();
    for job in &plan.jobs {
        prompts.push(&to_js(&json!({
            "jobId": job.id, "system": job.prompt.system, "user": job.prompt.user, "maxOutputTokens": job.max_output_tokens,
        }))?);
    }
    let plan_value = serde_json::from_str(&plan_text).map_err(|e| JsValue::from(js_sys::Error::new(&e.to_string())))?;
    let run = Run { value, plan, plan_value, plan_js, snapshot };
    let handle = RUNS.with_borrow_mut(|runs| match runs.iter().position(Option::is_none) {
        Some(free) => {
            runs[free] = Some(run);
            free
        }
        None => {
            runs.push(Some(run));
            runs.len() - 1
        }
    });
    set(&out, "run", &(handle as u32).into())?;
    set(&out, "summarize", &summarize)?;
    set(&out, "fallback", &fallback.into())?;
    set(&out, "prompts", &prompts)?;
    Ok(out.into())
}

/// What `summarize` settled to for job `job_id`, if it is the summary text; else the error to report.
#[wasm_bindgen(js_name = __compact_text)]
pub fn compact_text(job_id: &str, settled: JsValue) -> Result<String, JsValue> {
    settled.as_string().ok_or_else(|| {
        let what = settled.js_typeof().as_string().unwrap_or_default();
        error_to_js(Error::new(Code::InvalidInput, format!("summarize({job_id})"), format!("returned a {what}, not the summary text")))
    })
}

/// Applies the summaries and frees the run. `texts[i]`: job i's summary, or `undefined` when its
/// `summarize` failed with `failures[i]` (the host's own error, reported unchanged).
#[wasm_bindgen(js_name = __compact_finish)]
pub fn compact_finish(run: u32, texts: Array, failures: Array) -> Result<JsValue, JsValue> {
    let Some(Run { value, plan, plan_value, plan_js, snapshot }) = take(run) else {
        return Err(error_to_js(Error::new(Code::InvalidInput, "run", "this compaction is already finished")));
    };
    let input = Input::read(&value).map_err(error_to_js)?;
    let outcomes: Vec<Outcome> = (0..plan.jobs.len() as u32)
        .map(|i| texts.get(i).as_string().map_or(Outcome::Failed, Outcome::Text))
        .collect();
    let done = compact_with(&input, &plan_value, &outcomes).map_err(error_to_js)?;
    let rejected = done.llm_rejected.map(error_to_js);
    let jobs = Array::new();
    for (i, job) in plan.jobs.iter().enumerate() {
        let entry = to_js(&json!({ "id": job.id, "source": done.sources[i].as_str() }))?;
        // Why this job has the digest: the summarizer's own error, or the refusal of its summary.
        let failure = failures.get(i as u32);
        let why = if outcomes[i] == Outcome::Failed {
            Some(failure)
        } else {
            (done.sources[i] == Source::Offline).then(|| rejected.clone()).flatten()
        };
        if let Some(error) = why {
            set(&entry, "error", &error)?;
        }
        jobs.push(&entry);
    }
    let result = to_js(&done.applied.report)?;
    set(&result, "compacted", &JsValue::TRUE)?;
    set(&result, "plan", &plan_js)?;
    set(&result, "jobs", &jobs)?;
    with_messages(result, output_to_js(&done.applied.slots, &snapshot, input.key)?)
}

/// Frees a run that will not be finished (`summarize` failed with `fallback: "none"`).
#[wasm_bindgen(js_name = __compact_cancel)]
pub fn compact_cancel(run: u32) {
    take(run);
}

fn take(run: u32) -> Option<Run> {
    RUNS.with_borrow_mut(|runs| runs.get_mut(run as usize).and_then(Option::take))
}

/// Takes `summarize` and `fallback` out; the rest are the usual options, checked by the core.
fn split_options(options: &JsValue) -> Result<(Function, bool, JsValue), Error> {
    if !options.is_object() || options.is_function() || Array::is_array(options) {
        return Err(Error::option("options", "expected { summarize, ...options }"));
    }
    let field = |name: &str| Reflect::get(options, &name.into()).map_err(|_| Error::option(format!("options.{name}"), "cannot be read"));
    let summarize = field("summarize")?
        .dyn_into::<Function>()
        .map_err(|_| Error::option("options.summarize", "required: a function (prompt) => summary text, or a Promise of it"))?;
    let fallback = field("fallback")?;
    let fallback = match fallback.as_string().as_deref() {
        _ if fallback.is_undefined() => true,
        Some("offline") => true,
        Some("none") => false,
        _ => return Err(Error::option("options.fallback", "expected \"offline\" or \"none\"")),
    };
    let rest = Object::assign(&Object::new(), options.unchecked_ref());
    for name in ["summarize", "fallback"] {
        let _ = Reflect::delete_property(&rest, &name.into());
    }
    Ok((summarize, fallback, rest.into()))
}

fn set(target: &JsValue, key: &str, value: &JsValue) -> Result<(), JsValue> {
    Reflect::set(target, &key.into(), value).map(drop)
}
