//! The plan as the compaction modules share it: ranges of messages, the jobs that summarize them,
//! and a plan read back from the plain data `plan_compaction` returned, checked against the messages.

use crate::compaction::fingerprint::{self, Hasher};
use crate::compaction::template::Template;
use crate::counting::estimate::KnownTokens;
use crate::counting::profiles::Profile;
use crate::error::{expected, item_path, subpath, Code, Error, Result};
use crate::options::Shape;
use crate::reading::format::{Conversation, Format};
use crate::reading::message::Role;
use serde_json::Value;

/// A half-open range of message indices: `start..end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    pub start: usize,
    pub end: usize,
}

crate::json_object!(Range {
    start => "start",
    end => "end",
});

impl Range {
    /// The items of `indices` inside this range, in their order. One loop shared by its callers
    /// (a `filter(..).collect()` at each would be its own iterator code in the wasm).
    pub fn select(&self, indices: &[usize]) -> Vec<usize> {
        let mut out = Vec::new();
        for &i in indices {
            if i >= self.start && i < self.end {
                out.push(i);
            }
        }
        out
    }
}

/// The messages the summary replaces: the summarized ranges without their pinned messages (sorted).
pub fn summarized_indices(summarize: &[Range], pinned: &[usize]) -> Vec<usize> {
    // Loops rather than `flat_map(..).filter(..).collect()`: each adapter chain that is collected
    // compiles its own iterator and Vec-from-iterator code into the wasm.
    let mut out = Vec::new();
    for r in summarize {
        for i in r.start..r.end {
            if pinned.binary_search(&i).is_err() {
                out.push(i);
            }
        }
    }
    out
}

/// Tokens of the messages a plan drops for a provider's compaction item (its system messages stay).
pub fn dropped_tokens(conv: &Conversation, tokens: &[u32], dropped: Option<Range>) -> u64 {
    let mut sum = 0;
    for i in dropped.map_or(0..0, |d| d.start..d.end) {
        if conv.messages[i].role != Role::System {
            sum += u64::from(tokens[i]);
        }
    }
    sum
}

pub fn decisions_hash(
    count: usize,
    dropped: Option<Range>,
    summarize: &[Range],
    pinned: &[usize],
    jobs: &[(&str, Range)],
) -> u64 {
    let mut h = Hasher::default();
    h.number(count as u64);
    if let Some(d) = dropped {
        h.bytes(b"dropped");
        h.number(d.start as u64);
        h.number(d.end as u64);
    }
    for r in summarize {
        h.number(r.start as u64);
        h.number(r.end as u64);
    }
    h.bytes(b"|");
    for &p in pinned {
        h.number(p as u64);
    }
    h.bytes(b"|");
    for (id, r) in jobs {
        h.bytes(id.as_bytes());
        h.number(r.start as u64);
        h.number(r.end as u64);
    }
    h.finish()
}

/// What `apply_summary` and the offline digest need from a plan, read back from its JSON form.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanRef {
    pub needed: bool,
    pub format: Format,
    pub profile: Profile,
    pub limit: u64,
    pub message_count: usize,
    /// Messages left out: the ones before a provider's compaction item, which stands for them.
    pub dropped: Option<Range>,
    pub summarize: Vec<Range>,
    pub pinned: Vec<usize>,
    pub jobs: Vec<JobRef>,
    pub fingerprint: String,
    /// The template the summary was asked in (plans without one: `sections`).
    pub template: Template,
    /// How the summary goes back into the history (plans without one: `message`).
    pub summary_shape: Shape,
    pub summary_prefix: Option<String>,
    /// What `apply_summary` appends to the summaries (plans without the fields: both).
    pub keep: Keep,
    /// The tokens of the history's messages where they were counted on this very history (by the plan
    /// made here, or by a call before on the same text); never read from JSON. Taken only for the same
    /// items, format and profile (`per_message_known`).
    pub counted: Option<KnownTokens>,
}

