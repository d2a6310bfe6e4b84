//! The host's answer to a plan's summary jobs: one text per job, from any of the shapes `apply_summary`
//! takes, cleaned of what models put around and into a summary.

use crate::compaction::template::{copies_instructions, Template, SNAPSHOT_TAG};
use crate::compaction::types::PlanRef;
use crate::error::{expected, item_path, subpath, Code, Error, Result};
use crate::text::{defuse_markers, with_fences, without_lines, without_repeated_lines, without_repeated_sentences};
use serde_json::Value;

/// The summaries the host passes: one string, one per job in order, or keyed by job id.
fn summaries_for(summary: &Value, plan: &PlanRef) -> Result<Vec<String>> {
    let pick = |v: Option<&Value>, path: String| -> Result<String> {
        match v {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(Error::input(path, expected("the summary text as a string", other))),
            None => Err(Error::input(path, "no summary was given for this job")),
        }
    };
    match summary {
        // A plan that only drops what a provider's compaction item stands for asks for no summary.
        _ if plan.jobs.is_empty() => Ok(Vec::new()),
        Value::String(s) if plan.jobs.len() == 1 => Ok(vec![s.clone()]),
        Value::String(_) => Err(Error::input(
            "summary",
            format!("the plan has {} jobs: pass an array or an object keyed by job id", plan.jobs.len()),
        )),
        // Loops, not `collect::<Result<Vec<_>>>()` (see `PlanRef::from_json`).
        Value::Array(items) => {
            let mut out = Vec::with_capacity(plan.jobs.len());
            for i in 0..plan.jobs.len() {
                out.push(pick(items.get(i), item_path("summary", i))?);
            }
            Ok(out)
        }
        Value::Object(map) => {
            let mut out = Vec::with_capacity(plan.jobs.len());
            for j in &plan.jobs {
                out.push(pick(map.get(&j.id), subpath("summary", &j.id))?);
            }
            Ok(out)
        }
        other => Err(Error::input("summary", expected("a string, an array or an object", other))),
    }
}

/// Each job's summary as the host gave it, cleaned of what models put around and into it (an analysis
/// section, our own markers, lines copying our instructions, a line or a sentence repeated in a loop), with a
/// warning for each kind of thing taken out.
pub fn cleaned_summaries(summary: &Value, plan: &PlanRef) -> Result<(Vec<String>, Vec<String>)> {
    let texts = summaries_for(summary, plan)?;
    let mut warnings = Vec::new();
    let mut cleaned = Vec::with_capacity(texts.len());
    for (job, text) in plan.jobs.iter().zip(&texts) {
        let text = extract_summary(text);
        if text.is_empty() {
            return Err(Error::new(Code::SummaryEmpty, format!("summary.{}", job.id), "the summary is empty"));
        }
        let text = match plan.template {
            Template::Snapshot => snapshot_of(text).ok_or_else(|| {
                Error::new(
                    Code::SummaryMalformed,
                    format!("summary.{}", job.id),
                    format!("the plan asked for a <{SNAPSHOT_TAG}> element and the summary has none"),
                )
            })?,
            _ => text,
        };
        let (text, defused) = defuse_markers(text);
        if defused {
            warnings.push(format!("summary {}: ctxfold's own markers inside the summary were neutralized", job.id));
        }
        let (text, copied) = without_lines(&text, copies_instructions);
        if copied > 0 {
            if text.trim().is_empty() {
                let why = "the summary only copies ctxfold's instructions to the summarizer";
                return Err(Error::new(Code::SummaryEmpty, format!("summary.{}", job.id), why));
            }
            warnings.push(format!(
                "summary {}: {copied} lines copying ctxfold's instructions to the summarizer were dropped",
                job.id
            ));
        }
        // A small model caught in a loop writes the same line or sentence again and again: the repeats say
        // nothing and would take the room of what the summary lost.
        let (text, lines) = without_repeated_lines(&text);
        let (text, sentences) = without_repeated_sentences(&text);
        for (n, what) in [(lines, "lines"), (sentences, "sentences")] {
            if n > 0 {
                warnings.push(format!("summary {}: {n} repeated {what} of the summary were dropped", job.id));
            }
        }
        // The prompts ask to leave an empty section out; a small model writes it anyway ("## Files and code /
        // No files or code were mentioned in the transcript."), in the room the lost facts are restored in. A
        // snapshot's elements are its shape, and stay.
        let (text, sections) = match plan.template {
            Template::Snapshot => (text, 0),
            _ => without_empty_sections(&text),
        };
        if sections > 0 {
            warnings.push(format!("summary {}: {sections} empty sections of the summary were dropped", job.id));
        }
        cleaned.push(text);
    }
    Ok((cleaned, warnings))
}

