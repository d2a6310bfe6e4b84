//! `context_overflow`: whether a provider's error says the request was longer than the model's
//! context, and the numbers it gives. Hosts receive these errors in many wrappings (the provider's
//! HTTP body, an SDK's error object, the AI SDK's `APICallError`, a body quoted as text inside
//! another error's message), so the binding hands over every string the error holds and this module
//! looks for each provider's documented wording in them:
//!
//! - OpenAI Chat Completions: `code: "context_length_exceeded"`, "This model's maximum context length
//!   is 128000 tokens. However, your messages resulted in 130532 tokens." (or "…you requested N
//!   tokens (M in the messages, K in the completion)");
//! - OpenAI Responses: the same code, "Your input exceeds the context window of this model.";
//! - Anthropic: "prompt is too long: 208310 tokens > 200000 maximum", and "input length and
//!   `max_tokens` exceed context limit: 188240 + 21333 > 200000";
//! - Gemini: "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576)."

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overflow {
    /// `"openai"`, `"anthropic"` or `"gemini"`.
    pub provider: &'static str,
    /// The model's limit on input tokens, when the error says it.
    pub limit: Option<u64>,
    /// The request's input tokens as the provider counted them, when the error says it.
    pub actual: Option<u64>,
}

crate::json_object!(Overflow {
    provider => "provider",
    limit if some => "limit",
    actual if some => "actual",
});

/// The overflow `texts` (every string of the error) and `codes` (the strings under its `code`
/// fields) describe, or None when they describe something else.
pub fn context_overflow(texts: &[String], codes: &[String]) -> Option<Overflow> {
    for text in texts {
        if let Some(found) = in_text(text) {
            return Some(found);
        }
    }
    // OpenAI's code without a message that gives numbers (the Responses API's wording).
    codes.iter().any(|c| c == "context_length_exceeded").then_some(Overflow {
        provider: "openai",
        limit: None,
        actual: None,
    })
}

fn in_text(text: &str) -> Option<Overflow> {
    if let Some(rest) = after(text, "maximum context length is ") {
        let limit = number_at(rest);
        // "your messages resulted in N tokens", or "you requested N tokens (M in the messages, …)".
        let actual = after(rest, "resulted in ")
            .and_then(number_at)
            .or_else(|| after(rest, " tokens (").and_then(number_at))
            .or_else(|| after(rest, "requested ").and_then(number_at));
        return Some(Overflow { provider: "openai", limit, actual });
    }
    if text.contains("input exceeds the context window") {
        return Some(Overflow { provider: "openai", limit: None, actual: None });
    }
    if let Some(rest) = after(text, "prompt is too long: ") {
        let actual = number_at(rest);
        let limit = after(rest, "> ").and_then(number_at);
        return Some(Overflow { provider: "anthropic", limit, actual });
    }
    if let Some(rest) = after(text, "exceed context limit: ") {
        let actual = number_at(rest);
        let limit = after(rest, "> ").and_then(number_at);
        return Some(Overflow { provider: "anthropic", limit, actual });
    }
    if let Some(rest) = after(text, "input token count (") {
        let actual = number_at(rest);
        let limit = after(rest, "maximum number of tokens allowed (").and_then(number_at);
        return limit.map(|limit| Overflow { provider: "gemini", limit: Some(limit), actual });
    }
    None
}

/// The text after the first `needle`, case-insensitively for its first letter (sentences start
/// with a capital, quotes of them do not).
fn after<'t>(text: &'t str, needle: &str) -> Option<&'t str> {
    if let Some(at) = text.find(needle) {
        return Some(&text[at + needle.len()..]);
    }
    let mut capital = needle.to_string();
    capital[..1].make_ascii_uppercase();
    text.find(&capital).map(|at| &text[at + capital.len()..])
}

/// The whole number `text` starts with (thousands separators allowed), if it starts with one.
fn number_at(text: &str) -> Option<u64> {
    let mut n: u64 = 0;
    let mut digits = 0;
    for c in text.chars() {
        match c {
            '0'..='9' => {
                n = n.checked_mul(10)?.checked_add(u64::from(c as u8 - b'0'))?;
                digits += 1;
            }
            ',' | '_' | '\u{202f}' if digits > 0 => {}
            _ => break,
        }
    }
    (digits > 0).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(text: &str) -> Option<Overflow> {
        context_overflow(&[text.to_string()], &[])
    }

    fn found(provider: &'static str, limit: Option<u64>, actual: Option<u64>) -> Option<Overflow> {
        Some(Overflow { provider, limit, actual })
    }

    #[test]
    fn each_provider_s_wording_gives_its_numbers() {
        let openai = "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.";
        assert_eq!(of(openai), found("openai", Some(128_000), Some(130_532)));
        let requested = "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (8000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.";
        assert_eq!(of(requested), found("openai", Some(8192), Some(8000)));
        let responses = "Your input exceeds the context window of this model. Please adjust your input and try again.";
        assert_eq!(of(responses), found("openai", None, None));
        assert_eq!(
            of("prompt is too long: 208310 tokens > 200000 maximum"),
            found("anthropic", Some(200_000), Some(208_310))
        );
        let with_output = "input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again";
        assert_eq!(of(with_output), found("anthropic", Some(200_000), Some(188_240)));
        let gemini = "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).";
        assert_eq!(of(gemini), found("gemini", Some(1_048_576), Some(1_200_293)));
    }

    #[test]
    fn quoted_inside_other_text_and_by_code_alone() {
        let wrapped = r#"400 {"error":{"message":"{\n  \"error\": {\n    \"code\": 400,\n    \"message\": \"The input token count (3475108) exceeds the maximum number of tokens allowed (1048576).\"}}"}}"#;
        assert_eq!(of(wrapped), found("gemini", Some(1_048_576), Some(3_475_108)));
        let codes = ["context_length_exceeded".to_string()];
        assert_eq!(context_overflow(&["Bad request".into()], &codes), found("openai", None, None));
    }

    #[test]
    fn other_errors_are_not_overflows() {
        for text in [
            "Incorrect API key provided: sk-***",
            "Rate limit reached for gpt-4o: 30000 tokens per min. Limit 30000, Used 29000, Requested 2000.",
            "max_tokens: Field required",
            "Unsupported parameter: 'max_tokens' is not supported with this model.",
            "The model `gpt-5` does not exist",
            "Overloaded",
            "input token count is fine",
        ] {
            assert_eq!(of(text), None, "{text}");
        }
        assert_eq!(context_overflow(&[], &["rate_limit_exceeded".into()]), None);
    }
}
