//! Restoring what a summary lost, in short marked sections after it. First the user's own words:
//! the summarized user messages, quoted (the task always, the newest request where it is short; user
//! text is what Claude Code never compacts, and a summary that paraphrases the task loses its
//! details). Then the salient facts of the messages (the audit's: user constraints, error lines,
//! numbers, URLs, identifiers, paths) that the summary and the quotes do not state, verbatim, most
//! important kinds first; then, in the room left, the numbers and ids they state without a word of
//! their line that tells them from other values (a name in a list, an id beside its kind's label
//! only). Small models drop exactly these (the booking code, the file being edited), and the model
//! that reads the compacted history cannot ask for them again.

use crate::compaction::audit::{found_in, lost_and_bare, Fact, Found, Kind};
use crate::compaction::fact_lines::{fact_line, FactLine};
use crate::compaction::types::{JobRef, PlanRef};
use crate::counting::profiles::Profile;
use crate::reading::format::Conversation;
use crate::text::{cut_to_tokens, split_summary};

/// The heading of the appended section; the marker tells the reading model where the list comes from.
pub const HEADING: &str = "Facts from the summarized messages, verbatim:";

/// The heading of the quoted user messages.
pub const USER_HEADING: &str = "The user's messages, verbatim:";

/// Below this, a quote would be little more than the marker of its cut.
const MIN_QUOTE_TOKENS: f64 = 32.0;

/// What the quote of the task, and of the newest request, may cost however small the quotes' budget: a
/// small window's eighth (a chat of a few hundred tokens) would leave them no quote at all.
const SURVIVING_QUOTE_TOKENS: f64 = 2.0 * MIN_QUOTE_TOKENS;

/// What the quotes may cost, together: an eighth of the limit, and a quarter of the messages the
/// summary replaces (so the history still shrinks).
pub fn user_text_budget(limit: u64, summarized_tokens: u64) -> f64 {
    (limit as f64 / 8.0).min(summarized_tokens as f64 / 4.0)
}

/// The section quoting the user's messages among `indices` within `budget`, as `quotes_within` writes
/// it where nothing else bounds it: what the quotes want.
pub fn user_text_section(
    conv: &Conversation,
    indices: &[usize],
    summary: &str,
    profile: &Profile,
    budget: f64,
) -> Option<(String, Vec<usize>)> {
    let mut unbounded = Allowance { room: f64::INFINITY, over: 0.0 };
    quotes_within(conv, indices, summary, profile, budget, &mut unbounded)
}

/// The section quoting the user's messages among `indices`, and the messages it quotes; it takes its
/// cost from `allowance`. The oldest comes first: the quotes an earlier summary of ours carried, else
/// the first user message (the task), its middle cut when it alone is over `budget`. The task always
/// survives, within the budget and at least `SURVIVING_QUOTE_TOKENS`, and where the room under the limit
/// is short, past the limit (`allowance.over`), as a constraint of the user's does; so does the newest
/// request (the user message the history's last turns answer) where it is quoted whole within
/// `newest_request_bound`. Then the others within `budget` and the room, newest first while they fit,
/// shown in their order. A message `summary` already holds word for word is not quoted again.
fn quotes_within(
    conv: &Conversation,
    indices: &[usize],
    summary: &str,
    profile: &Profile,
    budget: f64,
    allowance: &mut Allowance,
) -> Option<(String, Vec<usize>)> {
    let count = |t: &str| profile.text(t);
    let mut items: Vec<(usize, String)> = Vec::new();
    for &i in indices {
        let m = &conv.messages[i];
        let text = match m.is_summary {
            true => earlier_quotes(&m.text).map(str::to_string),
            false if m.is_real_user() => Some(format!("User: {}", m.text.trim())),
            false => None,
        };
        if let Some(text) =
            text.filter(|t| t.len() > "User: ".len() && !summary.contains(t.trim_start_matches("User: ")))
        {
            items.push((i, text));
        }
    }
    // The task (or the quotes that carry it) and a short newest request are quoted whatever the room: past
    // the limit where it is short. A later job's oldest user message (the hierarchical strategy's chunks) is
    // quoted first, within the room; the others newest first, as they fit.
    let first = items.first()?.0;
    let is_task = conv.messages[first].is_summary || conv.task() == Some(first);
    let newest = items.len() - 1;
    let is_request = conv.newest_request() == Some(items[newest].0);
    let survives = is_task || (newest == 0 && is_request);
    let within = if survives { budget.max(SURVIVING_QUOTE_TOKENS) } else { budget };
    let mut spent = fit_quote(&mut items[0].1, count(USER_HEADING), within, survives, allowance, &count)?;
    // Marked rather than collected and sorted: the section keeps the messages' order.
    let mut chosen = vec![false; items.len()];
    chosen[0] = true;
    if newest > 0 && is_request {
        // Whole or not at all: taken as it is, past the limit where the room is short.
        let cost = count(&items[newest].1) + 1.0;
        if cost <= newest_request_bound(budget) && allowance.take(cost, true) {
            spent += cost;
            chosen[newest] = true;
        }
    }
    let mut left = (budget - spent).min(allowance.room);
    for k in (1..items.len()).rev() {
        let cost = count(&items[k].1) + 1.0;
        if !chosen[k] && cost <= left {
            left -= cost;
            allowance.room -= cost;
            chosen[k] = true;
        }
    }
    let mut section = String::from(USER_HEADING);
    let mut quoted = Vec::new();
    for ((i, text), _) in items.iter().zip(&chosen).filter(|(_, &c)| c) {
        section.push_str("\n\n");
        section.push_str(text);
        if !conv.messages[*i].is_summary {
            quoted.push(*i);
        }
    }
    Some((section, quoted))
}

