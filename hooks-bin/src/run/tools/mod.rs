//! The real tools `hooks run` offers: `bash`, `read`, `write`, `edit`, `ls`, `grep`, `find`.
//!
//! Every tool works inside one [`Workspace`] (the `--cwd` of the run): a path that resolves
//! outside it (through `..`, an absolute path or a symbolic link) is rejected with an error that
//! names the path and the workspace. Files are then opened through a handle of the workspace's
//! root, beneath it, so a directory swapped for a link to the outside after the check (by a
//! process an earlier `bash` call left running) fails the call with that error instead of
//! carrying it out there. `read`, `write` and `edit` refuse what is not a regular file (a FIFO
//! or a device could block them forever), checked on the opened file; `write` and `edit`
//! rewrite the file in place. Inputs are checked against a typed
//! schema ([`BuiltinTool::check_input`]) so a script can be validated before any tool runs.
//! File IO runs on Tokio's blocking pool, never on the runtime thread.
//!
//! Input fields (camelCase, unknown fields rejected):
//!
//! | tool | input |
//! | --- | --- |
//! | `bash` | `command`, `timeout?` (seconds, at least `1e-9` and below `2^64`; default 120) |
//! | `read` | `path`, `offset?` (first line, 1-based), `limit?` (lines) |
//! | `write` | `path`, `content` |
//! | `edit` | `path`, `oldText`, `newText` (exact, unique match) |
//! | `ls` | `path?`, `limit?` |
//! | `grep` | `pattern`, `path?`, `glob?`, `ignoreCase?`, `literal?`, `context?`, `limit?` |
//! | `find` | `pattern` (glob), `path?`, `limit?` |

mod bash;
mod edit;
mod files;
mod read;
mod search;
mod workspace;

use std::sync::Arc;

use hookwright::events::ToolInput;
use hookwright::tool::UpdateCallback;
use hookwright::{Tool, ToolError, ToolOutput};
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use workspace::Workspace;

/// Output caps shared by the tools: at most this many lines ...
pub const MAX_LINES: usize = 2000;
/// ... and at most this many bytes of text per result.
pub const MAX_BYTES: usize = 50 * 1024;

/// The names of the built-in tools, in the order `hooks run --help` lists them.
pub const TOOL_NAMES: [&str; 7] = ["bash", "read", "write", "edit", "ls", "grep", "find"];

/// One built-in tool bound to a workspace.
#[derive(Debug, Clone)]
pub struct BuiltinTool {
    kind: Kind,
    workspace: Arc<Workspace>,
    parameters: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bash,
    Read,
    Write,
    Edit,
    Ls,
    Grep,
    Find,
}

impl Kind {
    fn from_name(name: &str) -> Option<Kind> {
        Some(match name {
            "bash" => Kind::Bash,
            "read" => Kind::Read,
            "write" => Kind::Write,
            "edit" => Kind::Edit,
            "ls" => Kind::Ls,
            "grep" => Kind::Grep,
            "find" => Kind::Find,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Bash => "bash",
            Kind::Read => "read",
            Kind::Write => "write",
            Kind::Edit => "edit",
            Kind::Ls => "ls",
            Kind::Grep => "grep",
            Kind::Find => "find",
        }
    }

    fn description(self) -> &'static str {
        match self {
            Kind::Bash => "Run a command with `bash -c` in the working directory.",
            Kind::Read => "Read a text file.",
            Kind::Write => "Create or overwrite a file.",
            Kind::Edit => "Replace one exact, unique occurrence of `oldText` with `newText`.",
            Kind::Ls => "List a directory.",
            Kind::Grep => "Search file contents with a regular expression.",
            Kind::Find => "Find files by glob pattern.",
        }
    }
}

impl BuiltinTool {
    /// The tool `name` working in `workspace`, or `None` for an unknown name.
    #[must_use]
    pub fn new(name: &str, workspace: Arc<Workspace>) -> Option<Self> {
        let kind = Kind::from_name(name)?;
        Some(BuiltinTool {
            kind,
            workspace,
            parameters: schema(kind),
        })
    }

    /// Checks `input` against the tool's schema without running anything.
    ///
    /// # Errors
    /// What is wrong with the input (a missing field, a wrong type, an unknown field).
    pub fn check_input(name: &str, input: &ToolInput) -> Result<(), String> {
        let Some(kind) = Kind::from_name(name) else {
            return Err(format!(
                "unknown tool `{name}` (known tools: {})",
                TOOL_NAMES.join(", ")
            ));
        };
        match kind {
            Kind::Bash => parse::<bash::BashInput>(input).map(drop),
            Kind::Read => parse::<read::ReadInput>(input).map(drop),
            Kind::Write => parse::<files::WriteInput>(input).map(drop),
            Kind::Edit => parse::<edit::EditInput>(input).map(drop),
            Kind::Ls => parse::<files::LsInput>(input).map(drop),
            Kind::Grep => parse::<search::GrepInput>(input).and_then(|i| i.check()),
            Kind::Find => parse::<search::FindInput>(input).and_then(|i| i.check()),
        }
    }
}

/// Deserializes a tool input, with an error text naming the problem.
fn parse<T: DeserializeOwned>(input: &ToolInput) -> Result<T, String> {
    serde_json::from_value(Value::from(input.clone())).map_err(|e| e.to_string())
}

fn bad_input(e: String) -> ToolError {
    ToolError::failed(format!("invalid input: {e}"))
}

impl Tool for BuiltinTool {
    fn name(&self) -> &str {
        self.kind.name()
    }

