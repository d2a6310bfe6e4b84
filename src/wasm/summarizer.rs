//! `openai_summarizer` and `anthropic_summarizer`: make a `summarize(prompt)` function that sends one
//! job's prompt to an LLM endpoint and resolves to the summary text. What to send and how to read the
//! answer is decided in `crate::summarizer`; this file only moves bytes.
//!
//! The request goes through gloo-net, which binds the *global* `fetch` (not `window.fetch`), so the same
//! code runs in browsers, Web Workers, Node ≥ 18 and Cloudflare Workers; pkg-tests run it in Node,
//! workerd and Chromium against a local server.

use super::convert::{error_to_js, value_from_js};
use crate::error::Code;
use crate::summarizer::{parse_answer, request, Api, ClientConfig, ClientError, Prompt};
use gloo_net::http::{Request, Response};
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
    let unreachable = |e: gloo_net::Error| {
        let timed_out = matches!(&e, gloo_net::Error::JsError(js) if js.name == "TimeoutError") || signal.aborted();
        client_error_to_js(ClientError::unreachable(config, timed_out, &e.to_string()))
    };
    let response: Response = builder.body(http.body).map_err(unreachable)?.send().await.map_err(unreachable)?;
    // The body is read inside the same timeout: a server that sends headers and then stalls still fails.
    let body = response.text().await.map_err(unreachable)?;
    parse_answer(config, response.status(), &response.status_text(), &body).map_err(client_error_to_js)
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
