//! The Rust half of `openai_summarizer` and `anthropic_summarizer`: synchronous steps that the JS half
//! (`scripts/entries/async.js`) calls around its own `fetch`. What to send and how to read the answer
//! is decided in `crate::compaction::summarizer`; these steps only translate.
//!
//! The network and the awaiting are in JS because doing them in Rust (gloo-net, web-sys and
//! wasm-bindgen-futures) cost 5.0 KiB gzip more of the package's budget than the few lines of JS that
//! replace them (measured with `npm run build`). The exports are prefixed `__`: the entries do not re-export them.

use super::convert::{js_error, value_from_js};
use crate::compaction::summarizer::{parse_answer, request, Api, ClientConfig, ClientError, Prompt};
use crate::error::Code;
use js_sys::{Array, Object, Reflect};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

thread_local! {
    /// Every client made so far, by handle. A client lives as long as the host may call its function,
    /// which the wasm cannot know, so clients are never freed (one small config each, as the closure
    /// this replaces was never freed either).
    static CLIENTS: RefCell<Vec<ClientConfig>> = const { RefCell::new(Vec::new()) };
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

fn with_client<T>(client: u32, f: impl FnOnce(&ClientConfig) -> T) -> T {
    // Handles only come from `__summarizer_new`, and clients are never removed.
    CLIENTS.with_borrow(|clients| f(&clients[client as usize]))
}

/// The request for one prompt: `{ url, headers: [[name, value], …], body, timeoutMs }`.
#[wasm_bindgen(js_name = __summarizer_request)]
pub fn summarizer_request(client: u32, prompt: JsValue) -> Result<JsValue, JsValue> {
    let prompt = value_from_js(&prompt, "prompt", Code::InvalidInput).and_then(|v| Prompt::from_json(&v))?;
    with_client(client, |config| {
        let http = request(config, &prompt);
        let headers = Array::new();
        // Each pair pushed rather than made by `Array::of2`: no import (and glue function) for it alone.
        for (name, value) in &http.headers {
            let pair = Array::new();
            pair.push(&name.into());
            pair.push(&value.into());
            headers.push(&pair);
        }
        let out = Object::new();
        Reflect::set(&out, &"url".into(), &http.url.into())?;
        Reflect::set(&out, &"headers".into(), &headers)?;
        Reflect::set(&out, &"body".into(), &http.body.into())?;
        Reflect::set(&out, &"timeoutMs".into(), &config.timeout_ms.into())?;
        Ok(out.into())
    })
}

/// The summary text from the endpoint's answer, or the error to throw.
#[wasm_bindgen(js_name = __summarizer_answer)]
pub fn summarizer_answer(client: u32, status: u16, status_text: &str, body: &str) -> Result<String, JsValue> {
    with_client(client, |config| parse_answer(config, status, status_text, body)).map_err(client_error_to_js)
}

/// The error for a request that got no answer (`cause`: what fetch or the body read threw, as text,
/// with its own causes; `thrown`: the value itself, kept as the error's `cause`).
#[wasm_bindgen(js_name = __summarizer_unreachable)]
pub fn summarizer_unreachable(client: u32, timed_out: bool, cause: &str, thrown: JsValue) -> JsValue {
    let err = with_client(client, |config| client_error_to_js(ClientError::unreachable(config, timed_out, cause)));
    if !thrown.is_undefined() {
        let _ = Reflect::set(&err, &"cause".into(), &thrown);
    }
    err
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
