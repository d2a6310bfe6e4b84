//! The built-in summarizer clients, minus the network: reading a client's configuration, writing the
//! HTTP request for one summary job, and reading the endpoint's answer. The binding
//! (`src/wasm/summarizer.rs`) only sends what this module wrote and hands back what it read, so
//! everything that can be decided without a network is tested natively here.
//!
//! The API key is a secret the host lends us: it goes into one request header and nowhere else. Every
//! error text that could contain it (an endpoint echoing the request, a URL with the key as a query
//! parameter) passes through [`redact`] first.

use crate::error::{expected, subpath, Error, Result};
use crate::text::without_unfinished_end;
use serde_json::Value;

/// Which wire protocol the endpoint speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// OpenAI Chat Completions (`POST …/chat/completions`), which most providers and local servers copy.
    OpenAiChat,
    /// Anthropic Messages (`POST …/v1/messages`).
    AnthropicMessages,
}

/// The default request timeout: long summaries of long histories take tens of seconds.
pub const DEFAULT_TIMEOUT_MS: u32 = 60_000;
/// `setTimeout` (behind `AbortSignal.timeout`) overflows above 2^31 − 1 ms and fires at once.
const MAX_TIMEOUT_MS: u64 = i32::MAX as u64;
/// Anthropic requires `max_tokens`; used when the job gives none.
const ANTHROPIC_DEFAULT_MAX_TOKENS: u32 = 4096;
/// How much of an error body is quoted in the error message.
const ERROR_SNIPPET_CHARS: usize = 300;
const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";
const ANTHROPIC_VERSION: &str = "2023-06-01";

#[derive(Debug, Clone, PartialEq)]
pub struct ClientConfig {
    pub api: Api,
    /// The full URL requests are POSTed to.
    pub endpoint: String,
    pub api_key: Option<String>,
    pub model: String,
    /// Extra headers, sent after (and so overriding) the ones the protocol needs.
    pub headers: Vec<(String, String)>,
    pub timeout_ms: u32,
    /// The field the answer's length limit goes in (OpenAI Chat: `max_tokens` or `max_completion_tokens`).
    pub max_tokens_field: &'static str,
    /// Extra body fields (`temperature`, `reasoning_effort`, ...): each name with its value as JSON text.
    pub body: Vec<(String, String)>,
}

/// OpenAI's reasoning models (the o-series, the gpt-5 family) refuse `max_tokens` with a 400 and want
/// `max_completion_tokens`; other OpenAI-compatible servers (vLLM, llama.cpp, Ollama, most proxies)
/// read `max_tokens`. The model name decides unless the host does: its last path segment (OpenRouter
/// writes `openai/o3-mini`), lowercased.
fn max_tokens_field_for(model: &str) -> &'static str {
    let name = model.rsplit('/').next().unwrap_or(model).to_ascii_lowercase();
    let o_series = name.strip_prefix('o').is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
    match o_series || name.starts_with("gpt-5") {
        true => "max_completion_tokens",
        false => "max_tokens",
    }
}

/// The body fields each protocol's client writes itself: `body` may not set them.
fn own_fields(api: Api) -> &'static [&'static str] {
    match api {
        Api::OpenAiChat => &["model", "messages", "max_tokens", "max_completion_tokens"],
        Api::AnthropicMessages => &["model", "messages", "system", "max_tokens"],
    }
}

