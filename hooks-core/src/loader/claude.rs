//! The Claude Code hook protocol as shell-style hook files see it (../shared/INTEROP.md): the
//! JSON a `PreToolUse`/`PostToolUse` hook reads on stdin, and how its exit status and output
//! become a decision. Pure functions; [`super::shell`] runs the processes.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::events::{Content, ToolCallEvent, ToolCallEventResult, ToolResultEvent};
use crate::tool_names::ToolNames;

/// The most bytes of stdout, and of stderr, kept from a hook process: 1 MiB.
pub const OUTPUT_LIMIT: usize = 1024 * 1024;

/// Claude Code's tool names that differ from ours: `Bash`/`bash`, `Read`/`read`,
/// `Write`/`write`, `Edit`/`edit`, `Grep`/`grep`, `Glob`/`find`. The loader spells our tool
/// names Claude's way for hook files ([`ToolNames::theirs`]); the Claude Code adapter reads
/// Claude's calls with the same table ([`ToolNames::ours`]).
pub const CLAUDE_TOOL_NAMES: ToolNames = ToolNames::new(&[
    ("Bash", "bash"),
    ("Read", "read"),
    ("Write", "write"),
    ("Edit", "edit"),
    ("Grep", "grep"),
    ("Glob", "find"),
]);

/// Whether a hook file for `hook_tool` (`*`, our name, or Claude's name) applies to a call of
/// our tool `tool`.
#[must_use]
pub fn tool_matches(hook_tool: &str, tool: &str) -> bool {
    hook_tool == "*" || hook_tool == tool || hook_tool == CLAUDE_TOOL_NAMES.theirs(tool)
}

/// The session fields of every hook input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookSession {
    /// The session id.
    pub session_id: String,
    /// The session file (`null` for a session kept in memory).
    pub transcript_path: Option<PathBuf>,
    /// The working directory.
    pub cwd: PathBuf,
}

fn common_input(event_name: &str, tool: &str, session: &HookSession) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("session_id".into(), session.session_id.clone().into());
    m.insert(
        "transcript_path".into(),
        session
            .transcript_path
            .as_ref()
            .map_or(Value::Null, |p| p.to_string_lossy().into_owned().into()),
    );
    m.insert(
        "cwd".into(),
        session.cwd.to_string_lossy().into_owned().into(),
    );
    m.insert("hook_event_name".into(), event_name.into());
    m.insert("tool_name".into(), CLAUDE_TOOL_NAMES.theirs(tool).into());
    m
}

/// The `PreToolUse` stdin object for `event`: `session_id`, `transcript_path`, `cwd`,
/// `hook_event_name`, `tool_name` (Claude's spelling), `tool_input`, `tool_use_id`.
#[must_use]
pub fn pre_tool_use_input(event: &ToolCallEvent, session: &HookSession) -> Value {
    let mut m = common_input("PreToolUse", &event.tool_name, session);
    m.insert("tool_input".into(), Value::from(event.input.clone()));
    m.insert("tool_use_id".into(), event.tool_call_id.clone().into());
    Value::Object(m)
}

/// The `PostToolUse` stdin object for `event`: the `PreToolUse` fields plus `tool_response`,
/// which holds `content` (our content chunks), `text` (their text joined with newlines) and
/// `details` when present; for `Bash` also Claude's shape (`stdout` = the text, `stderr` = `""`,
/// `interrupted` = `false`, `isImage` = `false`), so existing scripts reading `stdout` work.
#[must_use]
pub fn post_tool_use_input(event: &ToolResultEvent, session: &HookSession) -> Value {
    let mut m = common_input("PostToolUse", &event.tool_name, session);
    m.insert("tool_input".into(), Value::from(event.input.clone()));
    let text = event
        .content
        .iter()
        .filter_map(Content::as_text)
        .collect::<Vec<_>>()
        .join("\n");
    let mut response = Map::new();
    response.insert("content".into(), json!(event.content));
    if let Some(details) = event.details.as_ref().filter(|d| !d.is_null()) {
        response.insert("details".into(), details.clone());
    }
    if CLAUDE_TOOL_NAMES.theirs(&event.tool_name) == "Bash" {
        response.insert("stdout".into(), text.clone().into());
        response.insert("stderr".into(), "".into());
        response.insert("interrupted".into(), false.into());
        response.insert("isImage".into(), false.into());
    }
    response.insert("text".into(), text.into());
    m.insert("tool_response".into(), Value::Object(response));
    m.insert("tool_use_id".into(), event.tool_call_id.clone().into());
    Value::Object(m)
}

/// How a hook process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookExit {
    /// It exited with this status.
    Code(i32),
    /// A signal killed it.
    Signal(i32),
    /// It ran past the limit and was killed.
    TimedOut(Duration),
}

/// What a hook process produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookRun {
    /// How it ended.
    pub exit: HookExit,
    /// Its stdout (at most [`OUTPUT_LIMIT`] bytes).
    pub stdout: Vec<u8>,
    /// Its stderr (at most [`OUTPUT_LIMIT`] bytes).
    pub stderr: Vec<u8>,
    /// Whether stdout went past [`OUTPUT_LIMIT`] (the rest was discarded).
    pub stdout_truncated: bool,
}

impl HookRun {
    /// A run that exited with `code`.
    #[must_use]
    pub fn exited(code: i32, stdout: &str, stderr: &str) -> Self {
        HookRun {
            exit: HookExit::Code(code),
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            stdout_truncated: false,
        }
    }

    fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).trim().to_owned()
    }
}

