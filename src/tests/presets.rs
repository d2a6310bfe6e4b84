//! Conformance of the presets: each reproduces the documented numbers and shapes of the system it is
//! named after (DESIGN.md, "Presets"), and on every corpus conversation that needs compacting, in every
//! format, each preset plans validly, fits the summarizer, applies the offline summary to a valid and
//! smaller history, and does not ask to compact again right after.

mod convert;
mod corpus_files;

use convert::{convert, FORMATS};
use corpus_files::corpus;
use ctxfold::checking::validate::problems;
use ctxfold::compaction::apply::{apply_summary, offline_summaries};
use ctxfold::compaction::plan::{plan_compaction, Plan};
use ctxfold::counting::estimate::estimate;
use ctxfold::counting::profiles::O200K;
use ctxfold::edit::{materialize, Slot};
use ctxfold::error::Code;
use ctxfold::options::preset::NAMES;
use ctxfold::options::Options;
use ctxfold::pruning::prune::prune;
use ctxfold::reading::format;
use ctxfold::reading::input::Input;
use ctxfold::text::{MARKER_OPEN, SUMMARY_ACK, SUMMARY_QUESTION};
use serde_json::{json, Value};

fn options(v: Value) -> Options {
    Options::from_json(&v).unwrap_or_else(|e| panic!("{v}: {e}"))
}

fn plan(msgs: &[Value], o: Value) -> Plan {
    plan_compaction(&Input::items(msgs), &options(o)).unwrap()
}

/// Plans, applies the offline digest, and returns the plan (as JSON) and the new history.
fn compact_offline(msgs: &[Value], o: Value) -> (Value, Vec<Value>) {
    let input = Input::items(msgs);
    let plan = serde_json::to_value(plan_compaction(&input, &options(o)).unwrap()).unwrap();
    assert!(!plan["jobs"].as_array().unwrap().is_empty(), "{}", plan["detail"]);
    let summary = Value::Object(offline_summaries(&input, &plan).unwrap());
    let applied = apply_summary(&input, &plan, &summary).unwrap();
    (plan, materialize(&applied.slots, msgs))
}

/// An agent run: a request, then `steps` tool calls of `size` words of output; every fifth is `Skill`.
fn agent_run(steps: usize, size: usize) -> Vec<Value> {
    let mut msgs = vec![
        json!({ "role": "system", "content": "You are a coding agent." }),
        json!({ "role": "user", "content": "Fix the failing test in src/app.py" }),
    ];
    for s in 0..steps {
        let tool = if s % 5 == 0 { "Skill" } else { "bash" };
        msgs.push(json!({ "role": "assistant", "content": format!("Step {s}"), "tool_calls": [
            { "id": format!("c{s}"), "type": "function", "function": { "name": tool, "arguments": format!("{{\"command\":\"cat f{s}.py\"}}") } }
        ] }));
        msgs.push(
            json!({ "role": "tool", "tool_call_id": format!("c{s}"), "content": format!("out{s} ").repeat(size) }),
        );
    }
    msgs
}

/// Several requests, each followed by a few tool steps and an answer.
fn sessions(requests: usize, steps: usize, size: usize) -> Vec<Value> {
    let mut msgs = vec![json!({ "role": "system", "content": "You are a coding agent." })];
    for r in 0..requests {
        msgs.push(json!({ "role": "user", "content": format!("Request {r}: {}", "please look at this ".repeat(20)) }));
        for s in 0..steps {
            let id = format!("c{r}_{s}");
            msgs.push(json!({ "role": "assistant", "content": null, "tool_calls": [
                { "id": id, "type": "function", "function": { "name": "bash", "arguments": format!("{{\"command\":\"ls d{r}_{s}\"}}") } }
            ] }));
            msgs.push(json!({ "role": "tool", "tool_call_id": id, "content": format!("file{r}_{s} ").repeat(size) }));
        }
        msgs.push(json!({ "role": "assistant", "content": format!("Done with request {r}.") }));
    }
    msgs
}

fn tokens(msgs: &[Value]) -> u64 {
    estimate(&Input::items(msgs), &Options::default()).unwrap().total
}

fn text(m: &Value) -> &str {
    m["content"].as_str().unwrap_or("")
}