impl ClientConfig {
    /// Reads `{ baseUrl, apiKey, model, headers, timeoutMs }`; every mistake is `INVALID_OPTION` at
    /// `options.<field>`, raised here when the client is made rather than on its first request.
    pub fn from_json(api: Api, v: &Value) -> Result<ClientConfig> {
        let Value::Object(fields) = v else {
            return Err(Error::option("options", expected("an object", v)));
        };
        for name in fields.keys() {
            if !["baseUrl", "apiKey", "model", "headers", "timeoutMs", "maxTokensField", "body"]
                .contains(&name.as_str())
            {
                return Err(Error::option(subpath("options", name), "unknown option"));
            }
        }
        let string = |name: &str| -> Result<Option<String>> {
            match fields.get(name) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(Error::option(subpath("options", name), expected("a string", other))),
            }
        };
        let base_url = match (string("baseUrl")?, api) {
            (Some(url), _) => url,
            (None, Api::AnthropicMessages) => ANTHROPIC_BASE_URL.to_string(),
            (None, Api::OpenAiChat) => {
                return Err(Error::option(
                    "options.baseUrl",
                    "required: the endpoint's base URL, e.g. https://api.openai.com/v1",
                ))
            }
        };
        let model = string("model")?
            .filter(|m| !m.trim().is_empty())
            .ok_or_else(|| Error::option("options.model", "required: the model name"))?;
        let api_key = string("apiKey")?.filter(|k| !k.is_empty());
        if let Some(key) = &api_key {
            if !is_header_value(key) {
                return Err(Error::option(
                    "options.apiKey",
                    "contains a line break or another character a header cannot carry",
                ));
            }
        }
        let max_tokens_field = match (string("maxTokensField")?.as_deref(), api) {
            (None, Api::OpenAiChat) => max_tokens_field_for(&model),
            (None, Api::AnthropicMessages) => "max_tokens",
            (Some("max_tokens"), Api::OpenAiChat) => "max_tokens",
            (Some("max_completion_tokens"), Api::OpenAiChat) => "max_completion_tokens",
            (Some(_), Api::OpenAiChat) => {
                return Err(Error::option(
                    "options.maxTokensField",
                    "expected \"max_tokens\" or \"max_completion_tokens\"",
                ))
            }
            (Some(_), Api::AnthropicMessages) => {
                return Err(Error::option(
                    "options.maxTokensField",
                    "only for openai_summarizer: Anthropic reads max_tokens",
                ))
            }
        };
        Ok(ClientConfig {
            api,
            endpoint: endpoint(api, &base_url)?,
            api_key,
            model,
            headers: read_headers(fields.get("headers"))?,
            timeout_ms: read_timeout(fields.get("timeoutMs"))?,
            max_tokens_field,
            body: read_body(api, fields.get("body"))?,
        })
    }
}

/// The URL to POST to: the base URL with the protocol's path appended, unless it already ends with it.
fn endpoint(api: Api, base_url: &str) -> Result<String> {
    let base = base_url.trim().trim_end_matches('/');
    let host = base.strip_prefix("https://").or_else(|| base.strip_prefix("http://"));
    if host.is_none_or(|h| h.is_empty() || h.starts_with('/')) || base.contains(char::is_whitespace) {
        return Err(Error::option("options.baseUrl", "expected an http:// or https:// URL"));
    }
    Ok(match api {
        Api::OpenAiChat if base.ends_with("/chat/completions") => base.to_string(),
        Api::OpenAiChat => format!("{base}/chat/completions"),
        Api::AnthropicMessages if base.ends_with("/v1/messages") => base.to_string(),
        Api::AnthropicMessages if base.ends_with("/v1") => format!("{base}/messages"),
        Api::AnthropicMessages => format!("{base}/v1/messages"),
    })
}

/// Header names and values are checked here because the `Headers` API throws on bad ones, and a
/// throw inside the wasm would skip the Rust code that should turn it into a proper error.
fn read_headers(v: Option<&Value>) -> Result<Vec<(String, String)>> {
    let map = match v {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(map)) => map,
        Some(other) => return Err(Error::option("options.headers", expected("an object of strings", other))),
    };
    let mut out = Vec::with_capacity(map.len());
    for (name, value) in map {
        let path = subpath("options.headers", name);
        let Value::String(value) = value else {
            return Err(Error::option(path, expected("a string", value)));
        };
        if !is_header_name(name) {
            return Err(Error::option(path, "not a valid header name"));
        }
        if !is_header_value(value) {
            return Err(Error::option(path, "contains a line break or another character a header cannot carry"));
        }
        out.push((name.clone(), value.clone()));
    }
    Ok(out)
}

