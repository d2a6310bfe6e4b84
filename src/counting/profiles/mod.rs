//! Tokenizer profiles: the cost of each class of text (`ctxfold_scanner::Class`) and the fixed costs
//! of the request's framing, per tokenizer family. The class costs are fitted offline by
//! `scripts/fit-profiles.mjs` against the real tokenizers (see `fitted.rs`); the framing costs are
//! the providers' documented or measured conventions, written here by hand.

mod fitted;

use crate::counting::memo;
use crate::error::{Error, Result};
use crate::reading::image::ImageSize;
use crate::reading::message::Media;
use ctxfold_scanner::shapes::classes_of;
use ctxfold_scanner::shapes_table::{
    BINARY_DIGIT, CODE_MARKS, ENCODED, ENCODED_TEXT, HEX, HEX_DASH, HEX_GROUP, JSON_MARKS, NUMBER_DIGIT, NUMBER_GROUP,
};
use ctxfold_scanner::{Class, Counts, CLASS_COUNT, PROSE_CLASSES};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Profile {
    /// The name used in options and results.
    pub name: &'static str,
    /// Other names accepted by the `tokenizer` option.
    pub aliases: &'static [&'static str],
    /// Tokens per occurrence of each class, in `Class` order.
    pub costs: [f32; CLASS_COUNT],
    /// Per message: the framing around it and its role.
    pub per_message: f64,
    /// Per message with a participant `name`, beside the name's own text.
    pub per_name: f64,
    /// Per tool call, beside its name and arguments.
    pub per_tool_call: f64,
    /// Once per request: the tokens that prime the model's reply.
    pub per_reply: f64,
    /// Per image, audio or file part, at the provider's documented cost of a typical image.
    pub per_attachment: f64,
    /// Per image sent at OpenAI's `detail: "low"`: 85 tokens for OpenAI; other providers have no such
    /// setting, so their usual cost.
    pub per_low_detail_image: f64,
    /// Per tool definition, beside the text of its JSON schema.
    pub per_tool: f64,
    /// How an image whose pixel size is known costs (`crate::reading::image`).
    pub image: ImageRule,
    /// The model whose own image billing `image` is (`MODEL_IMAGES`); None: the profile's usual one.
    pub image_model: Option<&'static str>,
}

/// The providers' documented ways of billing an image by its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageRule {
    /// OpenAI's tile models: scaled down to fit 2048×2048, then to a shortest side of 768; `base` tokens
    /// plus `per_tile` per 512-pixel tile (GPT-4o, GPT-4.1, GPT-4 Turbo: 85 and 170). At low detail,
    /// `base` whatever the size.
    Tiles { base: u16, per_tile: u16 },
    /// OpenAI's patch models: one patch per 32×32 pixels, at most 1536 (the image scaled down to fit),
    /// times the model's multiplier (in hundredths). Detail makes no difference.
    Patches { hundredths: u16 },
    /// Anthropic: scaled down to a long edge of 1568 pixels, then width × height / 750 tokens, at most
    /// about 1 600.
    Area,
    /// Gemini 3: a fixed budget per image (its media resolution), whatever the size.
    Flat,
}

impl Profile {
    /// Tokens of images and files: each image by its size, the others at the flat costs.
    pub fn media_tokens(&self, media: &Media) -> f64 {
        let low_detail = media.low_detail.min(media.attachments);
        let mut tokens = f64::from(media.attachments - low_detail) * self.per_attachment
            + f64::from(low_detail) * self.per_low_detail_image;
        for image in &media.images {
            tokens += self.image_tokens(image.size, image.low_detail);
        }
        tokens
    }

    /// Tokens of an image of `size` (sent at OpenAI's low detail when `low_detail`).
    pub fn image_tokens(&self, size: ImageSize, low_detail: bool) -> f64 {
        let (w, h) = (u64::from(size.width), u64::from(size.height));
        match self.image {
            ImageRule::Tiles { base, .. } if low_detail => f64::from(base),
            ImageRule::Tiles { base, per_tile } => {
                // Integer steps, as the provider's resizing works in whole pixels.
                let (w, h) = scale_down(w, h, w.max(h), 2048);
                let (w, h) = scale_down(w, h, w.min(h), 768);
                (u64::from(base) + u64::from(per_tile) * w.div_ceil(512) * h.div_ceil(512)) as f64
            }
            ImageRule::Patches { hundredths } => (patches(w as f64, h as f64) * f64::from(hundredths) / 100.0).ceil(),
            ImageRule::Area => {
                let (w, h) = scale_down(w, h, w.max(h), 1568);
                (w * h).div_ceil(750).min(1600) as f64
            }
            ImageRule::Flat => self.per_attachment,
        }
    }