/// What the newest request may cost to pass the limit: whole, within twice the quotes' budget (a quarter
/// of the limit at most) and at least `SURVIVING_QUOTE_TOKENS`. A longer one is not quoted (the others
/// share the budget): cut to its head and tail it keeps little of what it says (a pasted document, an agent
/// harness's report of its failed tries), and the room is better spent on the facts of its middle, listed
/// as any summarized message's are (`scripts/eval/README.md`).
fn newest_request_bound(budget: f64) -> f64 {
    (2.0 * budget).max(SURVIVING_QUOTE_TOKENS)
}

/// Fits `text`, with `extra` tokens before it (the heading, or the blank line between quotes), within
/// `within` tokens and what `allowance` holds (past the limit where `survives`): whole, or its middle cut
/// when over. Takes what it costs from `allowance` and returns it; None when not even a short quote fits.
fn fit_quote(
    text: &mut String,
    extra: f64,
    within: f64,
    survives: bool,
    allowance: &mut Allowance,
    count: &dyn Fn(&str) -> f64,
) -> Option<f64> {
    let most = within.min(allowance.room + if survives { allowance.over } else { 0.0 }) - extra;
    let mut tokens = count(text);
    if tokens > most {
        if most < MIN_QUOTE_TOKENS {
            return None;
        }
        *text = cut_to_tokens(text, most, count).into_owned();
        tokens = count(text);
    }
    let cost = extra + tokens;
    allowance.take(cost, survives).then_some(cost)
}

/// The quotes section inside an earlier summary of ours, up to the facts section or the summary's end.
fn earlier_quotes(text: &str) -> Option<&str> {
    let (body, _) = split_summary(text);
    let (_, after) = body.split_once(USER_HEADING)?;
    let quotes = after.split_once(&format!("\n\n{HEADING}")).map_or(after, |(q, _)| q);
    Some(quotes.trim())
}

/// What restoring reads: the history, the plan it is applied with, the messages summarized (in order),
/// every message's tokens, and the salient facts of each job's messages (`job_facts`).
#[derive(Clone, Copy)]
pub struct Restore<'r, 'c> {
    pub conv: &'r Conversation<'c>,
    pub plan: &'r PlanRef,
    pub summarized: &'r [usize],
    pub tokens: &'r [u32],
    pub facts: &'r [Vec<Fact>],
}

/// The salient facts of a plan's summarized messages: all of them, which the audit and a revision check
/// read, and each job's, in the plan's job order, which restoring reads. Finding them is most of an
/// apply's time, so one compaction finds them once for its checks and its apply.
#[derive(Debug)]
pub struct PlanFacts {
    pub all: Found,
    pub per_job: Vec<Vec<Fact>>,
}

impl PlanFacts {
    /// Each job's facts are found, then joined into all of them (`Found::joined`): each message is read
    /// once. Where they cannot be joined, all of them are found again.
    pub fn of(plan: &PlanRef, conv: &Conversation, summarized: &[usize]) -> PlanFacts {
        let mut runs = Vec::with_capacity(plan.jobs.len());
        // Whether the jobs' runs, one after the other, are the summarized messages: the jobs' ranges follow
        // one another, and the runs hold as many messages.
        let (mut in_turn, mut end, mut held) = (true, 0, 0);
        for job in &plan.jobs {
            let run = job.range.select(summarized);
            in_turn &= job.range.start >= end;
            (end, held) = (job.range.end, held + run.len());
            runs.push(found_in(conv, &run));
        }
        in_turn &= held == summarized.len();
        let all = match in_turn {
            true => Found::joined(&runs),
            false => None,
        };
        let all = all.unwrap_or_else(|| found_in(conv, summarized));
        let mut per_job = Vec::with_capacity(runs.len());
        for run in runs {
            per_job.push(run.facts);
        }
        PlanFacts { all, per_job }
    }
}

impl Restore<'_, '_> {
    /// The summarized messages a job covers, and what they cost.
    pub fn job_messages(&self, job: &JobRef) -> (Vec<usize>, u64) {
        let indices = job.range.select(self.summarized);
        let cost = indices.iter().map(|&i| u64::from(self.tokens[i])).sum();
        (indices, cost)
    }

    /// The section quoting `job`'s user messages after `summary` as it stands where no room bounds it: what
    /// the quotes want (`user_text_section`).
    pub fn wanted_quotes(&self, job: &JobRef, summary: &str) -> Option<String> {
        let (indices, summarized_tokens) = self.job_messages(job);
        let budget = user_text_budget(self.plan.limit, summarized_tokens);
        user_text_section(self.conv, &indices, summary, &self.plan.profile, budget).map(|(section, _)| section)
    }

    /// The facts of job `k`'s messages (none when they were not looked for).
    fn facts_of_job(&self, k: usize) -> &[Fact] {
        self.facts.get(k).map_or(&[], Vec::as_slice)
    }

