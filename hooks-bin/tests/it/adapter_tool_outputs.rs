//! A rewrite of a tool's output, for every output shape of the agents' built-in tools: written
//! in a shape the agent accepts, or withheld with a notice in such a shape; never an answer the
//! agent ignores (which would send the model the original).

use crate::common;

use serde_json::{Value, json};

use common::{Call, call, canonical_options, failing_options, input, workdir};
use hookwright::prelude::*;
use hookwright_cli::agents::claude::Claude;
use hookwright_cli::agents::codex::Codex;
use hookwright_cli::call::AdapterOptions;

const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4AWNgAAAAAgABc3UBGAAAAABJRU5ErkJggg==";

fn post_tool_use(tool: &str, response: Value) -> (tempfile::TempDir, Vec<u8>) {
    let dir = workdir();
    let bytes = input(
        "PostToolUse",
        dir.path(),
        json!({"tool_name": tool, "tool_input": {}, "tool_response": response, "tool_use_id": "t1"}),
    );
    (dir, bytes)
}

fn claude(tool: &str, response: Value, opts: &AdapterOptions) -> Call {
    let (_dir, bytes) = post_tool_use(tool, response);
    call(&Claude, "PostToolUse", &bytes, opts)
}

/// Options serving one `tool_result` hook that returns `rewrite(content)`.
fn rewriting(rewrite: fn(&[Content]) -> Vec<Content>) -> AdapterOptions {
    AdapterOptions::with_hooks(move |cwd| {
        let mut api = HookApi::new("test-rewriter", cwd);
        api.on(
            move |e: &ToolResultEvent, _c: &HookContext| ToolResultEventResult {
                content: Some(rewrite(&e.content)),
                ..Default::default()
            },
        );
        vec![api.finish()]
    })
}

/// A hook that adds a caption after the content (as a hook file's replacement text does when the
/// output has no text).
fn captioned(content: &[Content]) -> Vec<Content> {
    let mut out = content.to_vec();
    out.push(Content::text("a caption"));
    out
}

/// A hook that replaces every chunk that is not text by a line of text.
fn text_only(content: &[Content]) -> Vec<Content> {
    content
        .iter()
        .map(|c| match c {
            Content::Text(_) => c.clone(),
            _ => Content::text("[binary left out]"),
        })
        .collect()
}

fn updated(c: &Call) -> Value {
    assert_eq!(c.code, 0, "{c:?}");
    c.json()["hookSpecificOutput"]["updatedToolOutput"].clone()
}

fn notebook() -> Value {
    json!({"type": "notebook", "file": {"filePath": "/p/n.ipynb", "cells": [
        {"cellType": "code", "source": "print('API_KEY=sk-1')\n", "execution_count": 1, "cell_id": "c1", "language": "python",
         "outputs": [{"output_type": "stream", "text": "API_KEY=sk-1\n"},
                     {"output_type": "display_data", "text": "<Figure>", "image": {"image_data": PNG, "media_type": "image/png"}}]},
        {"cellType": "markdown", "source": "# notes", "cell_id": "c2"},
    ]}})
}