    /// This profile with the image billing of `model` (in lower case without a vendor prefix, as options.rs
    /// reads it, or a `MODEL_IMAGES` key from a plan) when it is an OpenAI profile and the model bills
    /// images its own way; images of unknown size then cost what a 1024×1024 one does under that billing.
    pub fn with_images_of(self, model: &str) -> Profile {
        let Some(&(name, image)) = MODEL_IMAGES.iter().find(|(name, _)| model.starts_with(name)) else { return self };
        if !matches!(self.image, ImageRule::Tiles { .. }) {
            return self;
        }
        let p = Profile { image, image_model: Some(name), ..self };
        let square = ImageSize { width: 1024, height: 1024 };
        Profile {
            per_attachment: p.image_tokens(square, false),
            per_low_detail_image: p.image_tokens(square, true),
            ..p
        }
    }
}

/// How many 32-pixel patches cover a `w` × `h` image after OpenAI's scaling: when more than 1536 would,
/// the image is scaled down until whole patches along each side multiply to at most 1536.
fn patches(w: f64, h: f64) -> f64 {
    const MAX: f64 = 1536.0;
    // Patches along a side; the scaled sides are whole patches up to rounding, which must not add one.
    let along = |side: f64| (side / 32.0 - 1e-9).ceil();
    let whole = along(w) * along(h);
    if whole <= MAX {
        return whole;
    }
    let r = (32.0 * 32.0 * MAX / (w * h)).sqrt();
    let (pw, ph) = (w * r / 32.0, h * r / 32.0);
    let r = r * (pw.floor() / pw).min(ph.floor() / ph);
    (along(w * r) * along(h * r)).min(MAX)
}

/// OpenAI models that bill images otherwise than the tile models' 85 + 170 per tile, by the start of
/// the model's name, as OpenAI documents them: the cheaper models count many more tokens per image.
const MODEL_IMAGES: [(&str, ImageRule); 5] = [
    ("gpt-4o-mini", ImageRule::Tiles { base: 2833, per_tile: 5667 }),
    ("gpt-4.1-mini", ImageRule::Patches { hundredths: 162 }),
    ("gpt-4.1-nano", ImageRule::Patches { hundredths: 246 }),
    ("o4-mini", ImageRule::Patches { hundredths: 172 }),
    ("o3", ImageRule::Tiles { base: 75, per_tile: 150 }),
];

/// `w` × `h` scaled so that `side` (one of them) is at most `limit`, aspect ratio kept.
fn scale_down(w: u64, h: u64, side: u64, limit: u64) -> (u64, u64) {
    match side > limit {
        true => ((w * limit / side).max(1), (h * limit / side).max(1)),
        false => (w, h),
    }
}

/// GPT-4o, GPT-4.1, GPT-5, o-series. Framing per OpenAI's cookbook count: 3 tokens per message plus
/// its role (one token), 1 for a `name`, 3 to prime the reply; tool calls as 8 beside their name and
/// arguments (the convention the benchmark checks). A 1024×1024 high-detail image costs 765 tokens, one
/// at low detail 85.
pub const O200K: Profile = Profile {
    name: "o200k",
    aliases: &["o200k_base"],
    costs: with_shapes(fitted::O200K, 0, 1.0),
    per_message: 4.0,
    per_name: 1.0,
    per_tool_call: 8.0,
    per_reply: 3.0,
    per_attachment: 765.0,
    per_low_detail_image: 85.0,
    per_tool: 8.0,
    image: ImageRule::Tiles { base: 85, per_tile: 170 },
    image_model: None,
};

/// GPT-4, GPT-4 Turbo, GPT-3.5: a smaller vocabulary, so CJK text costs more.
pub const CL100K: Profile =
    Profile { name: "cl100k", aliases: &["cl100k_base"], costs: with_shapes(fitted::CL100K, 1, 1.0), ..O200K };

/// Claude, fitted against the only public Claude tokenizer (`@anthropic-ai/tokenizer`, made for
/// older models): newer models count differently, which the `usage` calibration corrects. Anthropic
/// documents an image of about 1.15 megapixels at about 1 600 tokens.
pub const CLAUDE: Profile = Profile {
    name: "claude",
    aliases: &["anthropic"],
    costs: with_shapes(fitted::CLAUDE, 2, 1.0),
    per_attachment: 1600.0,
    per_low_detail_image: 1600.0,
    image: ImageRule::Area,
    ..O200K
};