    /// Appends to each job's summary the quotes of its user messages (see `quotes_within`), within
    /// `room` (the tokens the history may still grow by under the limit, which this takes from) and the
    /// job's share of it (`shares`, from `make_room`; none: all of it), the task and a short newest request
    /// past them by up to `over` (which this takes from; see `append_lost_facts`); returns the messages quoted,
    /// in order.
    pub fn append_user_text(
        &self,
        summaries: &mut [String],
        room: &mut f64,
        over: &mut f64,
        shares: &[f64],
    ) -> Vec<usize> {
        let Restore { conv, plan, .. } = *self;
        let mut quoted = Vec::new();
        for (k, (job, summary)) in plan.jobs.iter().zip(summaries.iter_mut()).enumerate() {
            let (indices, summarized_tokens) = self.job_messages(job);
            let share = shares.get(k).copied().unwrap_or(f64::INFINITY).min(*room);
            // The room past the job's share is the other jobs' and the facts': the task may take it as it
            // takes `over`, the rest of the quotes may not.
            let budget = user_text_budget(plan.limit, summarized_tokens);
            if let Some((section, messages)) = spend_within(room, over, share, |allowance| {
                quotes_within(conv, &indices, summary, &plan.profile, budget, allowance)
            }) {
                summary.push_str("\n\n");
                summary.push_str(&section);
                quoted.extend(messages);
            }
        }
        quoted
    }
}

/// What a job's facts may cost, whatever its summary's length: its output budget, and a quarter of the
/// messages it summarized. A summary longer than its history's room gives up its middle for this much
/// (`make_room`): the more facts it lost, the more of it gives way to them; one that kept them loses
/// nothing. Measured against half the output budget (or what a short summary left of the whole), on
/// `npm run eval -- --per-group 4` (93 questions): with a 0.5B model's own summaries the answers written
/// in the history went from 70 to 75 (63 to 66 beside the words their questions quote) for 49.4% → 49.7%
/// of the original's tokens, and the model answered 27 where it had answered 25; with a 1.5B model's, 72
/// → 78 written and 45 → 44 answered (three gained with their words, four lost where the words stayed). With
/// the offline digest (`--summaries digest --per-group 20`) 249 → 277 of 327 (46% → 47% of the tokens),
/// with a summary that keeps nothing 284 → 285. (A quarter of the output budget had held fewer than half.)
fn budget(max_output_tokens: u32, summarized_tokens: u64) -> f64 {
    f64::from(max_output_tokens).min(summarized_tokens as f64 / 4.0)
}

/// The share of the limit a compacted history keeps free for the turns that follow, so that the next
/// one does not compact again at once. Below it, the facts a summary lost may fill the room their budget
/// leaves: compaction comes back near its target instead of far below it. On `npm run eval -- --summaries
/// minimal --per-group 20`, the answers written in the history were 240 of 321 at 37% of the original's
/// tokens with the budget alone, 252 at 38% with a quarter free, 269 at 39% with an eighth, 281 at 40%
/// with none (a history at its limit compacts again on the next turn).
const HEADROOM: f64 = 1.0 / 8.0;

/// What a job's facts may cost in `room`: their `budget`, or more where the history has room to spare
/// above the headroom, up to twice the job's output budget: on a long history the list stays short
/// beside its summary (on the eval the cap changed none of the answers counted for `HEADROOM`).
fn up_to_headroom(room: f64, limit: u64, max_output_tokens: u32, budget: f64) -> f64 {
    let spare = (room - limit as f64 * HEADROOM).min(2.0 * f64::from(max_output_tokens));
    budget.max(spare).min(room)
}

impl Restore<'_, '_> {
    /// Appends to each job's summary the facts of its messages it lost, within `up_to_headroom` and `room`
    /// (see `append_user_text`); returns the facts appended, in order. A constraint of the user's is bounded
    /// by neither: it may take all of the room and then `over`, the tokens past the limit that the history
    /// may grow by and still be smaller than it was (which this takes from). A rule the user set outweighs
    /// the limit, which is a target, not the window.
    pub fn append_lost_facts(&self, summaries: &mut [String], room: &mut f64, over: &mut f64) -> Vec<String> {
        let Restore { conv, plan, .. } = *self;
        let mut appended = Vec::new();
        for (k, (job, summary)) in plan.jobs.iter().zip(summaries.iter_mut()).enumerate() {
            let (_, summarized_tokens) = self.job_messages(job);
            // Other facts within their budget, or the room up to the headroom where that is more; a
            // constraint within all of the room and `over`.
            let budget = budget(job.max_output_tokens, summarized_tokens);
            let room_for_facts = up_to_headroom(*room, plan.limit, job.max_output_tokens, budget);
            if let Some((section, facts)) = spend_within(room, over, room_for_facts, |allowance| {
                facts_section(conv, self.facts_of_job(k), summary, &plan.profile, allowance, true)
            }) {
                summary.push_str("\n\n");
                summary.push_str(&section);
                appended.extend(facts);
            }
        }
        appended
    }
}

/// Runs `write` with `part` of `room` as its room and the rest of `room` with `over` as what may pass the
/// limit, then takes what it spent from `room`, then from `over`.
fn spend_within<T>(room: &mut f64, over: &mut f64, part: f64, write: impl FnOnce(&mut Allowance) -> T) -> T {
    let mut allowance = Allowance { room: part, over: *room - part + *over };
    let before = allowance.room + allowance.over;
    let written = write(&mut allowance);
    let used = before - allowance.room - allowance.over;
    *over -= (used - *room).max(0.0);
    *room = (*room - used).max(0.0);
    written
}

/// What a section may cost: `room` for anything, and `over` besides for what may pass the limit (the
/// task, the user's constraints).
#[derive(Clone, Copy)]
struct Allowance {
    room: f64,
    over: f64,
}

impl Allowance {
    /// Takes `cost` if it fits: the room first, then, where it may pass the limit, `over`.
    fn take(&mut self, cost: f64, past_limit: bool) -> bool {
        let over = if past_limit { self.over } else { 0.0 };
        if cost > self.room + over {
            return false;
        }
        self.room -= cost;
        if self.room < 0.0 {
            self.over += self.room;
            self.room = 0.0;
        }
        true
    }
}