/// Extra body fields, each kept as its JSON text, in the object's order.
fn read_body(api: Api, v: Option<&Value>) -> Result<Vec<(String, String)>> {
    let map = match v {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(map)) => map,
        Some(other) => return Err(Error::option("options.body", expected("an object of extra body fields", other))),
    };
    let mut out = Vec::with_capacity(map.len());
    for (name, value) in map {
        if own_fields(api).contains(&name.as_str()) {
            return Err(Error::option(
                subpath("options.body", name),
                "set by the client from the prompt and the options (use model, maxTokensField)",
            ));
        }
        out.push((name.clone(), crate::text::json_text(value)));
    }
    Ok(out)
}

fn read_timeout(v: Option<&Value>) -> Result<u32> {
    match v {
        None | Some(Value::Null) => Ok(DEFAULT_TIMEOUT_MS),
        Some(Value::Number(n)) => match n.as_u64() {
            Some(ms) if ms > 0 && ms <= MAX_TIMEOUT_MS => Ok(ms as u32),
            _ => Err(Error::option(
                "options.timeoutMs",
                format!("expected whole milliseconds from 1 to {MAX_TIMEOUT_MS}, got {n}"),
            )),
        },
        Some(other) => Err(Error::option("options.timeoutMs", expected("a number", other))),
    }
}

/// RFC 9110 token characters.
fn is_header_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

fn is_header_value(value: &str) -> bool {
    !value.chars().any(|c| matches!(c, '\r' | '\n' | '\0')) && value.chars().all(|c| (c as u32) < 256)
}

/// One job's prompt, as `plan_compaction` wrote it (`job.prompt` plus `job.maxOutputTokens`).
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub system: String,
    pub user: String,
    pub max_output_tokens: Option<u32>,
}

impl Prompt {
    /// Reads `{ system, user, maxOutputTokens? }`; other fields (a job id, say) are ignored, so a host
    /// can pass `{ ...job.prompt, maxOutputTokens: job.maxOutputTokens, jobId: job.id }` as is.
    pub fn from_json(v: &Value) -> Result<Prompt> {
        let Value::Object(fields) = v else {
            return Err(Error::input("prompt", expected("{ system, user, maxOutputTokens }", v)));
        };
        let text = |name: &str| match fields.get(name) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(Error::input(subpath("prompt", name), expected("a string", other))),
            None => Err(Error::input(subpath("prompt", name), "missing")),
        };
        let max_output_tokens = match fields.get("maxOutputTokens") {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) => match n.as_u64() {
                Some(t) if t > 0 && t <= u64::from(u32::MAX) => Some(t as u32),
                _ => {
                    return Err(Error::input(
                        "prompt.maxOutputTokens",
                        format!("expected a positive whole number, got {n}"),
                    ))
                }
            },
            Some(other) => return Err(Error::input("prompt.maxOutputTokens", expected("a number", other))),
        };
        Ok(Prompt { system: text("system")?, user: text("user")?, max_output_tokens })
    }
}

/// An HTTP request, ready to send.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpRequest {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

pub fn request(config: &ClientConfig, prompt: &Prompt) -> HttpRequest {
    let mut headers = vec![("content-type".to_string(), "application/json".to_string())];
    let model = json_string(&config.model);
    let (system, user) = (json_string(&prompt.system), json_string(&prompt.user));
    let body = match config.api {
        Api::OpenAiChat => {
            if let Some(key) = &config.api_key {
                headers.push(("authorization".into(), format!("Bearer {key}")));
            }
            let field = config.max_tokens_field;
            let max_tokens = prompt.max_output_tokens.map(|max| format!("\"{field}\":{max},")).unwrap_or_default();
            format!(
                r#"{{{max_tokens}"messages":[{{"content":{system},"role":"system"}},{{"content":{user},"role":"user"}}],"model":{model}{}}}"#,
                extra_fields(config)
            )
        }
        Api::AnthropicMessages => {
            if let Some(key) = &config.api_key {
                headers.push(("x-api-key".into(), key.clone()));
            }
            headers.push(("anthropic-version".into(), ANTHROPIC_VERSION.into()));
            // Anthropic refuses browser (CORS) requests without this; the host chose to call from
            // wherever it runs, with its own key, so the library does not second-guess it.
            headers.push(("anthropic-dangerous-direct-browser-access".into(), "true".into()));
            let max_tokens = prompt.max_output_tokens.unwrap_or(ANTHROPIC_DEFAULT_MAX_TOKENS);
            format!(
                r#"{{"max_tokens":{max_tokens},"messages":[{{"content":{user},"role":"user"}}],"model":{model},"system":{system}{}}}"#,
                extra_fields(config)
            )
        }
    };
    for (name, value) in &config.headers {
        // The host's header replaces the protocol's of the same name (names are case-insensitive), as
        // `Headers.set` would: one value each, never two joined.
        headers.retain(|(held, _)| !held.eq_ignore_ascii_case(name));
        headers.push((name.clone(), value.clone()));
    }
    HttpRequest { url: config.endpoint.clone(), headers, body }
}