/// Gemini: no public tokenizer, so the scale and the per-message cost are fitted on the usage
/// Gemini reported for real requests (the corpus's `gemini_prompt_tokens`). Gemini 3 bills an
/// image at 1 120 tokens by default.
pub const GEMINI: Profile = Profile {
    name: "gemini",
    aliases: &["google"],
    costs: with_shapes(fitted::GEMINI, 0, fitted::GEMINI[0] / fitted::O200K[0]),
    per_message: fitted::GEMINI_PER_MESSAGE,
    per_reply: 0.0,
    per_attachment: 1120.0,
    per_low_detail_image: 1120.0,
    image: ImageRule::Flat,
    ..O200K
};

/// A profile's costs: the fitted ones of the scanner's classes, then those of text that is not prose, as
/// the tokenizer `measured` (0 o200k, 1 cl100k, 2 claude) cuts it, times `scale` (Gemini: o200k's, scaled
/// as its fitted table is).
const fn with_shapes(fitted: [f32; PROSE_CLASSES], measured: usize, scale: f32) -> [f32; CLASS_COUNT] {
    let mut costs = [0.0; CLASS_COUNT];
    let mut i = 0;
    while i < PROSE_CLASSES {
        costs[i] = fitted[i];
        i += 1;
    }
    costs[Class::Encoded as usize] = ENCODED[measured] * scale;
    costs[Class::EncodedText as usize] = ENCODED_TEXT[measured] * scale;
    costs[Class::Hex as usize] = HEX[measured] * scale;
    costs[Class::HexDash as usize] = HEX_DASH[measured] * scale;
    costs[Class::HexGroup as usize] = HEX_GROUP[measured] * scale;
    costs[Class::Number as usize] = NUMBER_GROUP[measured] * scale;
    costs[Class::NumberDigit as usize] = NUMBER_DIGIT[measured] * scale;
    costs[Class::BinaryDigit as usize] = BINARY_DIGIT[measured] * scale;
    costs[Class::JsonMarks as usize] = JSON_MARKS[measured] * scale;
    costs[Class::CodeMarks as usize] = CODE_MARKS[measured] * scale;
    // Each run class holds the tokens of one vocabulary: only the measured one counts.
    costs[Class::RunO200k as usize + measured] = scale;
    costs
}

pub const PROFILES: [Profile; 4] = [O200K, CL100K, CLAUDE, GEMINI];

impl Profile {
    pub fn from_name(name: &str, path: &str) -> Result<Profile> {
        PROFILES.iter().find(|p| p.name == name || p.aliases.contains(&name)).copied().ok_or_else(|| {
            let names: Vec<String> = PROFILES.iter().map(|p| crate::text::quoted(p.name)).collect();
            Error::option(
                path,
                format!("unknown tokenizer {}; expected one of {}", crate::text::quoted(name), names.join(", ")),
            )
        })
    }

    /// Estimated tokens of the counted text (not rounded: callers add up, then round once).
    pub fn weigh(&self, c: &Counts) -> f64 {
        // Most classes are absent from any one text: only those present are weighed, in class order, which
        // is the same sum to the bit (a zero added changes nothing), for a fraction of the work.
        let mut sum = 0.0;
        for (w, &n) in self.costs.iter().zip(c.0.iter()) {
            if n != 0 {
                sum += f64::from(*w) * f64::from(n);
            }
        }
        sum
    }

    /// Estimated tokens of a piece of text.
    pub fn text(&self, text: &str) -> f64 {
        self.weigh(&classes_of(text))
    }

    /// The same for a text of a message (a tool output, a call's arguments), which the pass that read
    /// the history counted already: a long one is found (`memo::of_message`), not scanned again.
    pub fn message_text(&self, text: &str) -> f64 {
        self.weigh(&memo::of_message(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cjk_costs_more_than_a_quarter_token_per_character() {
        let zh = "我们今天讨论一下这个问题的解决方案";
        let chars = zh.chars().count() as f64;
        for p in PROFILES {
            assert!(p.text(zh) > chars / 2.0, "{}", p.name);
        }
        assert!(CL100K.text(zh) > O200K.text(zh));
    }

    #[test]
    fn every_cost_is_finite_and_not_negative() {
        for p in PROFILES {
            assert!(p.costs.iter().all(|w| w.is_finite() && *w >= 0.0), "{}", p.name);
            assert!(p.text("Hello, world!") >= 2.0, "{}", p.name);
        }
    }

    #[test]
    fn names_and_aliases_resolve() {
        assert_eq!(Profile::from_name("o200k_base", "t").unwrap().name, "o200k");
        assert_eq!(Profile::from_name("claude", "t").unwrap().name, "claude");
        let e = Profile::from_name("llama", "options.tokenizer").unwrap_err();
        assert_eq!(e.path, "options.tokenizer");
    }
}