/// What `apply_summary` appends to the summaries: the user's summarized messages quoted (the plan's
/// `keepUserText`) and the facts the summaries lost (`keepFacts`), until its retries give them up.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Keep {
    /// Quote the user's summarized messages after the summary (`keepUserText`).
    pub user_text: bool,
    /// Append the facts a summary left out (`keepFacts`).
    pub facts: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct JobRef {
    pub id: String,
    pub range: Range,
    pub max_output_tokens: u32,
}

impl PlanRef {
    pub fn from_json(v: &Value) -> Result<PlanRef> {
        let obj =
            v.as_object().ok_or_else(|| Error::plan("plan", expected("the object plan_compaction returned", v)))?;
        let field = |k: &str| {
            obj.get(k).ok_or_else(|| {
                Error::plan(subpath("plan", k), "missing; pass the plan object plan_compaction returned")
            })
        };
        let needed = field("needed")?.as_bool().ok_or_else(|| Error::plan("plan.needed", "expected a boolean"))?;
        let format =
            Format::from_name(str_of(field("format")?, "plan.format")?, "plan.format").map_err(as_plan_error)?;
        let mut profile = Profile::from_name(str_of(field("tokenizer")?, "plan.tokenizer")?, "plan.tokenizer")
            .map_err(as_plan_error)?;
        if let Some(model) = obj.get("imageModel") {
            profile = profile.with_images_of(str_of(model, "plan.imageModel")?);
        }
        let limit = index_of(field("limit")?, "plan.limit")? as u64;
        let message_count = index_of(field("messageCount")?, "plan.messageCount")?;
        // Loops rather than `collect::<Result<Vec<_>>>()`: each such collect is its own iterator
        // adapter in the wasm.
        let dropped = match obj.get("dropped") {
            None | Some(Value::Null) => None,
            Some(r) => Some(range_of(r, "plan.dropped", message_count)?),
        };
        let mut summarize = Vec::new();
        for (i, r) in array_of(field("summarize")?, "plan.summarize")?.iter().enumerate() {
            summarize.push(range_of(r, &item_path("plan.summarize", i), message_count)?);
        }
        let mut pinned = Vec::new();
        for (i, p) in array_of(field("pinned")?, "plan.pinned")?.iter().enumerate() {
            pinned.push(index_of(p, &item_path("plan.pinned", i))?);
        }
        let mut jobs = Vec::new();
        for (i, j) in array_of(field("jobs")?, "plan.jobs")?.iter().enumerate() {
            let path = item_path("plan.jobs", i);
            let id = str_of(j.get("id").unwrap_or(&Value::Null), &subpath(&path, "id"))?.to_string();
            let range = range_of(j.get("range").unwrap_or(&Value::Null), &subpath(&path, "range"), message_count)?;
            let max = index_of(j.get("maxOutputTokens").unwrap_or(&Value::Null), &subpath(&path, "maxOutputTokens"))?;
            jobs.push(JobRef { id, range, max_output_tokens: max.min(u32::MAX as usize) as u32 });
        }
        let fingerprint = str_of(field("fingerprint")?, "plan.fingerprint")?.to_string();
        let template = match obj.get("template") {
            None | Some(Value::Null) => Template::Sections,
            Some(v) => Template::from_name(str_of(v, "plan.template")?)
                .ok_or_else(|| Error::plan("plan.template", "unknown template"))?,
        };
        let summary_shape = match obj.get("summaryShape") {
            None | Some(Value::Null) => Shape::Message,
            Some(v) => {
                let name = str_of(v, "plan.summaryShape")?;
                Shape::ALL
                    .into_iter()
                    .find(|s| s.name() == name)
                    .ok_or_else(|| Error::plan("plan.summaryShape", "unknown summary shape"))?
            }
        };
        let summary_prefix = match obj.get("summaryPrefix") {
            None | Some(Value::Null) => None,
            Some(v) => Some(str_of(v, "plan.summaryPrefix")?.to_string()),
        };
        let keep_facts = match obj.get("keepFacts") {
            None | Some(Value::Null) => true,
            Some(v) => v.as_bool().ok_or_else(|| Error::plan("plan.keepFacts", "expected a boolean"))?,
        };
        let keep_user_text = match obj.get("keepUserText") {
            None | Some(Value::Null) => true,
            Some(v) => v.as_bool().ok_or_else(|| Error::plan("plan.keepUserText", "expected a boolean"))?,
        };
        Ok(PlanRef {
            keep: Keep { user_text: keep_user_text, facts: keep_facts },
            needed,
            format,
            profile,
            limit,
            message_count,
            dropped,
            summarize,
            pinned,
            jobs,
            fingerprint,
            template,
            summary_shape,
            summary_prefix,
            counted: None,
        })
    }