/// `text` without its empty Markdown sections, and how many: a heading with nothing under it up to the next
/// heading, or only lines that say there is nothing (`says_nothing`). A heading followed by a deeper one is not
/// empty, nor is a `#` line inside a fenced block a heading. Where every section is empty, the text stays whole.
fn without_empty_sections(text: &str) -> (String, usize) {
    let level = |line: &str| match line.bytes().take_while(|&b| b == b'#').count() {
        hashes if hashes > 0 && line[hashes..].starts_with(' ') => hashes,
        _ => 0,
    };
    let lines: Vec<(&str, usize)> =
        with_fences(text.split('\n')).map(|(line, code)| (line, if code { 0 } else { level(line) })).collect();
    let mut dropped = vec![false; lines.len()];
    let mut sections = 0;
    for (at, &(heading, own)) in lines.iter().enumerate().filter(|(_, &(_, level))| level > 0) {
        let end = at + 1 + lines[at + 1..].iter().take_while(|&&(_, level)| level == 0).count();
        let empty = lines.get(end).is_none_or(|&(_, next)| next <= own)
            && lines[at + 1..end].iter().all(|&(l, _)| l.trim().is_empty() || says_nothing(l, &heading[own..]));
        if empty {
            dropped[at..end].fill(true);
            sections += 1;
        }
    }
    let nothing_left = lines.iter().zip(&dropped).all(|(&(l, _), &d)| d || l.trim().is_empty());
    if sections == 0 || nothing_left {
        return (text.to_string(), 0);
    }
    let mut dropped = dropped.into_iter();
    (without_lines(text, |_| dropped.next().unwrap_or(false)).0, sections)
}

/// Whether a line of a section says only that the section has nothing: "None", "N/A", "Nothing", or "No files or
/// code were mentioned in the transcript." under "Files and code": a denial of the heading's own words, about the
/// transcript. "No refund was issued" under "Progress and decisions" says something, and stays.
fn says_nothing(line: &str, heading: &str) -> bool {
    const SAID_OF_THE_TRANSCRIPT: [&str; 3] = ["mentioned", "discussed", "encountered"];
    const FILLER: &str = "no there were was are is have has been or and nor any the in this transcript conversation";
    let line = line.trim().trim_start_matches(['-', '*']).trim().trim_end_matches('.');
    if ["none", "n/a", "nothing", "not applicable"].iter().any(|e| line.eq_ignore_ascii_case(e)) {
        return true;
    }
    let same = |a: &str, b: &str| a.trim_end_matches('s').eq_ignore_ascii_case(b.trim_end_matches('s'));
    let words = || line.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty());
    let in_heading = |w: &str| heading.split(|c: char| !c.is_ascii_alphanumeric()).any(|h| same(h, w));
    words().next().is_some_and(|w| ["no", "there", "nothing"].iter().any(|d| w.eq_ignore_ascii_case(d)))
        && words().any(|w| SAID_OF_THE_TRANSCRIPT.iter().any(|m| w.eq_ignore_ascii_case(m)))
        && words().all(|w| {
            FILLER.split(' ').chain(SAID_OF_THE_TRANSCRIPT).any(|f| w.eq_ignore_ascii_case(f)) || in_heading(w)
        })
}

/// The `<state_snapshot>` element in an answer, tags included.
fn snapshot_of(text: &str) -> Option<&str> {
    let open = text.find(&format!("<{SNAPSHOT_TAG}>"))?;
    let close = format!("</{SNAPSHOT_TAG}>");
    let end = text.rfind(&close)? + close.len();
    (open < end).then(|| &text[open..end])
}

/// Strips what models put around a summary: an analysis or scratchpad section first, and a
/// `<summary>` wrapper.
fn extract_summary(raw: &str) -> &str {
    let mut text = raw.trim();
    for tag in ["analysis", "scratchpad", "thinking"] {
        let close = format!("</{tag}>");
        if text.starts_with(&format!("<{tag}>")) {
            if let Some(end) = text.find(&close) {
                text = text[end + close.len()..].trim();
            }
        }
    }
    if let (Some(open), Some(close)) = (text.find("<summary>"), text.rfind("</summary>")) {
        if open < close {
            text = text[open + "<summary>".len()..close].trim();
        }
    }
    text
}