/// The section listing those of `facts` (a job's) that `summary` does not state, within `allowance`
/// (which this takes from), and the facts it shows. A number or an id is shown in the words around it,
/// under the text it was written in (`fact_line`); they are chosen most important kinds first and listed
/// in the messages' order. With `bare`, then those the summary states without their words
/// (`lost_and_bare`), in what room the lost ones leave: never a reason to cut the summary (`make_room`).
fn facts_section(
    conv: &Conversation,
    facts: &[Fact],
    summary: &str,
    profile: &Profile,
    allowance: &mut Allowance,
    bare: bool,
) -> Option<(String, Vec<String>)> {
    let line = |f: &Fact| fact_line(conv, f).text;
    let (mut lost, kept_bare) = lost_and_bare(facts, summary, bare.then_some(&line as &dyn Fn(&Fact) -> String));
    lost.extend(kept_bare);
    let mut left = *allowance;
    let heading = profile.text(HEADING);
    let mut lines: Vec<FactLine> = Vec::new();
    let mut shown = Vec::new();
    for fact in lost {
        if lines.iter().any(|l| l.shows(fact)) {
            shown.push(fact.text.clone());
            continue;
        }
        let line = fact_line(conv, fact);
        // Beside a part of its line already listed: both shown as one, for what the longer part costs.
        let beside = lines.iter().enumerate().find_map(|(k, l)| Some((k, l.merged(&line, conv)?)));
        let (replaced, line, cost) = match beside {
            Some((k, both)) => {
                let cost = (profile.text(&both.text) - profile.text(&lines[k].text)).max(0.0);
                (Some(k), both, cost)
            }
            None => {
                // Its "\n- " (or "\n  - " under a heading), the line of its heading unless a neighbour
                // has the same (the lines of a heading are listed under it once), and the section's
                // heading with the first line of all.
                let mut cost = profile.text(&line.text) + 2.0;
                let at = lines.partition_point(|l| l.order() < line.order());
                let (before, after) = (at.checked_sub(1).and_then(|k| lines.get(k)), lines.get(at));
                let under = |l: Option<&FactLine>, heading: Option<&str>| {
                    heading.is_some() && l.is_some_and(|l| l.source.as_deref() == heading)
                };
                let own = line.source.as_deref();
                if !under(before, own) && !under(after, own) {
                    cost += own.map_or(0.0, |h| profile.text(h) + 3.0);
                    // Between two lines of one heading: the second's is shown again.
                    if let Some(split) = after.and_then(|a| a.source.as_deref()).filter(|&h| under(before, Some(h))) {
                        cost += profile.text(split) + 3.0;
                    }
                }
                if lines.is_empty() {
                    cost += heading;
                }
                (None, line, cost)
            }
        };
        if !left.take(cost, fact.kind == Kind::Constraint) {
            continue; // a shorter line further down may still fit
        }
        if let Some(k) = replaced {
            lines.remove(k);
        }
        let at = lines.partition_point(|l| l.order() < line.order());
        lines.insert(at, line);
        shown.push(fact.text.clone());
    }
    if lines.is_empty() {
        return None;
    }
    *allowance = left;
    let mut section = String::from(HEADING);
    for (k, line) in lines.iter().enumerate() {
        let Some(source) = &line.source else {
            section.push_str("\n- ");
            section.push_str(&line.text);
            continue;
        };
        if k == 0 || lines[k - 1].source != line.source {
            section.push_str("\n- ");
            section.push_str(source);
            section.push(':');
        }
        section.push_str("\n  - ");
        section.push_str(&line.text);
    }
    Some((section, shown))
}

/// The share of a summary's size that `make_room` may cut. On the default selection of `npm run eval`
/// (11 conversations, 52 questions), three quarters against half: answers written in the history 43 → 44
/// with the 1.5B model's summaries and 41 → 43 with the 0.5B's (answered 30 → 30 and 16 → 18); with the
/// offline digest (`--summaries digest --per-group 20`) 298 → 298 (four gained, four lost).
const MOST_CUT: f64 = 0.75;

/// What `make_room` did for a job: the tokens it cut from the summary, and the room the quotes may take.
pub struct Made {
    pub cut: u64,
    pub quotes_share: f64,
}