#[test]
fn opencode() {
    let o = options(json!({ "preset": "opencode", "contextWindow": 200000 }));
    assert_eq!(
        (o.protect_tokens, o.minimum_prune_tokens, o.placeholder.as_str()),
        (20_000, 10_000, "[Old tool result content cleared]")
    );
    assert_eq!(o.limit(), 200_000 - 32_000, "overflow when the input passes the window minus 32K for the answer");

    // Prune: newest to oldest, the newest 20K tokens of output stay, and only when 10K or more would go.
    let msgs = agent_run(60, 600);
    let p = prune(&Input::items(&msgs), &o).unwrap();
    let first_pruned = p.report.pruned.first().unwrap().index;
    let newest_pruned = p.report.pruned.last().unwrap().index;
    let kept_after: f64 = (newest_pruned + 1..msgs.len())
        .filter(|&i| msgs[i]["role"] == "tool")
        .map(|i| O200K.text(text(&msgs[i])))
        .sum();
    assert!(kept_after >= 20_000.0 - O200K.text(text(&msgs[newest_pruned])), "the newest 20K stay: {kept_after}");
    assert!(p.report.tokens_before - p.report.tokens_after >= 10_000);
    assert!(first_pruned < newest_pruned);
    // Fewer steps: what lies beyond the newest 20K is under 10K, so nothing goes.
    let outputs = |m: &[Value]| m.iter().filter(|x| x["role"] == "tool").map(|x| O200K.text(text(x))).sum::<f64>();
    let small: Vec<Value> = (5..60).map(|steps| agent_run(steps, 600)).find(|m| outputs(m) > 22_000.0).unwrap();
    assert!(outputs(&small) < 29_000.0, "{}", outputs(&small));
    assert!(prune(&Input::items(&small), &o).unwrap().report.pruned.is_empty(), "no prune below 10K");

    // Compaction rebuilds the history as: system prompt, "What did we do so far?", the summary, then on.
    let msgs = sessions(30, 3, 400);
    let (planned, out) = compact_offline(&msgs, json!({ "preset": "opencode", "contextWindow": 40000 }));
    assert_eq!((planned["preset"].as_str(), planned["summaryShape"].as_str()), (Some("opencode"), Some("exchange")));
    assert_eq!(out[0], msgs[0]);
    assert_eq!(out[1], json!({ "role": "user", "content": SUMMARY_QUESTION }));
    assert_eq!(out[2]["role"], "assistant");
    assert!(text(&out[2]).starts_with(MARKER_OPEN));
    assert!(text(&out[3]).starts_with("Request "), "the kept tail starts with the user's request: {}", out[3]);
    let again = plan_compaction(&Input::items(&out), &options(json!({ "preset": "opencode", "contextWindow": 40000 })))
        .unwrap();
    assert!(!again.needed, "{}", again.detail);
    // The question and the summary are one: the next compaction replaces both.
    let mut longer = out.clone();
    longer.extend(sessions(30, 3, 400).into_iter().skip(1));
    let (next, out2) = compact_offline(&longer, json!({ "preset": "opencode", "contextWindow": 40000 }));
    assert_eq!(next["previousSummary"], json!(1));
    assert_eq!(out2.iter().filter(|m| text(m) == SUMMARY_QUESTION).count(), 1);
}

