//! `options.cache`: the provider's cache prices, which decide whether an edit pays for the prompt cache
//! it throws away (`crate::prompt_cache::cache_cost`).

use crate::error::{expected, subpath, Error, Result};
use crate::text::json_text;
use serde_json::Value;

/// Anthropic's documented prices relative to input: cache reads 0.1×, 5-minute cache writes 1.25×.
pub const READ_PRICE: f64 = 0.1;

pub const WRITE_PRICE: f64 = 1.25;

/// Requests over which an edit must pay for itself unless the host says otherwise.
pub const DEFAULT_HORIZON: u32 = 10;

/// `options.cache`: the provider's prices (any unit, only their ratios matter) and what is cached.
#[derive(Debug, Clone, PartialEq)]
pub struct CachePrices {
    pub input: f64,
    pub read: f64,
    pub write: f64,
    /// Tokens of the prefix the provider holds; None: the messages of the latest usage report, or
    /// every message but the newest (the previous request).
    pub cached_prefix_tokens: Option<u64>,
    pub horizon: u32,
}

impl Default for CachePrices {
    fn default() -> Self {
        CachePrices {
            input: 1.0,
            read: READ_PRICE,
            write: WRITE_PRICE,
            cached_prefix_tokens: None,
            horizon: DEFAULT_HORIZON,
        }
    }
}

const KEYS: [&str; 5] = ["inputPrice", "readPrice", "writePrice", "cachedPrefixTokens", "horizon"];

impl CachePrices {
    /// `true` means the defaults; an object sets some of them.
    pub fn from_json(v: &Value) -> Result<Option<CachePrices>> {
        let obj = match v {
            Value::Null | Value::Bool(false) => return Ok(None),
            Value::Bool(true) => return Ok(Some(CachePrices::default())),
            Value::Object(o) => o,
            other => return Err(Error::option("options.cache", expected("true or an object of prices", other))),
        };
        if let Some(k) = obj.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(Error::option(
                subpath("options.cache", k),
                format!("unknown field; known: {}", KEYS.join(", ")),
            ));
        }
        let price = |key: &str, default: f64| -> Result<f64> {
            match obj.get(key) {
                None | Some(Value::Null) => Ok(default),
                Some(v) => v.as_f64().filter(|p| p.is_finite() && *p >= 0.0).ok_or_else(|| {
                    Error::option(
                        subpath("options.cache", key),
                        ["expected a price of at least 0, got ", &json_text(v)].concat(),
                    )
                }),
            }
        };
        let whole = |key: &str| -> Result<Option<u64>> {
            match obj.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => v.as_u64().map(Some).ok_or_else(|| {
                    Error::option(
                        subpath("options.cache", key),
                        ["expected a whole number, got ", &json_text(v)].concat(),
                    )
                }),
            }
        };
        let input = price("inputPrice", 1.0)?;
        if input <= 0.0 {
            return Err(Error::option("options.cache.inputPrice", "the input price must be above 0"));
        }
        let horizon = whole("horizon")?.unwrap_or(u64::from(DEFAULT_HORIZON)).clamp(1, 1_000_000) as u32;
        Ok(Some(CachePrices {
            input,
            read: price("readPrice", READ_PRICE * input)?,
            write: price("writePrice", WRITE_PRICE * input)?,
            cached_prefix_tokens: whole("cachedPrefixTokens")?,
            horizon,
        }))
    }
}