impl Restore<'_, '_> {
    /// A summary longer than the room its history leaves gives up its middle, down to a quarter of its size, so
    /// the user's words and the facts it lost still fit: a small model's long summary that kept one fact of
    /// twenty-eight is worth less than those facts verbatim. Its head (the task) and its tail (where the
    /// work stands) stay. `quotes`: whether the user's words are appended too. Returns, per job, the tokens
    /// cut and the quotes' share of the room; `room` grows by what was cut. Where even the cut leaves less
    /// room than the quotes and the facts want, each gets its part of it by what it wants (the quotes at
    /// least enough to quote the task): the quotes, appended first, would otherwise take it all (a
    /// tau-bench run with a long system prompt had its summary cut by 173 tokens for 14 facts, and all of
    /// it went to six quotes).
    pub fn make_room(&self, summaries: &mut [String], room: &mut f64, quotes: bool) -> Vec<Made> {
        let Restore { conv, plan, .. } = *self;
        let profile = &plan.profile;
        let mut free = *room;
        let mut made = Vec::with_capacity(summaries.len());
        for (k, (job, summary)) in plan.jobs.iter().zip(summaries.iter_mut()).enumerate() {
            let (_, summarized_tokens) = self.job_messages(job);
            let mut restored = summary.clone();
            let mut quotes_wanted = 0.0;
            if let Some(section) = quotes.then(|| self.wanted_quotes(job, summary)).flatten() {
                quotes_wanted = profile.text(&section);
                restored.push_str(&section);
            }
            let mut wanted = quotes_wanted;
            let mut facts_budget = Allowance { room: budget(job.max_output_tokens, summarized_tokens), over: 0.0 };
            if let Some((section, _)) =
                facts_section(conv, self.facts_of_job(k), &restored, profile, &mut facts_budget, false)
            {
                wanted += profile.text(&section);
            }
            let size = profile.text(summary);
            let short = (wanted - free).min(size * MOST_CUT);
            let mut cut = 0;
            // A smaller cut would free little more than its marker takes.
            if short >= MIN_QUOTE_TOKENS {
                let before = size;
                *summary = cut_to_tokens(summary, size - short, |t| profile.text(t)).into_owned();
                cut = (before - profile.text(summary)).max(0.0) as u64;
            }
            let available = free + cut as f64;
            let mut quotes_share = f64::INFINITY;
            if available < wanted {
                // Never below the budget of the shortest section, so that the oldest message (the task) is
                // still quoted. The cut summary states less than the whole one, so whatever the whole one left
                // to quote is still there to quote.
                let shortest = profile.text(USER_HEADING) + MIN_QUOTE_TOKENS;
                let floor = if quotes_wanted > 0.0 { shortest } else { 0.0 };
                quotes_share = (available * quotes_wanted / wanted).max(floor);
            }
            free = (available - wanted).max(0.0);
            *room += cut as f64;
            made.push(Made { cut, quotes_share });
        }
        made
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::apply::apply_summary;
    use crate::compaction::plan::plan_compaction;
    use crate::compaction::types::Keep;
    use crate::edit::materialize;
    use crate::fixtures::booking_chat as chat;
    use crate::options::Options;
    use crate::reading::input::Input;
    use serde_json::{json, Value};

    fn apply(msgs: &[Value], options: Value, summary: &str) -> (crate::compaction::apply::Applied, String) {
        let o = Options::from_json(&options).unwrap();
        let plan = serde_json::to_value(plan_compaction(&Input::items(msgs), &o).unwrap()).unwrap();
        assert_eq!(plan["needed"], true, "the fixture must need compaction");
        let applied = apply_summary(&Input::items(msgs), &plan, &json!(summary)).unwrap();
        let out = materialize(&applied.slots, msgs);
        let text = out
            .iter()
            .filter_map(|m| m["content"].as_str())
            .find(|t| t.contains("ctxfold-summary"))
            .unwrap()
            .to_string();
        (applied, text)
    }

    #[test]
    fn facts_a_summary_lost_are_appended_verbatim() {
        let (applied, text) = apply(
            &chat(),
            json!({ "contextWindow": 1500, "keepUserText": false }),
            "The user asked about weather and hotels.",
        );
        assert!(text.contains(HEADING), "{text}");
        for fact in ["QX7-2291", "ana@example.com", "I must never fly through Chicago."] {
            assert!(text.contains(fact), "{fact} in {text}");
            assert!(applied.report.facts_appended.iter().any(|f| f.contains(fact)), "{fact} reported");
        }
        // An id in the words around it, under its writer (with the e-mail beside it: one part of the line
        // for both); a constraint says what it is by itself. In the order they were written.
        let section = text.split_once(HEADING).unwrap().1.trim_end_matches("</ctxfold-summary>").trim();
        let lines = [
            "- user:",
            "  - My booking code is QX7-2291 and my e-mail is ana@example.com. I must…",
            "- I must never fly through Chicago.",
        ];
        assert_eq!(section, lines.join("\n"));
        assert!(applied.report.tokens_after < applied.report.tokens_before);
        assert!(applied.report.audit.facts_missing.is_empty(), "{:?}", applied.report.audit.facts_missing);
    }

    #[test]
    fn lines_under_the_same_heading_share_it_across_messages() {
        let msgs = crate::fixtures::support_chat(&[
            ("user", "My booking code is QX7-2291."),
            ("user", "My second booking is KX9-1182."),
            ("assistant", "Noted: I will look at both."),
        ]);
        let (_, text) = apply(&msgs, json!({ "contextWindow": 1500, "keepUserText": false }), "Two bookings.");
        let section = text.split_once(HEADING).unwrap().1.trim_end_matches("</ctxfold-summary>").trim();
        let lines = ["- user:", "  - My booking code is QX7-2291.", "  - My second booking is KX9-1182."];
        assert_eq!(section, lines.join("\n"));
    }

    #[test]
    fn a_term_the_summary_wrote_inside_chinese_is_not_listed_again() {
        let msgs = crate::fixtures::support_chat(&[
            ("user", "请用Java写一个把列表转换为映射的例子，再用MongoDB保存。"),
            ("assistant", "好的，下面是使用Java和MongoDB的代码。"),
        ]);
        let options = json!({ "contextWindow": 1500, "keepUserText": false });
        let (applied, _) = apply(&msgs, options.clone(), "用户要一个Java例子，数据保存到MongoDB里。天气和酒店。");
        assert!(applied.report.facts_appended.is_empty(), "{:?}", applied.report.facts_appended);
        assert!(applied.report.audit.facts_missing.is_empty(), "{:?}", applied.report.audit.facts_missing);
        let (applied, text) = apply(&msgs, options, "天气和酒店。");
        for term in ["Java", "MongoDB"] {
            assert!(applied.report.facts_appended.iter().any(|f| f == term), "{term} lost, so listed: {text}");
        }
    }

    #[test]
    fn an_id_the_summary_kept_without_its_words_is_listed_with_them() {
        let options = json!({ "contextWindow": 1500, "keepUserText": false });
        let summary = "Codes: QX7-2291. Contact ana@example.com. I must never fly through Chicago. Weather and hotels.";
        let (applied, text) = apply(&chat(), options, summary);
        assert!(applied.report.audit.facts_missing.is_empty(), "kept, for the audit");
        assert!(applied.report.facts_appended.iter().any(|f| f == "QX7-2291"), "{text}");
        assert!(text.contains("  - My booking code is QX7-2291"), "{text}");
    }

    #[test]
    fn a_summary_that_kept_them_gets_nothing_and_keep_facts_false_gets_it_as_given() {
        let kept = "Booking QX7-2291, e-mail ana@example.com. I must never fly through Chicago. Weather and hotels.";
        let (applied, text) = apply(&chat(), json!({ "contextWindow": 1500, "keepUserText": false }), kept);
        assert!(applied.report.facts_appended.is_empty() && !text.contains(HEADING), "{text}");
        let as_given = json!({ "contextWindow": 1500, "keepFacts": false, "keepUserText": false });
        let (applied, text) = apply(&chat(), as_given, "Weather and hotels.");
        assert!(applied.report.facts_appended.is_empty() && !text.contains(HEADING), "{text}");
        assert!(!applied.report.audit.facts_missing.is_empty());
        let lost = "the summary lost a constraint of the user's (message #1): I must never fly through Chicago.";
        assert!(applied.report.warnings.iter().any(|w| w == lost), "{:?}", applied.report.warnings);
    }

    #[test]
    fn the_task_is_quoted_first_and_the_facts_it_states_are_not_listed_again() {
        let (applied, text) =
            apply(&chat(), json!({ "contextWindow": 1500 }), "The user asked about weather and hotels.");
        let task =
            "User: My booking code is QX7-2291 and my e-mail is ana@example.com. I must never fly through Chicago.";
        let quotes = text.split_once(USER_HEADING).map(|(_, q)| q).unwrap_or_else(|| panic!("no quotes in {text}"));
        assert!(quotes.trim_start().starts_with(task), "{text}");
        assert_eq!(applied.report.user_text_appended.first(), Some(&1));
        // Later questions fill what the bound leaves, newest first, in their order.
        let quoted = &applied.report.user_text_appended;
        assert!(quoted.windows(2).all(|w| w[0] < w[1]), "{quoted:?}");
        assert!(!text.contains(HEADING), "the task already states every fact: {text}");
        assert!(applied.report.audit.facts_missing.is_empty());
        assert!(applied.report.tokens_after < applied.report.tokens_before);
    }

    #[test]
    fn the_summary_prompt_names_the_users_messages_quoted_after_it() {
        let options = json!({ "contextWindow": 1500 });
        let o = Options::from_json(&options).unwrap();
        let p = plan_compaction(&Input::items(&chat()), &o).unwrap();
        let (applied, _) = apply(&chat(), options, "The user asked about weather and hotels.");
        // The numbers the note gives are those apply quotes, where the room does not bound them.
        let quoted = &applied.report.user_text_appended;
        assert!(quoted.len() > 1, "{quoted:?}");
        let mut numbers: Vec<String> = quoted.iter().map(|i| format!("#{i}")).collect();
        let last = numbers.pop().unwrap();
        let note = format!(
            "The user's messages {} and {last} are quoted word for word after your summary",
            numbers.join(", ")
        );
        assert!(p.jobs[0].prompt.user.contains(&note), "{}", p.jobs[0].prompt.user);
        // Without the quotes, the summary is all there is: no note.
        let alone = Options::from_json(&json!({ "contextWindow": 1500, "keepUserText": false })).unwrap();
        let p = plan_compaction(&Input::items(&chat()), &alone).unwrap();
        assert!(!p.jobs[0].prompt.user.contains("quoted word for word"));
    }

    #[test]
    fn a_task_over_the_bound_keeps_its_head_and_tail() {
        let mut msgs = chat();
        let long = format!("Plan the trip. {} Book it under QX7-2291.", "Details of every leg and hotel. ".repeat(300));
        msgs[1] = json!({ "role": "user", "content": long });
        let (applied, text) =
            apply(&msgs, json!({ "contextWindow": 4000 }), "The user asked about weather and hotels.");
        let quotes = text.split_once(USER_HEADING).map(|(_, q)| q).unwrap();
        assert!(quotes.contains("User: Plan the trip.") && quotes.contains("Book it under QX7-2291."), "{quotes}");
        assert!(quotes.contains("characters cut"), "{quotes}");
        let o = Options::from_json(&json!({ "contextWindow": 4000 })).unwrap();
        let plan = plan_compaction(&Input::items(&msgs), &o).unwrap();
        assert!(o.profile.text(quotes) <= plan.limit as f64 / 8.0 + 1.0);
        assert_eq!(applied.report.user_text_appended[0], 1);
    }

    #[test]
    fn the_task_is_quoted_past_the_limit_where_the_kept_messages_leave_no_room() {
        let task = "Plan a week in Lisbon for two in May, under 2000 euros.";
        let mut msgs = crate::fixtures::support_chat(&[("user", task), ("assistant", "Gladly: flights first.")]);
        let policy = "Follow the agency's policy on refunds, changes and fees in every answer. ".repeat(80);
        msgs[0] = json!({ "role": "system", "content": format!("You are a travel agent. {policy}") });
        let (applied, text) = apply(&msgs, json!({ "contextWindow": 2000 }), "Weather and hotels.");
        let report = &applied.report;
        assert!(report.warnings.iter().any(|w| w.contains("still over the limit")), "{:?}", report.warnings);
        assert!(text.contains(&format!("User: {task}")), "{text}");
        assert_eq!(report.user_text_appended, [1], "only the task passes the limit");
        assert!(report.tokens_after < report.tokens_before);
    }

    #[test]
    fn the_newest_request_is_quoted_past_the_limit_where_its_answer_is_kept_alone() {
        let mut msgs = chat();
        let policy = "Follow the agency's policy on refunds, changes and fees in every answer. ".repeat(80);
        msgs[0] = json!({ "role": "system", "content": format!("You are a travel agent. {policy}") });
        let question = "Which of these hotels has a pool, and what does a night cost in May?";
        msgs.push(json!({ "role": "user", "content": question }));
        let answer = "The Miramar has a pool, and a night there in May costs 140 euros with breakfast. ".repeat(20);
        msgs.push(json!({ "role": "assistant", "content": answer }));
        let (applied, text) = apply(&msgs, json!({ "contextWindow": 2000 }), "Weather and hotels.");
        let report = &applied.report;
        assert!(report.warnings.iter().any(|w| w.contains("still over the limit")), "{:?}", report.warnings);
        assert!(text.contains(&format!("User: {question}")), "{text}");
        assert_eq!(report.user_text_appended, [1, msgs.len() - 2], "the task and the newest request only");
        assert!(report.tokens_after < report.tokens_before);
    }

    #[test]
    fn a_long_newest_request_is_not_cut_to_pass_the_limit() {
        let mut msgs = chat();
        let policy = "Follow the agency's policy on refunds, changes and fees in every answer. ".repeat(80);
        msgs[0] = json!({ "role": "system", "content": format!("You are a travel agent. {policy}") });
        // An agent harness's report of the tries that failed: its head and tail alone say nothing.
        let tries = "Earlier try: called search_hotels with the city and the dates; it failed. ".repeat(30);
        let report = format!("This is not the first try. {tries}Do something different from all of them.");
        msgs.push(json!({ "role": "user", "content": report }));
        let answer = "The Miramar has a pool, and a night there in May costs 140 euros with breakfast. ".repeat(20);
        msgs.push(json!({ "role": "assistant", "content": answer }));
        let (applied, text) = apply(&msgs, json!({ "contextWindow": 2000 }), "Weather and hotels.");
        assert_eq!(applied.report.user_text_appended, [1], "the task only");
        assert!(!text.contains("This is not the first try"), "{text}");
    }

    #[test]
    fn quotes_survive_the_next_compaction() {
        let msgs = chat();
        let o = json!({ "contextWindow": 1500 });
        let plan =
            serde_json::to_value(plan_compaction(&Input::items(&msgs), &Options::from_json(&o).unwrap()).unwrap())
                .unwrap();
        let applied = apply_summary(&Input::items(&msgs), &plan, &json!("Weather and hotels.")).unwrap();
        let mut next = materialize(&applied.slots, &msgs);
        for i in 30..60 {
            next.push(json!({ "role": "user", "content": format!("Follow-up {i} on trains and museums, with a few more details.") }));
            next.push(json!({ "role": "assistant", "content": format!("Reply {i}: the trains run hourly and the museums open at nine.") }));
        }
        let (_, text) = apply(&next, o, "Trains and museums.");
        assert!(text.contains("User: My booking code is QX7-2291"), "{text}");
        assert_eq!(text.matches(USER_HEADING).count(), 1, "{text}");
    }

    #[test]
    fn facts_never_push_the_history_past_the_summary_as_given() {
        let msgs = chat();
        let o = Options::from_json(&json!({ "contextWindow": 1500, "keepUserText": false })).unwrap();
        let plan = plan_compaction(&Input::items(&msgs), &o).unwrap();
        // A summary larger than the history allows: the middle it gives up holds the facts it lost.
        let words = "weather hotels ".repeat(plan.jobs[0].max_output_tokens as usize * 3 / 2);
        let plan_json = serde_json::to_value(&plan).unwrap();
        let applied = apply_summary(&Input::items(&msgs), &plan_json, &json!(words)).unwrap();
        let nothing = Keep { user_text: false, facts: false };
        let as_given = PlanRef { keep: nothing, ..PlanRef::from_json(&plan_json).unwrap() };
        let given = crate::compaction::apply::apply_planned(&Input::items(&msgs), &as_given, &json!(words)).unwrap();
        let report = &applied.report;
        assert!(report.tokens_after > u64::from(plan.limit), "the fixture must leave no room");
        assert!(report.tokens_after <= given.report.tokens_after);
        assert_eq!(report.facts_appended, ["I must never fly through Chicago.", "QX7-2291", "ana@example.com"]);
    }

    /// A support chat that opens with eighty bookings, each with its code: more facts than any budget holds.
    fn eighty_bookings() -> Vec<Value> {
        let mut opening = Vec::new();
        for i in 0..80 {
            opening.push(format!("Booking {i} has the code QX{i}-{}.", 3000 + i * 7));
        }
        let opening: Vec<(&str, &str)> = opening.iter().map(|t| ("user", t.as_str())).collect();
        crate::fixtures::support_chat(&opening)
    }

    #[test]
    fn facts_may_cost_the_output_budget_never_past_a_quarter_of_what_was_summarized() {
        assert_eq!(budget(1000, 100_000), 1000.0);
        assert_eq!(budget(1000, 2000), 500.0);
    }

    #[test]
    fn a_long_summary_that_lost_many_facts_gives_way_to_its_whole_budget_of_them() {
        let msgs = eighty_bookings();
        let options = json!({ "contextWindow": 2000, "keepUserText": false });
        let o = Options::from_json(&options).unwrap();
        let plan = plan_compaction(&Input::items(&msgs), &o).unwrap();
        // Twice the job's output budget, none of the codes: more than the history has room for.
        let output_budget = f64::from(plan.jobs[0].max_output_tokens);
        let long: String = (0..plan.jobs[0].max_output_tokens / 8)
            .map(|j| format!("Step {j}: the user and the assistant went over the bookings together.\n"))
            .collect();
        assert!(o.profile.text(&long) > 1.5 * output_budget, "the fixture's summary must be long");
        let (applied, text) = apply(&msgs, options, &long);
        let section = text.split_once(HEADING).unwrap().1;
        assert!(o.profile.text(section) > 0.9 * output_budget, "{text}");
        assert!(applied.report.warnings.iter().any(|w| w.contains("were cut to make room")), "{text}");
        assert!(applied.report.tokens_after <= u64::from(plan.limit), "{}", applied.report.tokens_after);
    }

    #[test]
    fn facts_fill_the_room_their_budget_leaves_up_to_the_headroom() {
        let msgs = eighty_bookings();
        let options = json!({ "contextWindow": 2000, "keepUserText": false });
        let o = Options::from_json(&options).unwrap();
        let plan = plan_compaction(&Input::items(&msgs), &o).unwrap();
        let summary = "The user listed bookings.";
        let (applied, text) = apply(&msgs, options, summary);
        let section = text.split_once(HEADING).unwrap().1;
        // Their budget is never more than the job's output budget.
        let budget = f64::from(plan.jobs[0].max_output_tokens);
        assert!(o.profile.text(section) > budget, "the facts took only their budget: {text}");
        // More facts were lost than fit: the history stops an eighth below its limit.
        let report = &applied.report;
        assert!(!report.audit.facts_missing.is_empty(), "the fixture must lose more than fits");
        let target = plan.limit as f64 * (1.0 - HEADROOM);
        assert!(report.tokens_after as f64 <= target + 1.0, "{} > {target}", report.tokens_after);
        assert!(report.tokens_after as f64 >= target - 40.0, "{} far below {target}", report.tokens_after);
    }

    #[test]
    fn room_above_the_headroom_is_bounded_by_twice_the_output_budget() {
        assert_eq!(up_to_headroom(900.0, 800, 1000, 300.0), 800.0, "the room less an eighth of the limit");
        assert_eq!(up_to_headroom(9000.0, 8000, 1000, 300.0), 2000.0, "at most twice the output budget");
        assert_eq!(up_to_headroom(120.0, 8000, 1000, 300.0), 120.0, "near the limit: the budget, within the room");
        assert_eq!(up_to_headroom(500.0, 8000, 1000, 300.0), 300.0);
    }

    #[test]
    fn past_the_room_only_what_may_pass_the_limit_takes_what_is_left() {
        let mut left = Allowance { room: 10.0, over: 30.0 };
        assert!(!left.take(12.0, false));
        assert!(left.take(25.0, true));
        assert_eq!((left.room, left.over), (0.0, 15.0));
        assert!(!left.take(1.0, false));
        assert!(left.take(15.0, true));
        assert!(!left.take(1.0, true));
    }

    #[test]
    fn a_long_summary_that_lost_the_facts_gives_up_its_middle_for_them() {
        let msgs = chat();
        let options = json!({ "contextWindow": 1500, "keepUserText": false });
        let o = Options::from_json(&options).unwrap();
        let plan = plan_compaction(&Input::items(&msgs), &o).unwrap();
        // Sentences that differ: repeated ones would be dropped as a model's loop.
        let filler: String = (0..plan.jobs[0].max_output_tokens / 5)
            .map(|day| format!("On day {day} the assistant and the user talked about the weather and the hotels. "))
            .collect();
        let long = format!("Goal: plan the trip. {filler} Next: book the hotel.");
        let (applied, text) = apply(&msgs, options, &long);
        assert!(text.contains("Goal: plan the trip.") && text.contains("Next: book the hotel."), "{text}");
        assert!(text.contains("characters cut"), "{text}");
        let warnings = &applied.report.warnings;
        assert!(warnings.iter().any(|w| w.contains("were cut to make room")), "{warnings:?}");
        for fact in ["QX7-2291", "ana@example.com", "I must never fly through Chicago."] {
            assert!(text.contains(fact), "{fact} in {text}");
        }
        assert!(warnings.iter().all(|w| !w.contains("lost a constraint")), "{warnings:?}");
        // Never larger than the summary as given.
        let as_given = json!({ "contextWindow": 1500, "keepUserText": false, "keepFacts": false });
        let (given, _) = apply(&msgs, as_given, &long);
        assert!(applied.report.tokens_after <= given.report.tokens_after);
        // A summary that keeps the facts is left whole, however long.
        let kept = format!("{long} Booking QX7-2291, e-mail ana@example.com. I must never fly through Chicago.");
        let (applied, text) = apply(&msgs, json!({ "contextWindow": 1500, "keepUserText": false }), &kept);
        assert!(!text.contains("characters cut"), "{text}");
        assert!(applied.report.warnings.iter().all(|w| !w.contains("were cut")));
    }
}