/// The stdout of a successful run as JSON: `Ok(None)` when it is empty or plain text (which
/// Claude Code ignores on tool events), `Err` when it starts with `{` but does not parse.
fn parse_json_output(run: &HookRun, file: &Path) -> Result<Option<Map<String, Value>>, String> {
    let file = file.display();
    if run.stdout_truncated {
        return Err(format!(
            "hook {file} wrote more than {OUTPUT_LIMIT} bytes to stdout"
        ));
    }
    let text = String::from_utf8_lossy(&run.stdout);
    let text = text.trim();
    if !text.starts_with('{') {
        return Ok(None);
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(Some(m)),
        Ok(_) => Err(format!("hook {file} printed JSON that is not an object")),
        Err(e) => Err(format!("hook {file} printed invalid JSON: {e}")),
    }
}

/// The error for a run that did not exit 0 (or 2 on `PreToolUse`).
fn failure(run: &HookRun, file: &Path) -> String {
    let file = file.display();
    let stderr = run.stderr_text();
    let detail = if stderr.is_empty() {
        String::new()
    } else {
        format!(": {stderr}")
    };
    match run.exit {
        HookExit::Code(code) => format!("hook {file} failed with exit code {code}{detail}"),
        HookExit::Signal(signal) => format!("hook {file} was killed by signal {signal}{detail}"),
        HookExit::TimedOut(limit) => {
            format!("hook {file} timed out after {} ms", limit.as_millis())
        }
    }
}

fn non_empty_str(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// The decision of a `PreToolUse` hook file:
///
/// - exit 0, empty or plain-text stdout: no opinion (`Ok(None)`);
/// - exit 0, JSON with `hookSpecificOutput.permissionDecision: "deny"` (reason
///   `permissionDecisionReason`) or top-level `decision: "block"` (reason `reason`): a block;
///   other JSON (`allow`, `ask`, ...): no opinion;
/// - exit 2: a block whose reason is the trimmed stderr, or a sentence naming the file;
/// - any other exit, a signal, a timeout, invalid JSON, stdout past the limit: `Err` with a
///   message naming the file and the cause (a handler error, which blocks the tool).
///
/// # Errors
/// See above.
pub fn decide_pre_tool_use(
    run: &HookRun,
    file: &Path,
) -> Result<Option<ToolCallEventResult>, String> {
    let default_reason = || format!("Blocked by hook {}", file.display());
    match run.exit {
        HookExit::Code(0) => {}
        HookExit::Code(2) => {
            let stderr = run.stderr_text();
            let reason = if stderr.is_empty() {
                format!("{} (exit code 2)", default_reason())
            } else {
                stderr
            };
            return Ok(Some(ToolCallEventResult::block(reason)));
        }
        _ => return Err(failure(run, file)),
    }
    let Some(output) = parse_json_output(run, file)? else {
        return Ok(None);
    };
    let specific = output.get("hookSpecificOutput").and_then(Value::as_object);
    if let Some(specific) = specific
        && specific.get("permissionDecision").and_then(Value::as_str) == Some("deny")
    {
        let reason = non_empty_str(specific.get("permissionDecisionReason"))
            .or_else(|| non_empty_str(output.get("reason")))
            .unwrap_or_else(default_reason);
        return Ok(Some(ToolCallEventResult::block(reason)));
    }
    if output.get("decision").and_then(Value::as_str) == Some("block") {
        let reason = non_empty_str(output.get("reason")).unwrap_or_else(default_reason);
        return Ok(Some(ToolCallEventResult::block(reason)));
    }
    Ok(None)
}

/// The decision of a `PostToolUse` hook file: the replacement text from
/// `hookSpecificOutput.updatedToolOutput` (a string, or an object with a string `text` or
/// `stdout`), or `Ok(None)` when the hook printed nothing, plain text, or JSON without it.
///
/// # Errors
/// A non-zero exit (2 included: the tool already ran), a signal, a timeout, invalid JSON, an
/// `updatedToolOutput` of another shape, stdout past the limit; the message names the file.
pub fn decide_post_tool_use(run: &HookRun, file: &Path) -> Result<Option<String>, String> {
    if run.exit != HookExit::Code(0) {
        return Err(failure(run, file));
    }
    let Some(output) = parse_json_output(run, file)? else {
        return Ok(None);
    };
    let updated = output
        .get("hookSpecificOutput")
        .and_then(Value::as_object)
        .and_then(|s| s.get("updatedToolOutput"));
    match updated {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(Value::Object(o)) => match o.get("text").or_else(|| o.get("stdout")) {
            Some(Value::String(text)) => Ok(Some(text.clone())),
            _ => Err(format!(
                "hook {}: updatedToolOutput has neither a string `text` nor a string `stdout`",
                file.display()
            )),
        },
        Some(_) => Err(format!(
            "hook {}: updatedToolOutput must be a string or an object",
            file.display()
        )),
    }
}

/// `content` with its text replaced by `text`: the first text chunk becomes `text`, later text
/// chunks are dropped, other chunks (images) stay; without a text chunk, `text` is appended.
#[must_use]
pub fn replace_text_content(content: &[Content], text: &str) -> Vec<Content> {
    let mut out = Vec::with_capacity(content.len().max(1));
    let mut placed = false;
    for chunk in content {
        match chunk {
            Content::Text(_) if !placed => {
                out.push(Content::text(text));
                placed = true;
            }
            Content::Text(_) => {}
            other => out.push(other.clone()),
        }
    }
    if !placed {
        out.push(Content::text(text));
    }
    out
}

#[cfg(test)]
#[path = "claude_tests.rs"]
mod tests;