    fn description(&self) -> &str {
        self.kind.description()
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    async fn execute(
        &self,
        _call_id: &str,
        input: &ToolInput,
        cancel: &CancellationToken,
        _on_update: Option<&UpdateCallback>,
    ) -> Result<ToolOutput, ToolError> {
        // A call cancelled before it starts changes nothing (the `Tool` contract).
        if cancel.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        let ws = Arc::clone(&self.workspace);
        let token = cancel.clone();
        // Tools that only read are abandoned at a cancel; `write` and `edit` finish their change.
        let reading = Some(cancel);
        match self.kind {
            Kind::Bash => bash::run(&ws, parse(input).map_err(bad_input)?, cancel).await,
            Kind::Read => off_thread(input, reading, move |i| read::read(&ws, i, &token)).await,
            Kind::Write => off_thread(input, None, move |i| files::write(&ws, i)).await,
            Kind::Edit => off_thread(input, None, move |i| edit::edit(&ws, i)).await,
            Kind::Ls => off_thread(input, reading, move |i| files::ls(&ws, i)).await,
            Kind::Grep => off_thread(input, reading, move |i| search::grep(&ws, i, &token)).await,
            Kind::Find => off_thread(input, reading, move |i| search::find(&ws, i, &token)).await,
        }
    }
}

/// Parses `input` and runs a file tool on it on Tokio's blocking thread pool, so slow file IO
/// never stalls the runtime thread (which also handles Ctrl-C). When `cancel` is given and
/// fires first, the call ends as [`ToolError::Cancelled`] at once; the abandoned work's result
/// is dropped.
async fn off_thread<I, F>(
    input: &ToolInput,
    cancel: Option<&CancellationToken>,
    work: F,
) -> Result<ToolOutput, ToolError>
where
    I: DeserializeOwned + Send + 'static,
    F: FnOnce(I) -> Result<ToolOutput, ToolError> + Send + 'static,
{
    let input: I = parse(input).map_err(bad_input)?;
    let cancelled = async {
        match cancel {
            Some(token) => token.cancelled().await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        joined = tokio::task::spawn_blocking(move || work(input)) => {
            joined.map_err(|e| ToolError::failed(format!("the tool failed: {e}")))?
        }
        () = cancelled => Err(ToolError::Cancelled),
    }
}

/// The JSON schema of each tool's input.
fn schema(kind: Kind) -> Value {
    let (props, required): (Value, &[&str]) = match kind {
        Kind::Bash => (
            serde_json::json!({
                "command": {"type": "string", "description": "The command line."},
                "timeout": {"type": "number", "exclusiveMinimum": 0, "description": "Seconds before the command is killed (default 120)."}
            }),
            &["command"],
        ),
        Kind::Read => (
            serde_json::json!({
                "path": {"type": "string"},
                "offset": {"type": "integer", "minimum": 1, "description": "First line to read (1-based)."},
                "limit": {"type": "integer", "minimum": 1, "description": "Most lines to read."}
            }),
            &["path"],
        ),
        Kind::Write => (
            serde_json::json!({"path": {"type": "string"}, "content": {"type": "string"}}),
            &["path", "content"],
        ),
        Kind::Edit => (
            serde_json::json!({
                "path": {"type": "string"},
                "oldText": {"type": "string"},
                "newText": {"type": "string"}
            }),
            &["path", "oldText", "newText"],
        ),
        Kind::Ls => (
            serde_json::json!({"path": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}}),
            &[],
        ),
        Kind::Grep => (
            serde_json::json!({
                "pattern": {"type": "string"},
                "path": {"type": "string"},
                "glob": {"type": "string"},
                "ignoreCase": {"type": "boolean"},
                "literal": {"type": "boolean"},
                "context": {"type": "integer", "minimum": 0},
                "limit": {"type": "integer", "minimum": 1}
            }),
            &["pattern"],
        ),
        Kind::Find => (
            serde_json::json!({
                "pattern": {"type": "string"},
                "path": {"type": "string"},
                "limit": {"type": "integer", "minimum": 1}
            }),
            &["pattern"],
        ),
    };
    serde_json::json!({
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": false
    })
}

/// Text cut to [`MAX_LINES`] lines and [`MAX_BYTES`] bytes, keeping the head (for search
/// results) and saying so on a last line.
fn cap_head(text: &str) -> (String, bool) {
    let mut out = String::new();
    for (shown, line) in text.split_inclusive('\n').enumerate() {
        if shown == MAX_LINES || out.len() + line.len() > MAX_BYTES {
            let total = text.lines().count();
            if !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&format!(
                "[output truncated: showing {shown} of {total} lines]"
            ));
            return (out, true);
        }
        out.push_str(line);
    }
    (out, false)
}

/// Text cut to [`MAX_LINES`] lines and [`MAX_BYTES`] bytes, keeping the tail (for command
/// output, where the end matters most) and saying so on a first line.
fn cap_tail(text: &str) -> (String, bool) {
    let all: Vec<&str> = text.split_inclusive('\n').collect();
    let mut kept = 0usize;
    let mut bytes = 0usize;
    for line in all.iter().rev() {
        if kept == MAX_LINES || bytes + line.len() > MAX_BYTES {
            break;
        }
        kept += 1;
        bytes += line.len();
    }
    if kept == all.len() {
        return (text.to_owned(), false);
    }
    let mut out = format!(
        "[output truncated: showing the last {kept} of {} lines]\n",
        all.len()
    );
    for line in &all[all.len() - kept..] {
        out.push_str(line);
    }
    (out, true)
}

#[cfg(test)]
mod tests;