    /// The plan must have been made from the first `message_count` of these messages (later ones
    /// were appended while the summary was being written, and are kept), and not edited since.
    pub fn check(&self, values: &[Value]) -> Result<()> {
        if values.len() < self.message_count {
            return Err(Error::new(
                Code::StalePlan,
                "messages",
                format!(
                    "the plan was made from {} messages but {} were given: messages were removed since planning",
                    self.message_count,
                    values.len()
                ),
            ));
        }
        let messages = format!("{:016x}", fingerprint::of_messages(values, self.message_count));
        if !self.fingerprint.starts_with(&messages) || self.fingerprint.len() != 32 {
            return Err(Error::new(
                Code::StalePlan,
                "messages",
                format!(
                    "the first {} messages are not the ones the plan was made from: plan again",
                    self.message_count
                ),
            ));
        }
        let mut jobs: Vec<(&str, Range)> = Vec::with_capacity(self.jobs.len());
        for j in &self.jobs {
            jobs.push((j.id.as_str(), j.range));
        }
        let decisions =
            format!("{:016x}", decisions_hash(self.message_count, self.dropped, &self.summarize, &self.pinned, &jobs));
        if self.fingerprint[16..] != decisions {
            return Err(Error::plan("plan", "the plan was changed after plan_compaction made it"));
        }
        Ok(())
    }

    pub fn summarized(&self) -> Vec<usize> {
        summarized_indices(&self.summarize, &self.pinned)
    }
}

fn as_plan_error(mut e: Error) -> Error {
    e.code = Code::InvalidPlan;
    e
}

fn str_of<'a>(v: &'a Value, path: &str) -> Result<&'a str> {
    v.as_str().ok_or_else(|| Error::plan(path, expected("a string", v)))
}

fn array_of<'a>(v: &'a Value, path: &str) -> Result<&'a Vec<Value>> {
    v.as_array().ok_or_else(|| Error::plan(path, expected("an array", v)))
}

fn index_of(v: &Value, path: &str) -> Result<usize> {
    v.as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| Error::plan(path, format!("expected a whole number, got {}", crate::text::json_text(v))))
}

fn range_of(v: &Value, path: &str, count: usize) -> Result<Range> {
    let start = index_of(v.get("start").unwrap_or(&Value::Null), &subpath(path, "start"))?;
    let end = index_of(v.get("end").unwrap_or(&Value::Null), &subpath(path, "end"))?;
    if start >= end || end > count {
        return Err(Error::plan(path, format!("not a range of the plan's {count} messages")));
    }
    Ok(Range { start, end })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::plan::plan_compaction;
    use crate::fixtures::png_base64;
    use crate::options::Options;
    use crate::reading::input::Input;
    use serde_json::json;

    #[test]
    fn a_plan_carries_the_models_image_billing_to_apply() {
        let url = format!("data:image/png;base64,{}", png_base64(1024, 1024));
        let messages = json!([{ "role": "user", "content": [{ "type": "image_url", "image_url": { "url": url } }] }]);
        let o = Options::from_json(&json!({ "model": "gpt-4o-mini" })).unwrap();
        let plan = serde_json::to_value(plan_compaction(&Input::read(&messages).unwrap(), &o).unwrap()).unwrap();
        assert_eq!(plan["imageModel"], "gpt-4o-mini");
        assert_eq!(PlanRef::from_json(&plan).unwrap().profile, o.profile);
    }
}
