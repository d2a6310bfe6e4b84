//! Each format on a conversation written after its provider's documented examples
//! (pkg-tests/formats/): detection, validation, prune in the format's own shape, compaction that
//! respects alternation, thinking and signatures untouched, and validate/repair on broken copies.

use ctxfold::checking::repair::repair;
use ctxfold::checking::validate::validate;
use ctxfold::compaction::apply::{apply_summary, offline_summaries};
use ctxfold::compaction::plan::plan_compaction;
use ctxfold::counting::estimate::estimate;
use ctxfold::edit::{materialize, Slot};
use ctxfold::options::{Options, DEFAULT_PLACEHOLDER};
use ctxfold::pruning::prune::prune;
use ctxfold::reading::input::Input;
use serde_json::{json, Value};
use std::path::PathBuf;

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("pkg-tests/formats").join(format!("{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn options(v: Value) -> Options {
    Options::from_json(&v).unwrap()
}

/// The body with its items replaced, as the binding returns it.
fn output(input_value: &Value, slots: &[Slot]) -> Value {
    let input = Input::read(input_value).unwrap();
    let items = Value::Array(materialize(slots, input.items));
    match input.key {
        Some(key) => {
            let mut body = input_value.clone();
            body[key] = items;
            body
        }
        None => items,
    }
}

fn problems(v: &Value) -> Vec<String> {
    validate(&Input::read(v).unwrap(), &Options::default())
        .unwrap()
        .problems
        .into_iter()
        .map(|p| format!("{} {}", p.kind, p.path))
        .collect()
}

const ALL: [&str; 5] = ["openai-chat", "anthropic", "gemini", "openai-responses", "ai-sdk"];

#[test]
fn each_example_is_detected_valid_and_counted() {
    for name in ALL {
        let v = fixture(name);
        let input = Input::read(&v).unwrap();
        let e = estimate(&input, &Options::default()).unwrap();
        assert_eq!(e.format, name);
        assert_eq!(problems(&v), Vec::<String>::new(), "{name}");
        assert!(e.per_message.iter().all(|&t| t > 0));
        let bare = estimate(&ctxfold::reading::input::Input::items(input.items), &Options::default()).unwrap();
        assert_eq!(
            e.request_overhead > bare.request_overhead,
            input.system.is_some(),
            "{name}: a body's system prompt is counted"
        );
    }
}

/// Where each format keeps a tool's output, after pruning: (item, path to the output).
fn cleared_output(name: &str, out: &Value) -> Vec<Value> {
    let items = match name {
        "anthropic" => &out["messages"],
        "gemini" => &out["contents"],
        "openai-responses" => &out["input"],
        _ => out,
    };
    match name {
        "openai-chat" => vec![items[3]["content"].clone(), items[4]["content"].clone()],
        "anthropic" => vec![items[2]["content"][0]["content"].clone(), items[2]["content"][1]["content"].clone()],
        "gemini" => vec![
            items[2]["parts"][0]["functionResponse"]["response"].clone(),
            items[2]["parts"][1]["functionResponse"]["response"].clone(),
        ],
        "openai-responses" => vec![items[4]["output"].clone(), items[5]["output"].clone()],
        "ai-sdk" => vec![items[3]["content"][0]["output"].clone(), items[3]["content"][1]["output"].clone()],
        _ => unreachable!(),
    }
}

#[test]
fn prune_writes_each_format_s_own_shape_and_nothing_else() {
    let opts = options(json!({ "protectTokens": 0, "minimumPruneTokens": 0 }));
    for name in ALL {
        let v = fixture(name);
        let p = prune(&Input::read(&v).unwrap(), &opts).unwrap();
        assert_eq!(p.report.pruned.len(), 2, "{name}: both outputs cleared");
        let out = output(&v, &p.slots);
        let expected = match name {
            "gemini" => json!({ "content": DEFAULT_PLACEHOLDER }),
            "ai-sdk" => json!({ "type": "text", "value": DEFAULT_PLACEHOLDER }),
            _ => json!(DEFAULT_PLACEHOLDER),
        };
        assert_eq!(cleared_output(name, &out), vec![expected.clone(), expected], "{name}");
        assert_eq!(problems(&out), Vec::<String>::new(), "{name}: still valid");
        // Everything but the outputs is as it was: ids, error flags, cache_control, signatures.
        let mut restored = out.clone();
        let original = cleared_output(name, &v);
        let items = match name {
            "anthropic" => &mut restored["messages"],
            "gemini" => &mut restored["contents"],
            "openai-responses" => &mut restored["input"],
            _ => &mut restored,
        };
        match name {
            "openai-chat" => {
                items[3]["content"] = original[0].clone();
                items[4]["content"] = original[1].clone();
            }
            "anthropic" => {
                items[2]["content"][0]["content"] = original[0].clone();
                items[2]["content"][1]["content"] = original[1].clone();
            }
            "gemini" => {
                items[2]["parts"][0]["functionResponse"]["response"] = original[0].clone();
                items[2]["parts"][1]["functionResponse"]["response"] = original[1].clone();
            }
            "openai-responses" => {
                items[4]["output"] = original[0].clone();
                items[5]["output"] = original[1].clone();
            }
            _ => {
                items[3]["content"][0]["output"] = original[0].clone();
                items[3]["content"][1]["output"] = original[1].clone();
            }
        }
        assert_eq!(restored, v, "{name}: prune changed something besides the outputs");
        let again = prune(&Input::read(&out).unwrap(), &opts).unwrap();
        assert!(again.report.pruned.is_empty(), "{name}: pruning twice equals pruning once");
    }
}

#[test]
fn compaction_keeps_alternation_and_signed_blocks() {
    for name in ALL {
        let v = fixture(name);
        let input = Input::read(&v).unwrap();
        let plan = serde_json::to_value(
            plan_compaction(&input, &options(json!({ "force": true, "keepRecentTurns": 1 }))).unwrap(),
        )
        .unwrap();
        assert_eq!(plan["needed"], true, "{name}");
        let summary = Value::Object(offline_summaries(&input, &plan).unwrap());
        let applied = apply_summary(&input, &plan, &summary).unwrap_or_else(|e| panic!("{name}: {e}"));
        let out = output(&v, &applied.slots);
        assert_eq!(problems(&out), Vec::<String>::new(), "{name}: the compacted history is valid");
        let items = Input::read(&out).unwrap().items.to_vec();
        let text = serde_json::to_string(&items).unwrap();
        assert!(text.contains("<ctxfold-summary"), "{name}");
        assert!(text.contains("compare with Lyon"), "{name}: the follow-up question is kept");
        match name {
            // Alternating formats: the summary joins the follow-up's user turn instead of preceding it.
            "anthropic" | "gemini" => assert_eq!(items.len(), 1, "{name}: {text}"),
            "openai-chat" | "ai-sdk" => assert_eq!(items.len(), 3, "{name}: system, summary, follow-up"),
            _ => assert_eq!(items.len(), 2, "{name}: summary, follow-up"),
        }
        assert!(applied.report.tokens_after < applied.report.tokens_before);
    }
}

#[test]
fn thinking_blocks_that_stay_are_never_edited() {
    let mut v = fixture("anthropic");
    // A first turn long enough to be worth a summary (its image is a single pixel: next to nothing).
    let question = &mut v["messages"][0]["content"][1]["text"];
    *question = format!("{} {}", question.as_str().unwrap(), "Some background on the trip. ".repeat(100)).into();
    let input = Input::read(&v).unwrap();
    // Summarize only the first user turn: the assistant turn with the signed thinking block stays.
    let plan = serde_json::to_value(
        plan_compaction(&input, &options(json!({ "force": true, "keepRecentTokens": 100000, "keepRecentTurns": 0 })))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(plan["summarize"], json!([{ "start": 0, "end": 1 }]));
    let summary = Value::Object(offline_summaries(&input, &plan).unwrap());
    let applied = apply_summary(&input, &plan, &summary).unwrap();
    assert_eq!(&applied.slots[1..], &[Slot::Keep(1), Slot::Keep(2), Slot::Keep(3), Slot::Keep(4)]);
    let p = prune(&input, &options(json!({ "protectTokens": 0, "minimumPruneTokens": 0 }))).unwrap();
    assert_eq!(p.slots[1], Slot::Keep(1), "prune never touches the assistant turn either");
}

#[test]
fn validate_finds_and_repair_fixes_missing_and_orphan_results() {
    // Anthropic: drop the second result, and point the first at a call that does not exist.
    let mut v = fixture("anthropic");
    v["messages"][2]["content"].as_array_mut().unwrap().remove(1);
    v["messages"][2]["content"][0]["tool_use_id"] = json!("toolu_nope");
    assert_eq!(
        problems(&v),
        [
            "missing_result messages[1].content[2].id",
            "missing_result messages[1].content[3].id",
            "orphan_result messages[2].content[0].tool_use_id",
        ]
    );
    let r = repair(&Input::read(&v).unwrap(), &Options::default()).unwrap();
    assert_eq!(r.report.repairs.len(), 3);
    assert!(r.report.remaining.is_empty(), "{:?}", r.report.remaining);
    let out = output(&v, &r.slots);
    assert_eq!(problems(&out), Vec::<String>::new());
    assert_eq!(out["messages"][2]["content"].as_array().unwrap().len(), 2, "two marked results, the orphan gone");

    // OpenAI Chat: a result missing in the middle gets a marked tool message right after its call's results.
    let mut v = fixture("openai-chat");
    v.as_array_mut().unwrap().remove(4);
    assert_eq!(problems(&v), ["missing_result messages[2].tool_calls[1].id"]);
    let r = repair(&Input::read(&v).unwrap(), &Options::default()).unwrap();
    let out = output(&v, &r.slots);
    assert_eq!(out[4]["tool_call_id"], "call_B");
    assert!(out[4]["content"].as_str().unwrap().contains("missing"));
    assert_eq!(problems(&out), Vec::<String>::new());

    // Two user turns in a row: reported, not guessed at.
    let mut v = fixture("gemini");
    v["contents"].as_array_mut().unwrap().remove(3);
    assert_eq!(problems(&v), ["alternation contents[3].role"]);
    let r = repair(&Input::read(&v).unwrap(), &Options::default()).unwrap();
    assert!(r.report.repairs.is_empty() && r.report.remaining.len() == 1);
}

#[test]
fn other_operations_refuse_broken_links_with_the_path() {
    let mut v = fixture("openai-responses");
    v["input"][4]["call_id"] = json!("call_nope");
    let e = prune(&Input::read(&v).unwrap(), &Options::default()).unwrap_err();
    assert_eq!((e.code.as_str(), e.path.as_str()), ("INVALID_INPUT", "input[4].call_id"));
}

#[test]
fn mixed_or_unknown_shapes_are_reported_not_guessed() {
    let mixed = json!([{ "role": "user", "content": "hi" }, { "role": "model", "parts": [{ "text": "hello" }] }]);
    let e = estimate(&Input::read(&mixed).unwrap(), &Options::default()).unwrap_err();
    assert_eq!(e.path, "messages[1]");
    assert!(e.message.contains("gemini"), "{}", e.message);
    let e = Input::read(&json!({ "prompt": "x" })).unwrap_err();
    assert_eq!((e.code.as_str(), e.path.as_str()), ("INVALID_INPUT", "messages"));
}

#[test]
fn ai_sdk_ui_messages_are_told_apart_from_gemini_and_explained() {
    // What useChat keeps: ids, roles user/assistant, parts (a tool part with its state).
    let ui = json!([
        { "id": "m1", "role": "user", "parts": [{ "type": "text", "text": "weather in Oslo?" }] },
        { "id": "m2", "role": "assistant", "parts": [{ "type": "tool-weather", "toolCallId": "t1", "state": "output-available", "input": { "city": "Oslo" }, "output": { "c": -3 } }] }
    ]);
    let e = estimate(&Input::read(&ui).unwrap(), &Options::default()).unwrap_err();
    assert_eq!((e.code.as_str(), e.path.as_str()), ("INVALID_INPUT", "messages[1]"));
    assert!(e.message.contains("UIMessage") && e.message.contains("convertToModelMessages"), "{}", e.message);
    let e = estimate(&Input::read(&ui).unwrap(), &options(json!({ "format": "ai-sdk" }))).unwrap_err();
    assert_eq!(e.path, "messages[0].content");
    assert!(e.message.contains("convertToModelMessages"), "{}", e.message);
    // Gemini contents keep reading as Gemini.
    let gemini =
        json!([{ "role": "user", "parts": [{ "text": "hi" }] }, { "role": "model", "parts": [{ "text": "hello" }] }]);
    assert_eq!(estimate(&Input::read(&gemini).unwrap(), &Options::default()).unwrap().format, "gemini");
}

#[test]
fn legacy_function_calls_pair_by_position() {
    let v = json!([
        { "role": "user", "content": "weather?" },
        { "role": "assistant", "content": null, "function_call": { "name": "get_weather", "arguments": "{\"city\":\"Oslo\"}" } },
        { "role": "function", "name": "get_weather", "content": "Oslo: -3°C, light snow, wind 12 km/h from the north, visibility 4 km; tomorrow -5°C and clear." },
        { "role": "assistant", "content": "It is -3°C in Oslo." }
    ]);
    assert_eq!(problems(&v), Vec::<String>::new());
    let p = prune(&Input::read(&v).unwrap(), &options(json!({ "protectTokens": 0, "minimumPruneTokens": 0 }))).unwrap();
    assert_eq!(p.report.pruned[0].tool_name, "get_weather");
}

/// A Responses run with the shell, local shell and apply-patch tools (each output long enough to clear).
fn responses_tool_run() -> Value {
    let long = "line of output\n".repeat(200);
    json!({ "input": [
        { "role": "user", "content": "Fix the build." },
        { "type": "shell_call", "call_id": "call_s1", "action": { "commands": ["make", "make test"] }, "status": "completed" },
        { "type": "shell_call_output", "call_id": "call_s1", "output": [
            { "stdout": long, "stderr": "", "outcome": { "type": "exit", "exit_code": 0 } },
            { "stdout": "", "stderr": long, "outcome": { "type": "exit", "exit_code": 2 } }
        ] },
        { "type": "local_shell_call", "id": "lsh_1", "call_id": "call_l1", "action": { "type": "exec", "command": ["ls"], "env": {} }, "status": "completed" },
        { "type": "local_shell_call_output", "id": "call_l1", "output": long },
        { "type": "apply_patch_call", "call_id": "call_p1", "operation": { "type": "update_file", "path": "src/a.c", "diff": "-a\n+b\n" }, "status": "completed" },
        { "type": "apply_patch_call_output", "call_id": "call_p1", "status": "completed", "output": long },
        { "role": "assistant", "content": "Fixed." }
    ] })
}

#[test]
fn shell_local_shell_and_apply_patch_outputs_pair_with_their_calls_and_are_pruned_in_their_shape() {
    let v = responses_tool_run();
    assert_eq!(problems(&v), Vec::<String>::new());
    let input = Input::read(&v).unwrap();
    let e = estimate(&input, &Options::default()).unwrap();
    assert_eq!(e.format, "openai-responses");
    // The shell's second command exited with 2: its output is an error's, which compaction keeps.
    let conv = ctxfold::reading::format::read(&input, None).unwrap();
    let failed: Vec<bool> = [2, 4, 6].iter().map(|&i| conv.messages[i].tool_results[0].is_error).collect();
    assert_eq!(failed, [true, false, false]);
    // A call whose output is missing is reported where it is, like a function call's.
    let mut orphaned = v.clone();
    orphaned["input"].as_array_mut().unwrap().remove(4);
    assert_eq!(problems(&orphaned).len(), 1, "{:?}", problems(&orphaned));
    let opts = options(json!({ "protectTokens": 0, "minimumPruneTokens": 0 }));
    let p = prune(&input, &opts).unwrap();
    assert_eq!(p.report.pruned.len(), 3, "all three outputs cleared");
    let out = output(&v, &p.slots);
    let items = &out["input"];
    // The shell's output is still one result per command, with its outcome.
    assert_eq!(
        items[2]["output"],
        json!([
            { "stdout": DEFAULT_PLACEHOLDER, "stderr": "", "outcome": { "type": "exit", "exit_code": 0 } },
            { "stdout": "", "stderr": "", "outcome": { "type": "exit", "exit_code": 2 } }
        ])
    );
    assert_eq!((&items[4]["output"], &items[4]["id"]), (&json!(DEFAULT_PLACEHOLDER), &json!("call_l1")));
    assert_eq!(items[6]["output"], json!(DEFAULT_PLACEHOLDER));
    assert_eq!(problems(&out), Vec::<String>::new(), "still valid");
    assert!(prune(&Input::read(&out).unwrap(), &opts).unwrap().report.pruned.is_empty(), "pruning twice is once");
}

#[test]
fn anthropic_server_tool_results_are_kept_and_mcp_results_cleared() {
    let long = "result text ".repeat(300);
    let v = json!({ "messages": [
        { "role": "user", "content": "Look it up." },
        { "role": "assistant", "content": [
            { "type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": { "query": "q" } },
            { "type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
                { "type": "web_search_result", "url": "https://example.com", "title": "Example", "encrypted_content": long, "page_age": null }
            ] },
            { "type": "mcp_tool_use", "id": "mcptoolu_1", "name": "fetch", "server_name": "docs", "input": {} },
            { "type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "is_error": false, "content": [{ "type": "text", "text": long }] },
            { "type": "text", "text": "Found it." }
        ] },
        { "role": "user", "content": "Thanks." }
    ] });
    assert_eq!(problems(&v), Vec::<String>::new());
    let opts = options(json!({ "protectTokens": 0, "minimumPruneTokens": 0 }));
    let p = prune(&Input::read(&v).unwrap(), &opts).unwrap();
    assert_eq!(p.report.pruned.len(), 1, "the MCP result only: a server tool's result is the API's own structure");
    let out = output(&v, &p.slots);
    assert_eq!(out["messages"][1]["content"][1], v["messages"][1]["content"][1]);
    assert_eq!(out["messages"][1]["content"][3]["content"], json!(DEFAULT_PLACEHOLDER));
    assert_eq!(problems(&out), Vec::<String>::new());
}

#[test]
fn a_missing_output_is_written_in_its_tool_s_own_output_type() {
    let v = responses_tool_run();
    for (at, kind) in [(2, "shell_call_output"), (4, "local_shell_call_output"), (6, "apply_patch_call_output")] {
        let mut broken = v.clone();
        broken["input"].as_array_mut().unwrap().remove(at);
        assert_eq!(problems(&broken).len(), 1, "{kind}");
        let r = repair(&Input::read(&broken).unwrap(), &Options::default()).unwrap();
        let out = output(&broken, &r.slots);
        assert_eq!(out["input"][at]["type"], kind);
        assert_eq!(problems(&out), Vec::<String>::new(), "{kind}");
    }
    // The next turn answers a pending shell call with a shell's output: one command's result.
    let pending = json!({ "input": [v["input"][0], v["input"][1]] });
    let turn = json!({ "toolResults": [{ "toolCallId": "call_s1", "content": "make: *** No rule", "isError": true }] });
    let t = ctxfold::prompt_cache::turn::assemble_turn(&Input::read(&pending).unwrap(), &turn, &json!({})).unwrap();
    assert_eq!(
        t.messages[0],
        json!({ "type": "shell_call_output", "call_id": "call_s1", "output": [
            { "stdout": "", "stderr": "make: *** No rule", "outcome": { "type": "exit", "exit_code": 1 } }
        ] })
    );
}

#[test]
fn search_results_count_as_their_text_and_a_function_response_s_media_as_media() {
    let words = "the result of a search ".repeat(400);
    let result = |content: Value| {
        json!({ "messages": [
            { "role": "user", "content": "Find it." },
            { "role": "assistant", "content": [{ "type": "tool_use", "id": "t1", "name": "kb", "input": {} }] },
            { "role": "user", "content": [{ "type": "tool_result", "tool_use_id": "t1", "content": content }] }
        ] })
    };
    let cost =
        |v: &Value| *estimate(&Input::read(v).unwrap(), &Options::default()).unwrap().per_message.last().unwrap();
    let plain = cost(&result(json!(words)));
    let searched = cost(&result(json!([{ "type": "search_result", "source": "https://kb.example/1", "title": "KB",
        "content": [{ "type": "text", "text": words }] }])));
    assert!(plain > 1000 && searched >= plain && searched <= plain + 20, "{searched} against {plain}");
    // Gemini: an image a function returns in the response's own parts costs what the image costs.
    let png = "iVBORw0KGgoAAAANSUhEUgAAAgAAAAIACAIAAAB7GkOtAAAADElEQVR4nGNgGAWDEwAAAeAAAcVkmkQAAAAASUVORK5CYII=";
    let gemini = |parts: Value| {
        json!({ "contents": [
            { "role": "user", "parts": [{ "text": "Take a screenshot." }] },
            { "role": "model", "parts": [{ "functionCall": { "name": "shot", "args": {} } }] },
            { "role": "user", "parts": [{ "functionResponse": { "name": "shot", "response": { "ok": true }, "parts": parts } }] }
        ] })
    };
    let without = cost(&gemini(json!([])));
    let with_image = cost(&gemini(json!([{ "inlineData": { "mimeType": "image/png", "data": png } }])));
    assert!(with_image >= without + 85, "{with_image} against {without}");
}

#[test]
fn a_text_file_costs_its_text_in_every_format_that_carries_one() {
    let words = "a line of the attached notes.\n".repeat(300);
    // The line is 30 bytes, a whole number of base64 groups: the file's base64 is the line's, repeated.
    let b64 = "YSBsaW5lIG9mIHRoZSBhdHRhY2hlZCBub3Rlcy4K".repeat(300);
    let url = format!("data:text/plain;base64,{b64}");
    let cost =
        |v: Value| *estimate(&Input::read(&v).unwrap(), &Options::default()).unwrap().per_message.first().unwrap();
    let as_text = cost(json!([{ "role": "user", "content": [{ "type": "text", "text": words }] }]));
    let files = [
        json!([{ "role": "user", "content": [{ "type": "file", "mediaType": "text/plain", "data": b64 }] }]),
        json!([{ "role": "user", "content": [{ "type": "file", "mimeType": "text/markdown", "data": url }] }]),
        json!([{ "role": "user", "content": [{ "type": "file", "mediaType": "text/plain", "data": format!("data:text/plain,{words}") }] }]),
        json!({ "contents": [{ "role": "user", "parts": [{ "inlineData": { "mimeType": "text/plain", "data": b64 } }] }] }),
        json!({ "input": [{ "role": "user", "content": [{ "type": "input_file", "filename": "notes.txt", "file_data": url }] }] }),
    ];
    for v in files {
        let c = cost(v.clone());
        assert!(c + 20 >= as_text && c <= as_text + 40, "{c} against {as_text} for {}", &v.to_string()[..80]);
    }
    // Not text: a PDF, a URL; each at an attachment's flat cost whatever its length.
    let file = |media: &str, data: &str| {
        cost(json!([{ "role": "user", "content": [{ "type": "file", "mediaType": media, "data": data }] }]))
    };
    let flat = file("application/pdf", "JVBERi0=");
    assert!(as_text > 2 * flat, "{as_text} against {flat}");
    assert_eq!(file("application/pdf", &b64), flat);
    assert_eq!(file("text/plain", "https://example.com/notes.txt"), flat);
}

#[test]
fn a_tool_search_pairs_with_its_output_which_stays() {
    let tools = json!([{ "type": "function", "name": "get_weather", "description": "Weather. ".repeat(200), "parameters": {} }]);
    let v = json!({ "input": [
        { "role": "user", "content": "Weather in Paris?" },
        { "type": "tool_search_call", "call_id": "ts_1", "execution": "client", "arguments": { "query": "weather" }, "status": "completed" },
        { "type": "tool_search_output", "call_id": "ts_1", "execution": "client", "status": "completed", "tools": tools },
        { "type": "tool_search_call", "id": "tsc_2", "call_id": null, "execution": "server", "arguments": { "query": "maps" }, "status": "completed" },
        { "type": "tool_search_output", "id": "tso_2", "call_id": null, "execution": "server", "status": "completed", "tools": [] },
        { "role": "assistant", "content": "Sunny." }
    ] });
    assert_eq!(problems(&v), Vec::<String>::new());
    let input = Input::read(&v).unwrap();
    let e = estimate(&input, &Options::default()).unwrap();
    assert!(e.per_message[2] > 300, "the tools found are read: {}", e.per_message[2]);
    let opts = options(json!({ "protectTokens": 0, "minimumPruneTokens": 0 }));
    assert!(prune(&input, &opts).unwrap().report.pruned.is_empty(), "the tools found are kept for later calls");
    // A client search left without its output is reported, and repair answers it with no tools found.
    let mut broken = v.clone();
    broken["input"].as_array_mut().unwrap().remove(2);
    assert_eq!(problems(&broken).len(), 1, "{:?}", problems(&broken));
    let r = repair(&Input::read(&broken).unwrap(), &Options::default()).unwrap();
    let out = output(&broken, &r.slots);
    assert_eq!(
        out["input"][2],
        json!({ "type": "tool_search_output", "call_id": "ts_1", "execution": "client", "status": "completed", "tools": [] })
    );
    assert_eq!(problems(&out), Vec::<String>::new());
}

#[test]
fn a_generated_image_costs_what_an_image_of_its_size_costs() {
    // A 512 × 512 PNG's header, and the rest of a large file's base64 after it.
    let png = "iVBORw0KGgoAAAANSUhEUgAAAgAAAAIACAIAAAB7GkOtAAAADElEQVR4nGNgGAWDEwAAAeAAAcVkmkQAAAAASUVORK5CYII=";
    let history = |image: String| {
        json!({ "input": [
            { "role": "user", "content": "Draw a cat." },
            { "type": "image_generation_call", "id": "ig_1", "status": "completed", "result": image },
            { "role": "user", "content": [{ "type": "input_image", "image_url": format!("data:image/png;base64,{image}") }] }
        ] })
    };
    let e = estimate(&Input::read(&history(format!("{png}{}", "A".repeat(400_000)))).unwrap(), &Options::default())
        .unwrap();
    let (generated, sent) = (e.per_message[1], e.per_message[2]);
    assert!(generated.abs_diff(sent) <= 40, "{generated} against {sent} for the same image sent by the user");
    assert!(generated < 1000, "{generated}");
}

#[test]
fn reasoning_a_provider_takes_back_and_a_document_of_blocks_cost_their_text() {
    let words = "a step of the reasoning ".repeat(300);
    let cost =
        |v: Value| *estimate(&Input::read(&v).unwrap(), &Options::default()).unwrap().per_message.last().unwrap();
    let chat = |extra: Value| {
        let mut message = json!({ "role": "assistant", "content": "The answer." });
        message.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        cost(json!([{ "role": "user", "content": "Why?" }, message]))
    };
    let bare = chat(json!({}));
    let as_text = cost(
        json!([{ "role": "user", "content": "Why?" }, { "role": "assistant", "content": format!("The answer.\n{words}") }]),
    );
    for extra in [
        json!({ "reasoning_content": words }),
        json!({ "reasoning": words }),
        json!({ "reasoning": words, "reasoning_details": [{ "type": "reasoning.text", "text": words }] }),
    ] {
        let c = chat(extra.clone());
        assert!(c > bare + 1000 && c <= as_text + 40, "{c} against {as_text} for {}", &extra.to_string()[..40]);
    }
    assert!(chat(json!({ "reasoning_content": null })) == bare);
    // An Anthropic document of content blocks is read as its blocks' text.
    let doc = cost(json!({ "messages": [{ "role": "user", "content": [
        { "type": "document", "source": { "type": "content", "content": [{ "type": "text", "text": words }] }, "citations": { "enabled": true } },
        { "type": "text", "text": "Summarize." }
    ] }] }));
    let text = cost(json!({ "messages": [{ "role": "user", "content": [
        { "type": "document", "source": { "type": "text", "media_type": "text/plain", "data": words } },
        { "type": "text", "text": "Summarize." }
    ] }] }));
    assert!(doc.abs_diff(text) <= 10, "{doc} against {text}");
}

#[test]
fn a_screenshot_in_an_ai_sdk_tool_result_costs_an_image() {
    let png = format!(
        "{}{}",
        "iVBORw0KGgoAAAANSUhEUgAAAgAAAAIACAIAAAB7GkOtAAAADElEQVR4nGNgGAWDEwAAAeAAAcVkmkQAAAAASUVORK5CYII=",
        "A".repeat(200_000)
    );
    let run = |output: Value| {
        json!([
            { "role": "user", "content": "Take a screenshot." },
            { "role": "assistant", "content": [{ "type": "tool-call", "toolCallId": "t1", "toolName": "computer", "input": {} }] },
            { "role": "tool", "content": [{ "type": "tool-result", "toolCallId": "t1", "toolName": "computer", "output": output }] }
        ])
    };
    let cost =
        |v: Value| *estimate(&Input::read(&v).unwrap(), &Options::default()).unwrap().per_message.last().unwrap();
    let text_only = cost(run(json!({ "type": "content", "value": [{ "type": "text", "text": "Done." }] })));
    let shot = cost(run(json!({ "type": "content", "value": [
        { "type": "text", "text": "Done." },
        { "type": "media", "data": png, "mediaType": "image/png" }
    ] })));
    let user_image =
        cost(json!([{ "role": "user", "content": [{ "type": "image", "image": png, "mediaType": "image/png" }] }]));
    assert!(shot > text_only && shot - text_only <= user_image, "{shot} - {text_only} against {user_image}");
    // Pruned, an older screenshot goes with the rest of its output; the newest stays, what the model
    // looks at next.
    let screenshot =
        json!({ "type": "content", "value": [{ "type": "media", "data": png, "mediaType": "image/png" }] });
    let mut v = run(screenshot.clone());
    let again = run(screenshot);
    v.as_array_mut().unwrap().extend(again.as_array().unwrap()[1..].iter().cloned());
    v[4]["content"][0]["toolCallId"] = json!("t2");
    v[3]["content"][0]["toolCallId"] = json!("t2");
    assert_eq!(problems(&v), Vec::<String>::new());
    let opts = options(json!({ "protectTokens": 0, "minimumPruneTokens": 0 }));
    let p = prune(&Input::read(&v).unwrap(), &opts).unwrap();
    let out = output(&v, &p.slots);
    assert_eq!(out[2]["content"][0]["output"], json!({ "type": "text", "value": DEFAULT_PLACEHOLDER }));
    assert_eq!(out[4], v[4]);
    let freed = p.report.tokens_before - p.report.tokens_after;
    assert!(freed + 20 >= u64::from(user_image) && freed <= u64::from(user_image), "{freed} against {user_image}");
    let per_message = estimate(&Input::read(&out).unwrap(), &Options::default()).unwrap().per_message;
    assert_eq!(p.report.tokens_after, per_message.iter().map(|&t| u64::from(t)).sum::<u64>());
}

#[test]
fn older_screenshots_are_pruned_with_their_results_in_anthropic_and_gemini() {
    let png = "iVBORw0KGgoAAAANSUhEUgAAAgAAAAIACAIAAAB7GkOtAAAADElEQVR4nGNgGAWDEwAAAeAAAcVkmkQAAAAASUVORK5CYII=";
    let shot = |id: &str| json!([{ "type": "image", "source": { "type": "base64", "media_type": "image/png", "data": png } }, { "type": "text", "text": id }]);
    let anthropic = json!({ "messages": [
        { "role": "user", "content": "Check the page." },
        { "role": "assistant", "content": [{ "type": "tool_use", "id": "t1", "name": "screenshot", "input": {} }] },
        { "role": "user", "content": [{ "type": "tool_result", "tool_use_id": "t1", "content": shot("first") }] },
        { "role": "assistant", "content": [{ "type": "tool_use", "id": "t2", "name": "screenshot", "input": {} }] },
        { "role": "user", "content": [{ "type": "tool_result", "tool_use_id": "t2", "content": shot("second") }] }
    ] });
    let response = |name: &str| {
        json!({ "functionResponse": { "name": name, "response": { "ok": true },
        "parts": [{ "inlineData": { "mimeType": "image/png", "data": png } }] } })
    };
    let gemini = json!({ "contents": [
        { "role": "user", "parts": [{ "text": "Check the page." }] },
        { "role": "model", "parts": [{ "functionCall": { "name": "shot_a", "args": {} } }] },
        { "role": "user", "parts": [response("shot_a")] },
        { "role": "model", "parts": [{ "functionCall": { "name": "shot_b", "args": {} } }] },
        { "role": "user", "parts": [response("shot_b")] }
    ] });
    let opts = options(json!({ "protectTokens": 0, "minimumPruneTokens": 0 }));
    for (v, key) in [(anthropic, "messages"), (gemini, "contents")] {
        let p = prune(&Input::read(&v).unwrap(), &opts).unwrap();
        assert_eq!(p.report.pruned.len(), 1, "{key}: the older screenshot only");
        assert!(p.report.pruned[0].tokens_before > 200, "{key}: {:?}", p.report.pruned);
        let out = output(&v, &p.slots);
        assert_eq!(out[key][4], v[key][4], "{key}: the newest stays as it was");
        assert!(!out[key][2].to_string().contains(png), "{key}: no image left in the older result");
        let per_message = estimate(&Input::read(&out).unwrap(), &Options::default()).unwrap().per_message;
        assert_eq!(p.report.tokens_after, per_message.iter().map(|&t| u64::from(t)).sum::<u64>(), "{key}");
        assert_eq!(problems(&out), Vec::<String>::new(), "{key}");
    }
}
