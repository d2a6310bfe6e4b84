//! `compact(messages, { summarize, fallback, ...options })`: plan, ask the host's `summarize` for each
//! job, apply. Which summary each job gets (the model's, or the offline digest when the model failed or
//! its summary was refused) is decided in `crate::compact`; this file makes the async calls and
//! translates.

use super::convert::{error_to_js, messages_from_js, output_to_js, snapshot, to_js, value_from_js, with_messages};
use crate::compact::{compact_with, Outcome, Source};
use crate::error::{Code, Error};
use crate::input::Input;
use crate::options::Options;
use js_sys::{Array, Function, Object, Promise, Reflect};
use serde_json::json;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// Plans, summarizes and applies in one call; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = compact)]
pub async fn compact_js(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let (summarize, fallback, core_options) = split_options(&options).map_err(error_to_js)?;
    let value = messages_from_js(&messages).map_err(error_to_js)?;
    let input = Input::read(&value).map_err(error_to_js)?;
    // The caller's objects as they are now: the host may push to (or even reorder) its array while the
    // summaries are written, and the result must hold the objects the plan was made from.
    let snapshot = snapshot(&messages, input.key)?;
    let options = value_from_js(&core_options, "options", Code::InvalidOption)
        .and_then(|o| Options::from_json(&o))
        .map_err(error_to_js)?;
    let plan = crate::plan::plan_compaction(&input, &options).map_err(error_to_js)?;
    let plan_js = to_js(&plan)?;

    if !plan.needed || plan.jobs.is_empty() {
        let result = to_js(&json!({
            "compacted": false, "tokensBefore": plan.tokens_before, "tokensAfter": plan.tokens_before,
            "audit": null, "warnings": plan.warnings, "jobs": [],
        }))?;
        set(&result, "plan", &plan_js)?;
        // A new array (or body) of the caller's own objects, as when something is compacted.
        return with_messages(result, snapshot);
    }

    let mut outcomes = Vec::with_capacity(plan.jobs.len());
    let mut failures = Vec::with_capacity(plan.jobs.len());
    for job in &plan.jobs {
        let prompt = to_js(&json!({
            "jobId": job.id, "system": job.prompt.system, "user": job.prompt.user, "maxOutputTokens": job.max_output_tokens,
        }))?;
        match ask(&summarize, &prompt, &job.id).await {
            Ok(text) => {
                outcomes.push(Outcome::Text(text));
                failures.push(None);
            }
            Err(e) if fallback => {
                outcomes.push(Outcome::Failed);
                failures.push(Some(e));
            }
            // fallback: "none": the host's own error, unchanged.
            Err(e) => return Err(e),
        }
    }

    let plan_value = serde_json::to_value(&plan).map_err(|e| JsValue::from(js_sys::Error::new(&e.to_string())))?;
    let done = compact_with(&input, &plan_value, &outcomes).map_err(error_to_js)?;
    let rejected = done.llm_rejected.map(error_to_js);
    let jobs = Array::new();
    for (i, job) in plan.jobs.iter().enumerate() {
        let entry = to_js(&json!({ "id": job.id, "source": done.sources[i].as_str() }))?;
        // Why this job has the digest: the summarizer's own error, or the refusal of its summary.
        let why = failures[i].clone().or_else(|| (done.sources[i] == Source::Offline).then(|| rejected.clone()).flatten());
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

/// Calls the host's summarizer; a throw or a rejection comes back as the host's own error value.
async fn ask(summarize: &Function, prompt: &JsValue, job_id: &str) -> Result<String, JsValue> {
    let returned = summarize.call1(&JsValue::UNDEFINED, prompt)?;
    let settled = JsFuture::from(Promise::resolve(&returned)).await?;
    settled.as_string().ok_or_else(|| {
        let what = settled.js_typeof().as_string().unwrap_or_default();
        error_to_js(Error::new(Code::InvalidInput, format!("summarize({job_id})"), format!("returned a {what}, not the summary text")))
    })
}

fn set(target: &JsValue, key: &str, value: &JsValue) -> Result<(), JsValue> {
    Reflect::set(target, &key.into(), value).map(drop)
}