/// The host's extra body fields, each as `,"name":value`, after the client's own.
fn extra_fields(config: &ClientConfig) -> String {
    let mut out = String::new();
    for (name, value) in &config.body {
        out.push(',');
        out.push_str(&json_string(name));
        out.push(':');
        out.push_str(value);
    }
    out
}

/// A JSON string literal (quotes and escapes as serde_json writes them). The bodies above are written
/// as text, keys in the order serde_json's map sorts them, because building them with `json!` compiled
/// to 0.5 KiB gzip more wasm; `bodies_are_the_text_json_writes` checks they are byte for byte the same.
fn json_string(s: &str) -> String {
    crate::text::quoted(s)
}

/// A failed summary request. `code` is part of the public contract, like the core's error codes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientError {
    pub code: &'static str,
    pub path: &'static str,
    pub message: String,
    /// The HTTP status, when the endpoint answered.
    pub status: Option<u16>,
}

pub const SUMMARIZER_HTTP: &str = "SUMMARIZER_HTTP";
pub const SUMMARIZER_RESPONSE: &str = "SUMMARIZER_RESPONSE";
pub const SUMMARIZER_NETWORK: &str = "SUMMARIZER_NETWORK";
pub const SUMMARIZER_TIMEOUT: &str = "SUMMARIZER_TIMEOUT";

impl ClientError {
    /// The request never got an answer: `timed_out` when the client's own timeout fired.
    pub fn unreachable(config: &ClientConfig, timed_out: bool, cause: &str) -> ClientError {
        let (code, message) = if timed_out {
            (SUMMARIZER_TIMEOUT, format!("no answer from {} within {} ms", config.endpoint, config.timeout_ms))
        } else {
            (SUMMARIZER_NETWORK, format!("the request to {} failed: {cause}", config.endpoint))
        };
        ClientError { code, path: "request", message: redact(&message, config.api_key.as_deref()), status: None }
    }
}

