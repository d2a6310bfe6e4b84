//! `openai_summarizer` and `anthropic_summarizer`: clients that send one job's prompt to an LLM
//! endpoint and resolve to the summary text. What to send, how to read the answer and which error a
//! failure is are decided in `crate::compaction::summarizer`; the sending is JavaScript
//! (`scripts/entries/async.js`): the global `fetch` and its awaits, a few lines that run the same in
//! browsers, Web Workers, Node ≥ 18 and Cloudflare Workers. Sent from Rust (gloo-net, web-sys,
//! wasm-bindgen-futures), the same made the package 4.5 KiB of gzip larger. The exports are prefixed `__`:
//! the entries wrap them in the two public functions.

use super::convert::{js_error, value_from_js, value_to_js};
use crate::compaction::summarizer::{parse_answer, request, Api, ClientConfig, ClientError, Prompt};
use crate::error::Code;
use js_sys::Reflect;
use serde_json::json;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

thread_local! {
    /// Every client made so far, by handle. A client lives as long as the host may call its function,
    /// which the wasm cannot know, so clients are never freed (one small config each).
    static CLIENTS: RefCell<Vec<ClientConfig>> = const { RefCell::new(Vec::new()) };
}

/// Client `client`'s configuration, for `f`. Handles only come from `__summarizer_new`, and clients are
/// never removed.
fn with_client<T>(client: u32, f: impl FnOnce(&ClientConfig) -> T) -> T {
    CLIENTS.with_borrow(|clients| f(&clients[client as usize]))
}

/// Checks a client's options (`api`: "openai" or "anthropic") and returns its handle. Checked now, so a
/// typo in the configuration fails where the client is made, not mid-compaction.
#[wasm_bindgen(js_name = __summarizer_new)]
pub fn summarizer_new(api: &str, options: JsValue) -> Result<u32, JsValue> {
    let api = if api == "anthropic" { Api::AnthropicMessages } else { Api::OpenAiChat };
    let config =
        value_from_js(&options, "options", Code::InvalidOption).and_then(|v| ClientConfig::from_json(api, &v))?;
    Ok(CLIENTS.with_borrow_mut(|clients| {
        clients.push(config);
        (clients.len() - 1) as u32
    }))
}

/// What to send for one prompt: `{ url, headers: [[name, value], ...], body, timeoutMs }` (a POST).
#[wasm_bindgen(js_name = __summary_request)]
pub fn summary_request(client: u32, prompt: JsValue) -> Result<JsValue, JsValue> {
    let prompt = value_from_js(&prompt, "prompt", Code::InvalidInput).and_then(|v| Prompt::from_json(&v))?;
    let (http, timeout_ms) = with_client(client, |config| (request(config, &prompt), config.timeout_ms));
    value_to_js(&json!({ "url": http.url, "headers": http.headers, "body": http.body, "timeoutMs": timeout_ms }))
}

/// The summary text from the endpoint's answer, or the error why there is none (with the HTTP `status`).
#[wasm_bindgen(js_name = __summary_answer)]
pub fn summary_answer(client: u32, status: u16, status_text: &str, body: &str) -> Result<String, JsValue> {
    with_client(client, |config| parse_answer(config, status, status_text, body)).map_err(client_error_to_js)
}

/// The error for a request that got no answer: `SUMMARIZER_TIMEOUT`, or `SUMMARIZER_NETWORK` saying
/// `cause` (what `fetch` or the body's read threw, as text). The caller sets what was thrown as its `cause`.
#[wasm_bindgen(js_name = __summary_unreachable)]
pub fn summary_unreachable(client: u32, timed_out: bool, cause: &str) -> JsValue {
    with_client(client, |config| client_error_to_js(ClientError::unreachable(config, timed_out, cause)))
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