#[test]
fn spring_ai() {
    let o = options(json!({ "preset": "spring-ai" }));
    assert_eq!(o.limit(), 60_000, "layer 2 runs above 60 000 tokens");
    assert_eq!(o.protected_tools, ["Skill"]);

    // Layer 1: the newest 4 tool outputs stay, older ones become "[truncated: N chars]", Skill is untouched.
    let msgs = agent_run(12, 50);
    let p = prune(&Input::items(&msgs), &o).unwrap();
    let out = materialize(&p.slots, &msgs);
    let results: Vec<usize> = (0..msgs.len()).filter(|&i| msgs[i]["role"] == "tool").collect();
    let counted: Vec<usize> =
        results.iter().copied().filter(|&i| msgs[i - 1]["tool_calls"][0]["function"]["name"] != "Skill").collect();
    for &i in &results {
        let skill = msgs[i - 1]["tool_calls"][0]["function"]["name"] == "Skill";
        let newest_four = counted.iter().rev().take(4).any(|&k| k == i);
        if skill || newest_four {
            assert_eq!(out[i], msgs[i], "message {i} stays");
        } else {
            assert_eq!(text(&out[i]), format!("[truncated: {} chars]", text(&msgs[i]).chars().count()));
        }
    }

    // Their calls' arguments are cut at 200 characters, and stay JSON.
    let mut long = agent_run(8, 50);
    for (step, message) in [(1, 4), (7, 16)] {
        long[message]["tool_calls"][0]["function"]["arguments"] =
            json!(json!({ "command": format!("{step}").repeat(500) }).to_string());
    }
    let p = prune(&Input::items(&long), &o).unwrap();
    let out = materialize(&p.slots, &long);
    let args: Value = serde_json::from_str(out[4]["tool_calls"][0]["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args["command"], format!("{}… [truncated: 500 chars]", "1".repeat(200)));
    assert_eq!(p.report.cut_arguments.len(), 1);
    assert_eq!(out[16], long[16], "a call whose output stays keeps its arguments");
    let again = prune(&Input::items(&out), &o).unwrap();
    assert!(
        again.report.pruned.is_empty() && again.report.cut_arguments.is_empty(),
        "pruning twice equals pruning once"
    );

    // Layer 2: a system message that starts with 【历史摘要】, right after the system prompt, written with
    // the user's current question in view.
    let mut msgs = sessions(40, 3, 500);
    msgs.push(json!({ "role": "user", "content": "现在请帮我检查 d39_2 目录" }));
    assert!(tokens(&msgs) > 60_000);
    let (planned, out) = compact_offline(&msgs, json!({ "preset": "spring-ai" }));
    assert!(planned["jobs"][0]["prompt"]["user"].as_str().unwrap().contains("现在请帮我检查 d39_2 目录"));
    assert_eq!(out[0], msgs[0]);
    assert_eq!(out[1]["role"], "system");
    assert!(text(&out[1]).starts_with("【历史摘要】\n<ctxfold-summary"));
    assert_eq!(out.last(), msgs.last());
    assert!(!plan_compaction(&Input::items(&out), &o).unwrap().needed);
    // The summary in system form is still ours: the next plan merges it, it is not pinned.
    let mut longer = out.clone();
    longer.extend(sessions(40, 3, 500).into_iter().skip(1));
    let next = plan(&longer, json!({ "preset": "spring-ai" }));
    assert_eq!(next.previous_summary, Some(1));
    assert!(next.pinned.is_empty());
}

#[test]
fn claude_code() {
    let o = options(json!({ "preset": "claude-code", "contextWindow": 200000 }));
    let usable = 200_000 - 32_000;
    assert_eq!(o.limit(), (f64::from(usable) * 0.70) as u32);
    assert_eq!(o.hard_limit(), Some((f64::from(usable) * 0.90) as u32));
    assert_eq!((o.keep_recent_turns, o.keep_recent_tokens), (4, Some(20_000)));

    // The largest runs of tool exchanges go first, each to about a fifth; user and assistant text stay.
    let msgs = sessions(12, 6, 300);
    let opts = json!({ "preset": "claude-code", "contextWindow": 150000 });
    let p = plan(&msgs, opts.clone());
    assert!(p.needed && p.jobs.len() > 1, "{} jobs: {}", p.jobs.len(), p.detail);
    assert_eq!(p.template, "progress");
    assert!(
        p.jobs[0].prompt.system.contains("## Task progress") && p.jobs[0].prompt.system.contains("## Active context")
    );
    let per_message = estimate(&Input::items(&msgs), &Options::default()).unwrap().per_message;
    for job in &p.jobs {
        let size: u64 = (job.range.start..job.range.end).map(|i| u64::from(per_message[i])).sum();
        let fifth = size / 5;
        assert!(
            u64::from(job.max_output_tokens) <= fifth.max(256)
                && u64::from(job.max_output_tokens) + 60 >= fifth.min(8192),
            "{} for {size}",
            job.max_output_tokens
        );
        assert!(
            (job.range.start..job.range.end).all(|i| msgs[i]["tool_calls"].is_array() || msgs[i]["role"] == "tool"),
            "only tool exchanges"
        );
    }
    let (_, out) = compact_offline(&msgs, opts.clone());
    let requests = |h: &[Value]| h.iter().filter(|m| text(m).starts_with("Request ")).count();
    let answers = |h: &[Value]| h.iter().filter(|m| text(m).starts_with("Done with")).count();
    assert_eq!((requests(&out), answers(&out)), (12, 12), "user and assistant text are not compactable");
    assert!(!plan(&out, opts.clone()).needed);

    // Summaries are never summarized again: with nothing else left, CANNOT_COMPACT_FURTHER.
    let only_summaries = vec![
        msgs[0].clone(),
        json!({ "role": "user", "content": format!("{MARKER_OPEN} covers=\"#1-#90\">\nx\n\n{}\n</ctxfold-summary>", "fact ".repeat(3000)) }),
        json!({ "role": "user", "content": "go on" }),
    ];
    let e = plan_compaction(
        &Input::items(&only_summaries),
        &options(json!({ "preset": "claude-code", "contextWindow": 4000 })),
    )
    .unwrap_err();
    assert_eq!(e.code, Code::CannotCompactFurther);
    assert_eq!(e.code.as_str(), "CANNOT_COMPACT_FURTHER");
    // The default merges an earlier summary instead.
    let merged = plan(&only_summaries, json!({ "contextWindow": 4000, "keepRecentTurns": 1 }));
    assert_eq!(merged.reason, "nothing_to_summarize", "only a summary before the tail");
}

#[test]
fn gemini_cli() {
    let o = options(json!({ "preset": "gemini-cli", "contextWindow": 100000 }));
    assert_eq!(o.limit(), (100_000 - 25_000) * 70 / 100);
    assert_eq!(o.keep_fraction, Some(0.30));

    // Keep the newest 30%, cut only before a user message; a snapshot, then the model's acknowledgement.
    let msgs = sessions(30, 3, 400);
    let total = tokens(&msgs);
    let opts = json!({ "preset": "gemini-cli", "contextWindow": 250000 });
    let p = plan(&msgs, opts.clone());
    let cut = p.jobs[0].range.end;
    assert!(text(&msgs[cut]).starts_with("Request "), "the tail starts at a user message");
    assert!(tokens(&msgs[cut..]) <= total * 30 / 100 + 10, "at most the newest 30% is kept");
    assert!(p.jobs[0].prompt.system.contains("<state_snapshot>"));
    let (_, out) = compact_offline(&msgs, opts.clone());
    assert_eq!(out[1]["role"], "user");
    assert!(text(&out[1]).contains("<state_snapshot>"));
    assert_eq!(out[2], json!({ "role": "assistant", "content": SUMMARY_ACK }));
    assert_eq!(&out[3..], &msgs[cut..]);
    let after = plan(&out, opts.clone());
    assert!(!after.needed, "{} (before: {total})", after.detail);
    // In Gemini's own format: a user turn and a model turn.
    let gemini = convert("gemini", &msgs).input;
    let input = Input::read(&gemini).unwrap();
    let planned = serde_json::to_value(plan_compaction(&input, &options(opts)).unwrap()).unwrap();
    let summary = Value::Object(offline_summaries(&input, &planned).unwrap());
    let applied = apply_summary(&input, &planned, &summary).unwrap();
    let out = materialize(&applied.slots, input.items);
    assert_eq!((out[0]["role"].as_str(), out[1]["role"].as_str()), (Some("user"), Some("model")));
    assert_eq!(out[1]["parts"][0]["text"], SUMMARY_ACK);
    assert!(problems(&format::read_items(&out, None).unwrap()).is_empty());
    // Refuses a result that is not smaller.
    let e = apply_summary(
        &input,
        &planned,
        &json!("<state_snapshot>".to_string() + &"x ".repeat(200_000) + "</state_snapshot>"),
    )
    .unwrap_err();
    assert_eq!(e.code, Code::SummaryNotSmaller);
}

#[test]
fn smart() {
    // Critical messages stay verbatim: file writes and code runs, errors, the user's constraints.
    let mut msgs = sessions(10, 3, 300);
    let write = json!({ "role": "assistant", "content": null, "tool_calls": [
        { "id": "w1", "type": "function", "function": { "name": "write_file", "arguments": "{\"path\":\"src/app.py\",\"text\":\"x = 1\"}" } }
    ] });
    let written = json!({ "role": "tool", "tool_call_id": "w1", "content": "wrote 5 bytes" });
    let failing = json!({ "role": "assistant", "content": null, "tool_calls": [
        { "id": "e1", "type": "function", "function": { "name": "bash", "arguments": "{\"command\":\"pytest\"}" } }
    ] });
    let failure = json!({ "role": "tool", "tool_call_id": "e1", "content": "Traceback (most recent call last):\nImportError: no module named app" });
    let constraint = json!({ "role": "user", "content": "You must never push to main; 不能修改 setup.py." });
    msgs.splice(5..5, [constraint.clone(), write.clone(), written.clone(), failing.clone(), failure.clone()]);
    let opts = json!({ "preset": "smart", "contextWindow": 30000 });
    let p = plan(&msgs, opts.clone());
    for m in [&constraint, &write, &written, &failing, &failure] {
        let i = msgs.iter().position(|x| x == m).unwrap();
        assert!(p.pinned.contains(&i), "message {i} is critical: {m}");
    }
    // Hierarchical: chunks of about 20 messages, each its own job, joined into one summary.
    assert_eq!(p.strategy, "hierarchical");
    assert!(p.jobs.len() >= 2, "{} jobs", p.jobs.len());
    assert!(p.jobs.iter().all(|j| j.range.end - j.range.start >= 10 && j.range.end - j.range.start <= 30));
    let (_, out) = compact_offline(&msgs, opts.clone());
    for m in [&constraint, &write, &written, &failing, &failure] {
        assert!(out.contains(m), "kept verbatim: {m}");
    }
    let summaries: Vec<&Value> = out.iter().filter(|m| text(m).starts_with(MARKER_OPEN)).collect();
    assert_eq!(summaries.len(), 1, "the chunks' summaries are joined into one");
    assert!(text(summaries[0]).contains("Messages #"));
    assert!(problems(&format::read_items(&out, None).unwrap()).is_empty());
    assert!(!plan(&out, opts).needed);
}

#[test]
fn explicit_options_override_the_preset_and_unknown_presets_are_refused() {
    let o = options(json!({ "preset": "claude-code", "threshold": 0.8, "keepRecentTurns": 2 }));
    assert_eq!((o.threshold, o.keep_recent_turns, o.hard_threshold), (0.8, 2, Some(0.9)));
    let o = options(json!({ "preset": "gemini-cli", "keepRecentTokens": 5000 }));
    assert_eq!(
        (o.keep_recent_tokens, o.keep_fraction),
        (Some(5000), None),
        "one way of sizing the tail replaces the other"
    );
    let e = Options::from_json(&json!({ "preset": "cursor" })).unwrap_err();
    assert_eq!((e.code.as_str(), e.path.as_str()), ("INVALID_OPTION", "options.preset"));
    // A preset's 32K reserve never takes more than half of a small window.
    assert_eq!(options(json!({ "preset": "opencode", "contextWindow": 16000 })).reserved_output(), 8000);
}

#[test]
fn host_pins_stay_with_their_tool_exchange() {
    let msgs = agent_run(40, 200);
    let p = plan(&msgs, json!({ "contextWindow": 16000, "pin": [7] }));
    // Message 7 is a tool result: its call (6) stays with it.
    assert_eq!(p.pinned, vec![6, 7]);
    let (_, out) = compact_offline(&msgs, json!({ "contextWindow": 16000, "pin": [7] }));
    assert_eq!((&out[2], &out[3]), (&msgs[6], &msgs[7]), "after the summary, in order");
    assert!(problems(&format::read_items(&out, None).unwrap()).is_empty());
}

#[test]
fn protected_tools_are_never_summarized() {
    let msgs = agent_run(40, 200);
    let p = plan(&msgs, json!({ "contextWindow": 16000, "protectedTools": ["Skill"] }));
    let range = p.jobs[0].range;
    let skill_calls: Vec<usize> =
        (range.start..range.end).filter(|&i| msgs[i]["tool_calls"][0]["function"]["name"] == "Skill").collect();
    assert!(!skill_calls.is_empty());
    for i in skill_calls {
        assert!(p.pinned.contains(&i) && p.pinned.contains(&(i + 1)), "the Skill call at {i} and its result stay");
    }
}

/// Every preset on every tool conversation of the corpus, in every format, with a window small enough
/// that the conversation needs compacting and a small summarizer.
#[test]
fn every_preset_on_the_corpus() {
    const SUMMARIZER: u32 = 16_000;
    let files = ["tau-bench-airline.jsonl", "mini-swe-agent-tools.jsonl", "swe-agent.jsonl", "toolbench.jsonl"];
    let mut done = std::collections::BTreeMap::<&str, (usize, usize)>::new();
    for file in files {
        for (id, msgs) in corpus(file) {
            let est = estimate(&Input::items(&msgs), &Options::default()).unwrap();
            let total = est.total;
            let system: u64 = est
                .per_message
                .iter()
                .zip(&msgs)
                .filter(|(_, m)| m["role"] == "system")
                .map(|(&t, _)| u64::from(t))
                .sum();
            for preset in NAMES {
                // The smallest window (in steps of 5%) whose limit the conversation passes by a quarter,
                // with room left for the system prompt, a summary and a recent tail.
                let window = |w: u64| options(json!({ "preset": preset, "contextWindow": w }));
                let room = |w: u64| u64::from(window(w).limit()) >= 2 * system + 1500;
                let mut w = total * 4;
                while room(w * 19 / 20) && u64::from(window(w).limit()) * 5 / 4 > total {
                    w = w * 19 / 20;
                }
                if u64::from(window(w).limit()) >= total {
                    continue; // not long enough to need compacting
                }
                let mut opts = json!({ "preset": preset, "contextWindow": w, "summarizerWindow": SUMMARIZER });
                if preset == "claude-code" {
                    // Its 20K-token tail is a tenth of a 200K window: scaled to these small windows alike
                    // (the conformance test above checks the number itself).
                    opts["keepRecentTokens"] = json!(w / 10);
                }
                for name in FORMATS {
                    let what = format!("{id} as {name} with {preset} (window {w})");
                    let converted = convert(name, &msgs);
                    let input = Input::read(&converted.input).unwrap();
                    let o = options(opts.clone());
                    let entry = done.entry(preset).or_default();
                    let p = match plan_compaction(&input, &o) {
                        Ok(p) => p,
                        Err(e) if e.code == Code::CannotCompactFurther => {
                            entry.1 += 1;
                            continue;
                        }
                        Err(e) => panic!("{what}: {e}"),
                    };
                    assert!(p.needed, "{what}: {}", p.detail);
                    if p.jobs.is_empty() {
                        entry.1 += 1;
                        continue;
                    }
                    for job in &p.jobs {
                        let prompt = O200K.text(&job.prompt.system)
                            + O200K.text(&job.prompt.user)
                            + f64::from(job.max_output_tokens);
                        assert!(prompt <= f64::from(SUMMARIZER), "{what}: {} needs {prompt} tokens", job.id);
                    }
                    let plan = serde_json::to_value(&p).unwrap();
                    let summary = Value::Object(offline_summaries(&input, &plan).unwrap());
                    let applied =
                        apply_summary(&input, &plan, &summary).unwrap_or_else(|e| panic!("{what}: apply: {e}"));
                    assert!(applied.report.tokens_after < applied.report.tokens_before, "{what}");
                    let out = materialize(&applied.slots, input.items);
                    let conv = format::read_items(&out, Some(format::Format::from_name(name, "").unwrap())).unwrap();
                    assert_eq!(problems(&conv), vec![], "{what}: invalid output");
                    let kept: Vec<usize> = applied
                        .slots
                        .iter()
                        .filter_map(|s| if let Slot::Keep(i) = s { Some(*i) } else { None })
                        .collect();
                    assert!(kept.windows(2).all(|w| w[0] < w[1]), "{what}: reordered");
                    let mut body = converted.input.clone();
                    match body.as_object_mut() {
                        Some(obj) => {
                            let key = obj
                                .keys()
                                .find(|k| ["messages", "contents", "input"].contains(&k.as_str()))
                                .unwrap()
                                .clone();
                            obj.insert(key, Value::Array(out));
                        }
                        None => body = Value::Array(out),
                    }
                    let again = plan_compaction(&Input::read(&body).unwrap(), &o)
                        .unwrap_or_else(|e| panic!("{what}: second plan: {e}"));
                    assert!(!again.needed, "{what}: asks to compact again right after: {}", again.detail);
                    entry.0 += 1;
                }
            }
        }
    }
    println!("compacted / could not compact, per preset (conversations × {} formats): {done:?}", FORMATS.len());
    for preset in NAMES {
        let (ok, not) = done.get(preset).copied().unwrap_or_default();
        // About two thirds of the 245 conversations leave room for a system prompt, a summary and a tail.
        assert!(ok >= 150 * FORMATS.len() && not == 0, "{preset}: {ok} compacted, {not} not");
    }
}