/// The summary text from the endpoint's answer, or why there is none.
pub fn parse_answer(
    config: &ClientConfig,
    status: u16,
    status_text: &str,
    body: &str,
) -> std::result::Result<String, ClientError> {
    let key = config.api_key.as_deref();
    let parsed: Option<Value> = crate::json::parse(body).ok();
    if !(200..300).contains(&status) {
        // Providers put the reason in `error.message` (OpenAI, Anthropic) or `error` (others).
        let reason = parsed
            .as_ref()
            .and_then(|v| {
                v.get("error").and_then(|e| e.get("message")).or_else(|| v.get("error")).or_else(|| v.get("message"))
            })
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| body.to_string());
        // As a u32: `u16`'s `Display` would be one more integer printer in the wasm, for this line alone.
        let message = format!("{} answered {} {status_text}: {}", config.endpoint, u32::from(status), snippet(&reason));
        return Err(ClientError {
            code: SUMMARIZER_HTTP,
            path: "response.status",
            message: redact(&message, key),
            status: Some(status),
        });
    }
    let bad = |path: &'static str, what: String| ClientError {
        code: SUMMARIZER_RESPONSE,
        path,
        message: redact(&what, key),
        status: Some(status),
    };
    let Some(answer) = parsed else {
        return Err(bad("response", format!("the answer is not JSON: {}", snippet(body))));
    };
    let (text, stop) = match config.api {
        Api::OpenAiChat => {
            // `get` steps rather than `pointer("/choices/0/message")`, which is used nowhere else and so
            // cost its own code in the wasm; `c.get("0")` reads an object keyed "0" as the pointer did.
            let choice = answer.get("choices").and_then(|c| c.get(0).or_else(|| c.get("0")));
            let message = choice.and_then(|c| c.get("message"));
            let text = match message.and_then(|m| m.get("content")) {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(parts)) => text_parts(parts),
                _ => {
                    let why = match message.and_then(|m| m.get("refusal")).and_then(Value::as_str) {
                        Some(refusal) => format!("the model refused: {}", snippet(refusal)),
                        None => "the answer has no text at choices[0].message.content".to_string(),
                    };
                    return Err(bad("response.choices[0].message.content", why));
                }
            };
            (text, choice.and_then(|c| c.get("finish_reason")))
        }
        Api::AnthropicMessages => match answer.get("content") {
            Some(Value::Array(blocks)) => (text_parts(blocks), answer.get("stop_reason")),
            _ => return Err(bad("response.content", "the answer has no content blocks".to_string())),
        },
    };
    // An answer its output limit cut off ends mid-word, at times mid-id: that word goes (see
    // `without_unfinished_end`); a fact it held is the audit's to find missing and append whole.
    let cut_off = matches!(stop.and_then(Value::as_str), Some("length" | "max_tokens"));
    let text = if cut_off { without_unfinished_end(&text) } else { text.trim() };
    if text.is_empty() {
        let path = match config.api {
            Api::OpenAiChat => "response.choices[0].message.content",
            Api::AnthropicMessages => "response.content",
        };
        return Err(bad(path, "the model answered with no text".to_string()));
    }
    Ok(text.to_string())
}

/// The text of `{ type: "text", text }` parts (both protocols use that shape for multi-part answers).
fn text_parts(parts: &[Value]) -> String {
    let mut out = String::new();
    for p in parts {
        if p.get("type").and_then(Value::as_str) == Some("text") {
            out.push_str(p.get("text").and_then(Value::as_str).unwrap_or(""));
        }
    }
    out
}

fn snippet(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(ERROR_SNIPPET_CHARS).collect();
    if chars.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}

