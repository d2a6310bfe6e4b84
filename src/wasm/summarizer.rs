//! `openai_summarizer` and `anthropic_summarizer`: make a `summarize(prompt)` function that sends one
//! job's prompt to an LLM endpoint and resolves to the summary text. What to send and how to read the
//! answer is decided in `crate::summarizer`; this file only moves bytes.
//!
//! gloo-net builds the request and reads the answer. The request is sent with the *global* `fetch` (as
//! gloo-net itself does: no `window`), so the same code runs in browsers, Web Workers, Node ≥ 18 and
//! Cloudflare Workers; pkg-tests run it in Node, workerd and Chromium against a local server. We call
//! that global `fetch` through our own `catch` binding rather than gloo-net's `send()`, because `send()`
//! panics when a (polyfilled) fetch rejects with a non-Error or resolves to something that is not the
//! global `Response`, and a panic would abort the wasm instance for every caller.

use super::convert::{error_to_js, value_from_js};
use crate::error::Code;
use crate::summarizer::{parse_answer, request, Api, ClientConfig, ClientError, Prompt};
use gloo_net::http::{Request, Response};
use wasm_bindgen_futures::JsFuture;
use js_sys::{Function, Promise, Reflect};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;
use web_sys::AbortSignal;

/// `summarize(prompt)` for an OpenAI-compatible Chat Completions endpoint; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = openai_summarizer)]
pub fn openai_summarizer_js(options: JsValue) -> Result<Function, JsValue> {
    summarizer(Api::OpenAiChat, &options)
}

/// `summarize(prompt)` for the Anthropic Messages API; see `ctxfold.d.ts`.
#[wasm_bindgen(js_name = anthropic_summarizer)]
pub fn anthropic_summarizer_js(options: JsValue) -> Result<Function, JsValue> {
    summarizer(Api::AnthropicMessages, &options)
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = fetch, catch)]
    fn global_fetch(request: &web_sys::Request) -> Result<Promise, JsValue>;
}

fn summarizer(api: Api, options: &JsValue) -> Result<Function, JsValue> {
    // Checked now, so a typo in the configuration fails where the client is made, not mid-compaction.
    let config = value_from_js(options, "options", Code::InvalidOption)
        .and_then(|v| ClientConfig::from_json(api, &v))
        .map_err(error_to_js)?;
    let config = Rc::new(config);
    let summarize = Closure::<dyn Fn(JsValue) -> Promise>::new(move |prompt: JsValue| {
        let config = Rc::clone(&config);
        future_to_promise(async move { summarize(&config, &prompt).await.map(JsValue::from) })
    });
    // Handed to JS for good: the function lives as long as the host keeps it (one small closure per client).
    Ok(summarize.into_js_value().unchecked_into())
}

async fn summarize(config: &ClientConfig, prompt: &JsValue) -> Result<String, JsValue> {
    let prompt = value_from_js(prompt, "prompt", Code::InvalidInput).and_then(|v| Prompt::from_json(&v)).map_err(error_to_js)?;
    let http = request(config, &prompt);
    // AbortSignal.timeout rather than a timer of our own: nothing to clear, and no timer is left
    // pending in a Worker after the request is done.
    let signal = AbortSignal::timeout_with_u32(config.timeout_ms);
    let mut builder = Request::post(&http.url).abort_signal(Some(&signal));
    for (name, value) in &http.headers {
        builder = builder.header(name, value);
    }
    let unreachable = |cause: &str, thrown: Option<&JsValue>| {
        let name = thrown.and_then(|e| Reflect::get(e, &"name".into()).ok()).and_then(|n| n.as_string());
        let timed_out = name.as_deref() == Some("TimeoutError") || signal.aborted();
        client_error_to_js(ClientError::unreachable(config, timed_out, cause))
    };
    let request: web_sys::Request = builder.body(http.body).map_err(|e| unreachable(&e.to_string(), None))?.into();
    let sent = global_fetch(&request).map_err(|e| unreachable(&js_text(&e), Some(&e)))?;
    let answered = JsFuture::from(sent).await.map_err(|e| unreachable(&js_text(&e), Some(&e)))?;
    let raw: web_sys::Response = answered
        .dyn_into()
        .map_err(|_| unreachable("fetch() resolved to something other than a Response", None))?;
    let response = Response::from(raw);
    // The body is read inside the same timeout: a server that sends headers and then stalls still fails.
    let body = response.text().await.map_err(|e| unreachable(&e.to_string(), None))?;
    parse_answer(config, response.status(), &response.status_text(), &body).map_err(client_error_to_js)
}

/// A thrown JS value as text: an Error's "Name: message", or the value itself.
fn js_text(e: &JsValue) -> String {
    match e.dyn_ref::<js_sys::Error>() {
        Some(err) => format!("{}: {}", String::from(err.name()), String::from(err.message())),
        None => e.as_string().unwrap_or_else(|| format!("{e:?}")),
    }
}

/// The same `Error` shape as the core's errors (name `CtxfoldError`, `code`, `path`), plus the HTTP
/// `status` when the endpoint answered. The message was redacted by the core.
fn client_error_to_js(e: ClientError) -> JsValue {
    let err = js_sys::Error::new(&format!("ctxfold: {} at {}: {}", e.code, e.path, e.message));
    err.set_name("CtxfoldError");
    let _ = Reflect::set(&err, &"code".into(), &e.code.into());
    let _ = Reflect::set(&err, &"path".into(), &e.path.into());
    if let Some(status) = e.status {
        let _ = Reflect::set(&err, &"status".into(), &status.into());
    }
    err.into()
}