#[test]
fn a_notebook_read_is_rewritten_cell_by_cell_and_keeps_its_images() {
    let (opts, log) = canonical_options();
    let out = updated(&claude("Read", notebook(), &opts));
    let mut expected = notebook();
    expected["file"]["cells"][0]["source"] = json!("print('API_KEY=[REDACTED]\n");
    expected["file"]["cells"][0]["outputs"][0]["text"] = json!("API_KEY=[REDACTED]\n");
    assert_eq!(
        out, expected,
        "the same notebook, its text redacted, its image kept"
    );
    let seen = log.lock().unwrap();
    let kinds: Vec<&str> = seen.tool_results[0]
        .content
        .iter()
        .map(|c| match c {
            Content::Text(_) => "text",
            Content::Image(_) => "image",
            Content::Other(_) => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        ["text", "text", "text", "image", "text"],
        "hooks see each source, output text and image"
    );
}

#[test]
fn a_notebook_rewrite_that_drops_an_image_becomes_a_text_read() {
    let out = updated(&claude("Read", notebook(), &rewriting(text_only)));
    assert_eq!(out["type"], "text");
    assert_eq!(out["file"]["filePath"], "/p/n.ipynb");
    let text = out["file"]["content"].as_str().unwrap();
    assert!(
        text.contains("[binary left out]") && !text.contains(PNG),
        "{text}"
    );
}

#[test]
fn new_text_next_to_an_image_read_is_withheld_in_a_shape_claude_accepts() {
    let response =
        json!({"type": "image", "file": {"base64": PNG, "type": "image/png", "originalSize": 70}});
    let c = claude("Read", response, &rewriting(captioned));
    let out = updated(&c);
    let notice = "[tool output withheld: a hook changed it and Claude Code's Read image output cannot carry the change]";
    assert_eq!(
        out,
        json!({"type": "text", "file": {"filePath": "", "content": notice, "numLines": 1, "startLine": 1, "totalLines": 1}})
    );
    assert_eq!(c.json()["systemMessage"], notice, "the user is told");
    assert!(!c.stdout.contains(PNG));
}

#[test]
fn an_image_read_a_hook_leaves_alone_gets_no_answer() {
    let response =
        json!({"type": "image", "file": {"base64": PNG, "type": "image/png", "originalSize": 70}});
    let (opts, log) = canonical_options();
    let c = claude("Read", response, &opts);
    assert_eq!((c.code, c.stdout.as_str()), (0, ""));
    let seen = log.lock().unwrap();
    assert!(
        matches!(&seen.tool_results[0].content[..], [Content::Image(i)] if i.data == PNG && i.mime_type == "image/png"),
        "hooks see the image: {:?}",
        seen.tool_results[0].content
    );
}

#[test]
fn an_image_a_hook_turns_into_a_type_claude_rejects_is_withheld() {
    let response =
        json!({"type": "image", "file": {"base64": PNG, "type": "image/png", "originalSize": 70}});
    let to_bmp: fn(&[Content]) -> Vec<Content> = |content| {
        content
            .iter()
            .map(|c| match c {
                Content::Image(i) => Content::Image(ImageContent {
                    mime_type: "image/bmp".into(),
                    ..i.clone()
                }),
                other => other.clone(),
            })
            .collect()
    };
    let out = updated(&claude("Read", response, &rewriting(to_bmp)));
    assert_eq!(out["type"], "text");
    assert!(
        out["file"]["content"]
            .as_str()
            .unwrap()
            .starts_with("[tool output withheld:")
    );
}

fn pdf() -> Value {
    json!({"type": "pdf", "file": {"filePath": "/p/d.pdf", "base64": "JVBERi0xLjQK", "originalSize": 9}})
}

#[test]
fn a_pdf_read_is_a_document_chunk_and_text_in_its_place_is_sent_as_a_text_read() {
    let (opts, log) = canonical_options();
    let c = claude("Read", pdf(), &opts);
    assert_eq!((c.code, c.stdout.as_str()), (0, ""), "unchanged: no answer");
    assert_eq!(
        log.lock().unwrap().tool_results[0].content,
        [Content::Other(json!({
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0xLjQK"},
        }))]
    );
    let out = updated(&claude("Read", pdf(), &rewriting(text_only)));
    assert_eq!(
        out,
        json!({"type": "text", "file": {"filePath": "/p/d.pdf", "content": "[binary left out]", "numLines": 1, "startLine": 1, "totalLines": 1}})
    );
}

#[test]
fn a_changed_pdf_is_withheld_since_its_bytes_cannot_be_sent() {
    let c = claude("Read", pdf(), &rewriting(captioned));
    let out = updated(&c);
    assert_eq!(out["type"], "text");
    assert_eq!(
        out["file"]["content"],
        "[tool output withheld: a hook changed it and Claude Code's Read pdf output cannot carry the change]"
    );
    assert!(!c.stdout.contains("JVBERi0xLjQK"));
}

#[test]
fn a_pdf_read_as_pages_is_rewritten_page_by_page() {
    let response = json!({"type": "parts", "file": {"filePath": "/p/d.pdf", "originalSize": 9, "count": 1, "outputDir": "/t"},
        "firstPage": 1, "pages": [{"base64": PNG, "mediaType": "image/png", "text": "API_KEY=sk-2"}]});
    let (opts, _log) = canonical_options();
    let out = updated(&claude("Read", response.clone(), &opts));
    let mut expected = response;
    expected["pages"][0]["text"] = json!("API_KEY=[REDACTED]");
    assert_eq!(out, expected);
}

#[test]
fn a_failing_hook_withholds_a_notebook_read_in_a_shape_claude_accepts() {
    let c = claude("Read", notebook(), &failing_options(true));
    assert_eq!(c.code, 2, "{c:?}");
    let out = &c.json()["hookSpecificOutput"]["updatedToolOutput"];
    assert_eq!(out["type"], "text");
    let text = out["file"]["content"].as_str().unwrap();
    assert!(
        text.starts_with("[tool output withheld:") && text.contains("redactor exploded"),
        "{text}"
    );
    assert!(!c.stdout.contains("sk-1"));
}

#[test]
fn an_output_of_unknown_shape_is_never_answered_with_a_block_claude_ignores() {
    let (opts, _log) = canonical_options();
    let c = claude(
        "TodoWrite",
        json!({"oldTodos": [], "newTodos": [{"content": "rotate API_KEY=zzz", "status": "pending"}]}),
        &opts,
    );
    assert_eq!(c.code, 0, "{c:?}");
    let json = c.json();
    assert!(
        json.get("decision").is_none(),
        "a block Claude ignores: {json}"
    );
    assert_eq!(json["continue"], false, "{json}");
    assert_eq!(
        json["stopReason"],
        "[tool output withheld: a hook changed it and Claude Code's TodoWrite output cannot carry the change]"
    );
    assert!(!c.stdout.contains("zzz"));
}

#[test]
fn edit_and_write_outputs_show_hooks_no_file_contents_to_change() {
    let (opts, log) = canonical_options();
    let edit = json!({"filePath": "/p/a.env", "oldString": "x", "newString": "y",
        "originalFile": "x\nAPI_KEY=sk-10\n", "structuredPatch": [], "userModified": false, "replaceAll": false});
    let c = claude("Edit", edit.clone(), &opts);
    assert_eq!(
        (c.code, c.stdout.as_str()),
        (0, ""),
        "nothing to redact: {c:?}"
    );
    let seen = log.lock().unwrap().tool_results[0].clone();
    assert!(seen.content.is_empty(), "{:?}", seen.content);
    assert_eq!(
        seen.details.as_ref(),
        Some(&edit),
        "the output is in details"
    );
    let c = claude(
        "Write",
        json!({"type": "create", "filePath": "/x", "content": "k"}),
        &rewriting(captioned),
    );
    assert_eq!(c.json()["continue"], false, "{c:?}");
}

#[test]
fn grep_output_is_rewritten_in_its_mode() {
    let (opts, _log) = canonical_options();
    let content = json!({"mode": "content", "numFiles": 0, "filenames": [], "content": "a.env:2:API_KEY=sk-3", "numLines": 1});
    let out = updated(&claude("Grep", content, &opts));
    assert_eq!(
        out,
        json!({"mode": "content", "numFiles": 0, "filenames": [], "content": "a.env:2:API_KEY=[REDACTED]", "numLines": 1})
    );
    let files = json!({"mode": "files_with_matches", "numFiles": 2, "filenames": ["API_KEY=sk-4.txt", "b.txt"]});
    let out = updated(&claude("Grep", files, &opts));
    assert_eq!(out["filenames"], json!(["API_KEY=[REDACTED]", "b.txt"]));
    let glob =
        json!({"durationMs": 1, "numFiles": 1, "filenames": ["API_KEY=sk-5"], "truncated": false});
    let out = updated(&claude("Glob", glob, &opts));
    assert_eq!(out["filenames"], json!(["API_KEY=[REDACTED]"]));
}

#[test]
fn a_grep_rewrite_that_is_no_longer_one_chunk_is_sent_as_content() {
    let two: fn(&[Content]) -> Vec<Content> = |_| vec![Content::text("a"), Content::text("b")];
    let files = json!({"mode": "files_with_matches", "numFiles": 1, "filenames": ["a.txt"]});
    let out = updated(&claude("Grep", files, &rewriting(two)));
    assert_eq!(
        out,
        json!({"mode": "content", "numFiles": 0, "filenames": [], "content": "a\nb", "numLines": 2})
    );
}

#[test]
fn bash_image_output_stays_an_image_when_only_stderr_changes() {
    let response = json!({"stdout": format!("data:image/png;base64,{PNG}"), "stderr": "API_KEY=sk-6",
        "interrupted": false, "isImage": true});
    let (opts, log) = canonical_options();
    let out = updated(&claude("Bash", response.clone(), &opts));
    let mut expected = response;
    expected["stderr"] = json!("API_KEY=[REDACTED]");
    assert_eq!(out, expected);
    assert!(matches!(
        log.lock().unwrap().tool_results[0].content[0],
        Content::Image(_)
    ));
}

#[test]
fn bash_text_in_place_of_an_image_is_plain_output() {
    let response = json!({"stdout": format!("data:image/png;base64,{PNG}"), "stderr": "",
        "interrupted": false, "isImage": true, "persistedOutputPath": "/t/o.txt", "persistedOutputSize": 9});
    let out = updated(&claude("Bash", response, &rewriting(text_only)));
    assert_eq!(
        out,
        json!({"stdout": "[binary left out]", "stderr": "", "interrupted": false, "isImage": false})
    );
}

#[test]
fn bash_structured_content_is_rewritten_in_place() {
    let response = json!({"stdout": "", "stderr": "", "interrupted": false,
        "structuredContent": [{"type": "text", "text": "API_KEY=sk-7"}]});
    let (opts, _log) = canonical_options();
    let out = updated(&claude("Bash", response, &opts));
    assert_eq!(out["structuredContent"][0]["text"], "API_KEY=[REDACTED]");
}

#[test]
fn web_fetch_and_mcp_results_are_rewritten_in_their_shape() {
    let (opts, _log) = canonical_options();
    let fetched = json!({"bytes": 10, "code": 200, "codeText": "OK", "result": "API_KEY=sk-8", "durationMs": 3, "url": "https://e.x"});
    assert_eq!(
        updated(&claude("WebFetch", fetched, &opts))["result"],
        "API_KEY=[REDACTED]"
    );
    let mcp = json!([{"type": "text", "text": "API_KEY=sk-9"}]);
    assert_eq!(
        updated(&claude("mcp__fs__read", mcp, &opts)),
        json!([{"type": "text", "text": "API_KEY=[REDACTED]"}])
    );
}

fn codex(tool: &str, response: Value, opts: &AdapterOptions) -> Call {
    let (_dir, bytes) = post_tool_use(tool, response);
    call(&Codex, "PostToolUse", &bytes, opts)
}

#[test]
fn codex_view_image_is_an_image_chunk_and_text_cannot_carry_it() {
    let response = json!([{"type": "input_image", "image_url": format!("data:image/png;base64,{PNG}"), "detail": "high"}]);
    let (opts, log) = canonical_options();
    let c = codex("view_image", response.clone(), &opts);
    assert_eq!((c.code, c.stdout.as_str()), (0, ""), "unchanged: no answer");
    assert!(matches!(
        &log.lock().unwrap().tool_results[0].content[..],
        [Content::Image(i)] if i.mime_type == "image/png"
    ));
    let c = codex("view_image", response, &rewriting(captioned));
    assert_eq!(c.code, 0, "{c:?}");
    let json = c.json();
    assert_eq!(json["decision"], "block");
    assert_eq!(
        json["reason"],
        "a caption\n[1 non-text part(s) of the tool output withheld: the answer to the agent carries text only]"
    );
}