/// `text` with every occurrence of the key replaced, so no error message or log line carries it.
pub fn redact(text: &str, key: Option<&str>) -> String {
    match key {
        Some(k) if !k.is_empty() => text.replace(k, "[redacted]"),
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map};

    fn config_from_pairs(api: Api, pairs: &[(&str, Value)]) -> Result<ClientConfig> {
        let map: Map<String, Value> = pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        ClientConfig::from_json(api, &Value::Object(map))
    }

    fn openai(key: Option<&str>) -> ClientConfig {
        let mut pairs = vec![("baseUrl", json!("http://127.0.0.1:8080/v1/")), ("model", json!("m"))];
        if let Some(k) = key {
            pairs.push(("apiKey", json!(k)));
        }
        config_from_pairs(Api::OpenAiChat, &pairs).unwrap()
    }

    fn prompt() -> Prompt {
        Prompt { system: "sys".into(), user: "conv".into(), max_output_tokens: Some(700) }
    }

    #[test]
    fn endpoints_append_the_protocol_path_once() {
        assert_eq!(openai(None).endpoint, "http://127.0.0.1:8080/v1/chat/completions");
        let full = config_from_pairs(
            Api::OpenAiChat,
            &[("baseUrl", json!("https://x.test/v1/chat/completions")), ("model", json!("m"))],
        )
        .unwrap();
        assert_eq!(full.endpoint, "https://x.test/v1/chat/completions");
        let anthropic = config_from_pairs(Api::AnthropicMessages, &[("model", json!("claude"))]).unwrap();
        assert_eq!(anthropic.endpoint, "https://api.anthropic.com/v1/messages");
        let v1 = config_from_pairs(
            Api::AnthropicMessages,
            &[("baseUrl", json!("http://127.0.0.1:1/v1")), ("model", json!("c"))],
        )
        .unwrap();
        assert_eq!(v1.endpoint, "http://127.0.0.1:1/v1/messages");
    }

    #[test]
    fn bad_configuration_names_the_option() {
        let err = |pairs: &[(&str, Value)]| config_from_pairs(Api::OpenAiChat, pairs).unwrap_err().path.clone();
        assert_eq!(err(&[("model", json!("m"))]), "options.baseUrl");
        assert_eq!(err(&[("baseUrl", json!("ftp://x")), ("model", json!("m"))]), "options.baseUrl");
        assert_eq!(err(&[("baseUrl", json!("http://x"))]), "options.model");
        assert_eq!(
            err(&[("baseUrl", json!("http://x")), ("model", json!("m")), ("timeoutMs", json!(0))]),
            "options.timeoutMs"
        );
        assert_eq!(
            err(&[("baseUrl", json!("http://x")), ("model", json!("m")), ("headers", json!({ "x y": "1" }))]),
            "options.headers.x y"
        );
        assert_eq!(
            err(&[("baseUrl", json!("http://x")), ("model", json!("m")), ("headers", json!({ "x": "a\nb" }))]),
            "options.headers.x"
        );
        assert_eq!(
            err(&[("baseUrl", json!("http://x")), ("model", json!("m")), ("apiKey", json!("k\r\n"))]),
            "options.apiKey"
        );
        assert_eq!(
            err(&[("baseUrl", json!("http://x")), ("model", json!("m")), ("modle", json!("m"))]),
            "options.modle"
        );
        let e = config_from_pairs(Api::OpenAiChat, &[("baseUrl", json!(5))]).unwrap_err();
        assert_eq!(e.code.as_str(), "INVALID_OPTION");
    }

    #[test]
    fn openai_request_carries_the_prompt_the_key_and_extra_headers() {
        let mut config = openai(Some("sk-secret"));
        config.headers = vec![("x-org".into(), "o".into())];
        let req = request(&config, &prompt());
        assert_eq!(req.url, "http://127.0.0.1:8080/v1/chat/completions");
        assert!(req.headers.contains(&("authorization".into(), "Bearer sk-secret".into())));
        assert_eq!(req.headers.last().unwrap(), &("x-org".to_string(), "o".to_string()));
        let body: Value = serde_json::from_str(&req.body).unwrap();
        assert_eq!(
            body,
            json!({ "model": "m", "max_tokens": 700, "messages": [
            { "role": "system", "content": "sys" }, { "role": "user", "content": "conv" } ] })
        );
        assert!(!request(&openai(None), &prompt()).headers.iter().any(|(k, _)| k == "authorization"));
    }

    #[test]
    fn a_host_header_replaces_the_protocols_of_the_same_name() {
        let mut config = openai(Some("sk-secret"));
        config.headers = vec![("Authorization".into(), "Token t".into()), ("Content-Type".into(), "text/json".into())];
        let names: Vec<String> = request(&config, &prompt()).headers.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        assert_eq!(names, ["Authorization: Token t", "Content-Type: text/json"]);
    }

    #[test]
    fn anthropic_request_uses_the_messages_shape() {
        let config =
            config_from_pairs(Api::AnthropicMessages, &[("model", json!("c")), ("apiKey", json!("k"))]).unwrap();
        let req = request(&config, &Prompt { max_output_tokens: None, ..prompt() });
        assert!(req.headers.contains(&("x-api-key".into(), "k".into())));
        assert!(req.headers.contains(&("anthropic-version".into(), ANTHROPIC_VERSION.into())));
        let body: Value = serde_json::from_str(&req.body).unwrap();
        assert_eq!(
            body,
            json!({ "model": "c", "max_tokens": 4096, "system": "sys", "messages": [{ "role": "user", "content": "conv" }] })
        );
    }

    #[test]
    fn bodies_are_the_text_json_writes() {
        let tricky =
            Prompt { system: "say \"hi\"\n\\ \u{1}é😀".into(), user: "</x>\t".into(), max_output_tokens: Some(7) };
        let mut config = openai(None);
        config.model = "m\"1".into();
        let expected = json!({ "model": config.model, "max_tokens": 7, "messages": [
            { "role": "system", "content": tricky.system }, { "role": "user", "content": tricky.user } ] });
        assert_eq!(request(&config, &tricky).body, expected.to_string());
        let no_max = Prompt { max_output_tokens: None, ..tricky.clone() };
        let expected = json!({ "model": config.model, "messages": [
            { "role": "system", "content": tricky.system }, { "role": "user", "content": tricky.user } ] });
        assert_eq!(request(&config, &no_max).body, expected.to_string());
        config.api = Api::AnthropicMessages;
        for (prompt, max) in [(&tricky, 7), (&no_max, ANTHROPIC_DEFAULT_MAX_TOKENS)] {
            let expected = json!({ "model": config.model, "max_tokens": max, "system": prompt.system,
                "messages": [{ "role": "user", "content": prompt.user }] });
            assert_eq!(request(&config, prompt).body, expected.to_string());
        }
    }

    #[test]
    fn reasoning_models_get_max_completion_tokens_and_extra_fields_go_in_the_body() {
        let with = |model: &str, extra: &[(&str, Value)]| {
            let mut pairs = vec![("baseUrl", json!("https://api.openai.com/v1")), ("model", json!(model))];
            pairs.extend(extra.iter().cloned());
            config_from_pairs(Api::OpenAiChat, &pairs)
        };
        for model in ["o1", "o3-mini", "o4-mini-2025-04-16", "gpt-5", "gpt-5.1-mini", "openai/o3", "GPT-5-nano"] {
            assert_eq!(with(model, &[]).unwrap().max_tokens_field, "max_completion_tokens", "{model}");
        }
        for model in ["gpt-4.1-mini", "gpt-4o", "llama-3.1-70b", "omni-moderation", "qwen2.5:0.5b"] {
            assert_eq!(with(model, &[]).unwrap().max_tokens_field, "max_tokens", "{model}");
        }
        let chosen = with("my-proxy-model", &[("maxTokensField", json!("max_completion_tokens"))]).unwrap();
        let extra = [("body", json!({ "reasoning_effort": "low", "temperature": 0.2 }))];
        let config = ClientConfig { body: with("o3", &extra).unwrap().body, ..chosen };
        let body: Value = serde_json::from_str(&request(&config, &prompt()).body).unwrap();
        assert_eq!(
            body,
            json!({ "model": "my-proxy-model", "max_completion_tokens": 700, "reasoning_effort": "low", "temperature": 0.2,
                "messages": [{ "role": "system", "content": "sys" }, { "role": "user", "content": "conv" }] })
        );
        assert_eq!(with("o3", &[("body", json!({ "max_tokens": 5 }))]).unwrap_err().path, "options.body.max_tokens");
        assert_eq!(with("o3", &[("maxTokensField", json!("max"))]).unwrap_err().path, "options.maxTokensField");
        let anthropic = |extra: Value| {
            config_from_pairs(Api::AnthropicMessages, &[("model", json!("claude-sonnet-4-5")), ("body", extra)])
        };
        let thinking = anthropic(json!({ "thinking": { "type": "enabled", "budget_tokens": 1024 } })).unwrap();
        let body: Value = serde_json::from_str(&request(&thinking, &prompt()).body).unwrap();
        assert_eq!(body["thinking"], json!({ "type": "enabled", "budget_tokens": 1024 }));
        assert_eq!(body["max_tokens"], json!(700));
        assert_eq!(anthropic(json!({ "system": "x" })).unwrap_err().path, "options.body.system");
    }

    #[test]
    fn answers_are_read_in_both_protocols() {
        let ok = r#"{"choices":[{"message":{"role":"assistant","content":"  the summary \n"}}]}"#;
        assert_eq!(parse_answer(&openai(None), 200, "OK", ok).unwrap(), "the summary");
        let parts = r#"{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}"#;
        assert_eq!(parse_answer(&openai(None), 200, "OK", parts).unwrap(), "ab");
        let anthropic = config_from_pairs(Api::AnthropicMessages, &[("model", json!("c"))]).unwrap();
        let blocks = r#"{"content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"sum"}]}"#;
        assert_eq!(parse_answer(&anthropic, 200, "OK", blocks).unwrap(), "sum");
    }

    #[test]
    fn an_answer_cut_off_at_its_output_limit_loses_its_unfinished_end() {
        let summary = "## Task\nChange the flights.\n- Reservations: DF89BM, COVE6R, II";
        let openai_answer = |finish: &str| {
            json!({ "choices": [{ "message": { "content": summary }, "finish_reason": finish }] }).to_string()
        };
        let c = openai(None);
        let finished = "## Task\nChange the flights.\n- Reservations: DF89BM, COVE6R,";
        assert_eq!(parse_answer(&c, 200, "OK", &openai_answer("length")).unwrap(), finished);
        assert_eq!(parse_answer(&c, 200, "OK", &openai_answer("stop")).unwrap(), summary);
        let anthropic = config_from_pairs(Api::AnthropicMessages, &[("model", json!("c"))]).unwrap();
        let blocks = |stop: &str| json!({ "content": [{ "type": "text", "text": summary }], "stop_reason": stop });
        assert_eq!(parse_answer(&anthropic, 200, "OK", &blocks("max_tokens").to_string()).unwrap(), finished);
        assert_eq!(parse_answer(&anthropic, 200, "OK", &blocks("end_turn").to_string()).unwrap(), summary);
    }

    #[test]
    fn unusable_answers_are_response_errors() {
        let c = openai(None);
        let e = parse_answer(&c, 200, "OK", "<html>").unwrap_err();
        assert_eq!((e.code, e.path), (SUMMARIZER_RESPONSE, "response"));
        let e = parse_answer(&c, 200, "OK", r#"{"choices":[{"message":{"content":"   "}}]}"#).unwrap_err();
        assert_eq!((e.code, e.path), (SUMMARIZER_RESPONSE, "response.choices[0].message.content"));
        let e =
            parse_answer(&c, 200, "OK", r#"{"choices":[{"message":{"content":null,"refusal":"no"}}]}"#).unwrap_err();
        assert!(e.message.contains("refused: no"), "{}", e.message);
    }

    #[test]
    fn http_errors_carry_the_status_and_never_the_key() {
        let c = openai(Some("sk-live-123"));
        let body = r#"{"error":{"message":"Incorrect API key provided: sk-live-123","type":"invalid_request_error"}}"#;
        let e = parse_answer(&c, 401, "Unauthorized", body).unwrap_err();
        assert_eq!((e.code, e.status), (SUMMARIZER_HTTP, Some(401)));
        assert!(
            e.message.contains("401 Unauthorized") && e.message.contains("Incorrect API key provided: [redacted]"),
            "{}",
            e.message
        );
        assert!(!e.message.contains("sk-live-123"));
        let long = "x".repeat(1000);
        assert!(parse_answer(&c, 500, "", &long).unwrap_err().message.chars().count() < 400);
        let e = ClientError::unreachable(&c, false, "connect refused for sk-live-123");
        assert_eq!(e.code, SUMMARIZER_NETWORK);
        assert!(!e.message.contains("sk-live-123"));
        assert_eq!(ClientError::unreachable(&c, true, "").code, SUMMARIZER_TIMEOUT);
    }

    #[test]
    fn prompts_are_read_from_a_job() {
        let p =
            Prompt::from_json(&json!({ "system": "s", "user": "u", "maxOutputTokens": 5, "jobId": "job-1" })).unwrap();
        assert_eq!(p, Prompt { system: "s".into(), user: "u".into(), max_output_tokens: Some(5) });
        assert_eq!(Prompt::from_json(&json!({ "system": "s" })).unwrap_err().path, "prompt.user");
        assert_eq!(Prompt::from_json(&json!("text")).unwrap_err().path, "prompt");
        assert_eq!(
            Prompt::from_json(&json!({ "system": "s", "user": "u", "maxOutputTokens": -1 })).unwrap_err().path,
            "prompt.maxOutputTokens"
        );
    }
}
