//! `openai_summarizer` and `anthropic_summarizer`: clients that send one job's prompt to an LLM
//! endpoint and resolve to the summary text. What to send and how to read the answer is decided in
//! `crate::compaction::summarizer`; this file only moves bytes, with gloo-net and web-sys.
//!
//! gloo-net builds the request; web-sys reads the answer, keeping what a failed read threw as the
//! error's cause. The request goes out through the *global*
//! `fetch` (no `window`), so the same code runs in browsers, Web Workers, Node ≥ 18 and Cloudflare
//! Workers. It is called through our own `catch` binding rather than gloo-net's `send()`: `send()`
//! panics when a polyfilled fetch rejects with a non-Error or resolves to something that is not a
//! `Response`, and a panic would abort the module for every caller. The exports are prefixed `__`:
//! `scripts/entries/async.js` wraps them in the two public functions.

use super::convert::{js_error, value_from_js};
use crate::compaction::summarizer::{parse_answer, request, Api, ClientConfig, ClientError, Prompt};
use crate::error::Code;
use gloo_net::http::Request;
use js_sys::{Promise, Reflect};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortSignal;

thread_local! {
    /// Every client made so far, by handle. A client lives as long as the host may call its function,
    /// which the wasm cannot know, so clients are never freed (one small config each).
    static CLIENTS: RefCell<Vec<Rc<ClientConfig>>> = const { RefCell::new(Vec::new()) };
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = fetch, catch)]
    fn global_fetch(request: &web_sys::Request) -> Result<Promise, JsValue>;
    /// `String(value)`: how a thrown value that is not an `Error` reads.
    #[wasm_bindgen(js_name = String)]
    fn js_string(value: &JsValue) -> String;
}

/// Checks a client's options (`api`: "openai" or "anthropic") and returns its handle. Checked now, so a
/// typo in the configuration fails where the client is made, not mid-compaction.
#[wasm_bindgen(js_name = __summarizer_new)]
pub fn summarizer_new(api: &str, options: JsValue) -> Result<u32, JsValue> {
    let api = if api == "anthropic" { Api::AnthropicMessages } else { Api::OpenAiChat };
    let config =
        value_from_js(&options, "options", Code::InvalidOption).and_then(|v| ClientConfig::from_json(api, &v))?;
    Ok(CLIENTS.with_borrow_mut(|clients| {
        clients.push(Rc::new(config));
        (clients.len() - 1) as u32
    }))
}

/// Sends one prompt with client `client` and resolves to the summary text.
#[wasm_bindgen(js_name = __summarize)]
pub async fn summarize(client: u32, prompt: JsValue) -> Result<JsValue, JsValue> {
    // Handles only come from `__summarizer_new`, and clients are never removed.
    let config = CLIENTS.with_borrow(|clients| Rc::clone(&clients[client as usize]));
    let prompt = value_from_js(&prompt, "prompt", Code::InvalidInput).and_then(|v| Prompt::from_json(&v))?;
    let http = request(&config, &prompt);
    // AbortSignal.timeout rather than a timer of our own: nothing to clear, and no timer is left
    // pending in a Worker after the request is done.
    let signal = AbortSignal::timeout_with_u32(config.timeout_ms);
    let unreachable = |cause: String, thrown: Option<JsValue>| {
        let name = thrown.as_ref().and_then(|e| Reflect::get(e, &"name".into()).ok()).and_then(|n| n.as_string());
        let timed_out = name.as_deref() == Some("TimeoutError") || signal.aborted();
        let err = client_error_to_js(ClientError::unreachable(&config, timed_out, &cause));
        if let Some(thrown) = thrown {
            let _ = Reflect::set(&err, &"cause".into(), &thrown);
        }
        err
    };
    let mut builder = Request::post(&http.url).abort_signal(Some(&signal));
    for (name, value) in &http.headers {
        builder = builder.header(name, value);
    }
    let request: web_sys::Request = builder.body(http.body).map_err(|e| unreachable(e.to_string(), None))?.into();
    let sent = global_fetch(&request).map_err(|e| unreachable(describe(&e, 0), Some(e)))?;
    let answered = JsFuture::from(sent).await.map_err(|e| unreachable(describe(&e, 0), Some(e)))?;
    let response: web_sys::Response = answered
        .dyn_into()
        .map_err(|_| unreachable("fetch() resolved to something other than a Response".into(), None))?;
    // The body is read inside the same timeout: a server that sends headers and then stalls still fails.
    // Read through web-sys rather than gloo's `text()`, which keeps only the message of what was thrown.
    let read = response.text().map_err(|e| unreachable(describe(&e, 0), Some(e)))?;
    let body = JsFuture::from(read).await.map_err(|e| unreachable(describe(&e, 0), Some(e)))?;
    let body = body.as_string().unwrap_or_default();
    let text = parse_answer(&config, response.status(), &response.status_text(), &body).map_err(client_error_to_js)?;
    Ok(text.into())
}

/// A thrown value as text: an Error's "Name: message" and its causes ("TypeError: fetch failed (Error:
/// connect ECONNREFUSED 127.0.0.1:2)"), or the value itself.
fn describe(thrown: &JsValue, depth: usize) -> String {
    let Some(err) = thrown.dyn_ref::<js_sys::Error>() else { return js_string(thrown) };
    let cause = err.cause();
    let cause = match cause.is_undefined() || depth >= 3 {
        true => String::new(),
        false => format!(" ({})", describe(&cause, depth + 1)),
    };
    format!("{}: {}{cause}", String::from(err.name()), String::from(err.message()))
}

/// The same `Error` shape as the core's errors (name `CtxfoldError`, `code`, `path`), plus the HTTP
/// `status` when the endpoint answered. The message was redacted by the core.
fn client_error_to_js(e: ClientError) -> JsValue {
    let err = js_error(e.code, e.path, &e.message);
    if let Some(status) = e.status {
        let _ = Reflect::set(&err, &"status".into(), &status.into());
    }
    err.into()
}
