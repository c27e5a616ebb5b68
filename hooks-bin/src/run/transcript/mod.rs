//! What `hooks run` prints: a readable transcript, or one JSON object per line (`--json`).
//!
//! Every text that comes from a hook or a tool is sanitized before it reaches the terminal:
//! escape sequences and control characters are removed (only `SGR` colour sequences from a
//! renderer survive, and only when colour is on). Colour is used only when stdout is a terminal
//! and `NO_COLOR` is unset or empty.
//!
//! # JSON records
//!
//! Each line is an object with a `type` and, for records caused by a script line, its `line`:
//!
//! | `type` | fields |
//! | --- | --- |
//! | `start` | `script`, `cwd`, `sessionDir`, `sessionFile`, `sessionId`, `hooks` (ids in load order), `hasUi` |
//! | `load_error` | `path`, `error` |
//! | `warning` | `message` |
//! | `action` | `line`, `action` (`prompt`, `tool`, `command`, `compact`, `switch`, `branch`, `tree`), plus the action's fields |
//! | `event` | `line`, `event`, `handled` (whether any handler exists), `payload` (the event's wire JSON) |
//! | `result` | `line`, `event`, `result` (the combined handler result, when there is one) |
//! | `context` | `line`, `before`, `after` (message counts), `removed` (`role` or `custom:<customType>` of each dropped message) |
//! | `tool_result` | `line`, `tool`, `toolCallId`, `status` (`ok`, `blocked`, `error`, `cancelled`), `changedByHooks`, `content`, `details`, `reason` |
//! | `assistant` | `line`, `text` |
//! | `message` | `line`, `customType`, `content`, `display`, `rendered` (renderer output or `null`) |
//! | `entry` | `line`, `customType`, `data` |
//! | `status` | `line`, `text` (the whole rendered status line, `null` when empty) |
//! | `notify` | `line`, `kind`, `message` |
//! | `prompt` | `line`, `kind` (`confirm`, `select`, `input`, `editor`), `title`, `answer` |
//! | `hook_error` | `line`, `hookPath`, `event`, `error` |
//! | `command` | `line`, `name`, `args`, `status` (`ok`, `error`), `error` |
//! | `session` | `line`, `change` (`new`, `resume`, `fork`, `branch`), `file`, `parentSession`, `cancelled` |
//! | `compaction` | `line`, `cancelled`, `fromExtension`, `entryId`, `summary` |
//! | `tree` | `line`, `cancelled`, `oldLeafId`, `targetId`, `newLeafId` (the leaf afterwards: the target, or the summary entry written under it), `summaryEntryId` |
//! | `interrupt` | `line`, `kind` (`cancel`: the running tool call is cancelled, `stop`: the script stops after the current action, `exit`: exiting now), `message` |
//! | `error` | `line`, `message` (an action that could not be carried out) |
//! | `end` | `actions` (how many ran: fewer than the script's after a Ctrl-C), `failed`, `sessionFile` |
//!
//! The writer and its two forms of output are here; the records are methods in `progress` (the
//! script, the agent run and its tools) and `host` (what hooks do through the host, and the
//! session actions). Each record writes both its forms side by side, so the JSON and the
//! readable form of a record change together.

use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::sync::Locked as _;
use hookwright::events::Content;
use hookwright::ui::Theme;
use serde::Serialize;
use serde_json::{Map, Value};

pub use crate::sanitize::{clean, clean_multiline, clean_rendered};

mod host;
mod progress;

/// Most lines of a tool result shown in the readable transcript.
const SHOWN_LINES: usize = 12;

/// Where records go and how they look.
pub struct Transcript {
    json: bool,
    color: bool,
    out: Mutex<Output>,
    line: AtomicUsize,
    script_name: String,
    /// Paths under this directory are shown relative to it (readable output only).
    root: String,
}

struct Output {
    sink: Box<dyn Write + Send>,
    /// Event names not yet printed (readable mode prints them on one line).
    events: Vec<String>,
}

/// A styled piece of readable output.
#[derive(Clone, Copy)]
pub(super) enum Style {
    Plain,
    Bold,
    Dim,
    Good,
    Bad,
    Warn,
    Accent,
}

impl std::fmt::Debug for Transcript {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transcript")
            .field("json", &self.json)
            .field("color", &self.color)
            .finish_non_exhaustive()
    }
}

impl Transcript {
    /// A transcript written to `sink`.
    pub fn new(
        sink: Box<dyn Write + Send>,
        json: bool,
        color: bool,
        script_name: String,
        root: &std::path::Path,
    ) -> Self {
        Transcript {
            json,
            color: color && !json,
            out: Mutex::new(Output {
                sink,
                events: Vec::new(),
            }),
            line: AtomicUsize::new(0),
            script_name,
            root: format!("{}/", root.display()),
        }
    }

    /// `path` relative to the root when it is below it, for readable output.
    fn rel(&self, path: &str) -> String {
        clean(path.strip_prefix(&self.root).unwrap_or(path))
    }

    /// The theme renderers get.
    #[must_use]
    pub fn theme(&self) -> Theme {
        if self.color {
            Theme::dark()
        } else {
            Theme::plain()
        }
    }

    /// Sets the script line that later records belong to (0: none).
    pub fn set_line(&self, line: usize) {
        self.line.store(line, Ordering::Relaxed);
    }

    fn current_line(&self) -> Option<usize> {
        match self.line.load(Ordering::Relaxed) {
            0 => None,
            n => Some(n),
        }
    }

    /// Writes one JSON record: `type`, then `line` (when set), then `fields`.
    fn record(&self, kind: &str, fields: Value) {
        let mut map = Map::new();
        map.insert("type".to_owned(), Value::from(kind));
        if let Some(line) = self.current_line() {
            map.insert("line".to_owned(), Value::from(line));
        }
        if let Value::Object(fields) = fields {
            map.extend(fields);
        }
        let mut out = self.out.locked();
        let text = serde_json::to_string(&Value::Object(map)).unwrap_or_default();
        let _ = writeln!(out.sink, "{text}");
        let _ = out.sink.flush();
    }

    /// The record `kind` with `fields`, or, in readable output, the line `line()` in `style`.
    fn say(&self, kind: &str, fields: Value, style: Style, line: impl FnOnce() -> String) {
        if self.json {
            self.record(kind, fields);
        } else {
            self.lines(&[self.paint(style, &line())]);
        }
    }

    fn paint(&self, style: Style, text: &str) -> String {
        if !self.color {
            return text.to_owned();
        }
        let code = match style {
            Style::Plain => return text.to_owned(),
            Style::Bold => "1",
            Style::Dim => "2",
            Style::Good => "32",
            Style::Bad => "31",
            Style::Warn => "33",
            Style::Accent => "36",
        };
        format!("\x1b[{code}m{text}\x1b[0m")
    }

    /// Writes readable lines (each already sanitized and styled), after any pending events.
    fn lines(&self, lines: &[String]) {
        let mut out = self.out.locked();
        Self::flush_events(self, &mut out);
        for line in lines {
            let _ = writeln!(out.sink, "{line}");
        }
        let _ = out.sink.flush();
    }

    fn flush_events(&self, out: &mut Output) {
        if out.events.is_empty() {
            return;
        }
        let text = format!("  · {}", out.events.join(" · "));
        out.events.clear();
        let text = self.paint(Style::Dim, &text);
        let _ = writeln!(out.sink, "{text}");
    }

    /// Prints pending output (call before a prompt and at the end).
    pub fn flush(&self) {
        if self.json {
            return;
        }
        let mut out = self.out.locked();
        self.flush_events(&mut out);
        let _ = out.sink.flush();
    }

    /// Indented, sanitized, cut-down lines of a tool output.
    fn body(&self, text: &str) -> Vec<String> {
        let cleaned = clean_multiline(text);
        let all: Vec<&str> = cleaned.lines().collect();
        let mut out: Vec<String> = all
            .iter()
            .take(SHOWN_LINES)
            .map(|l| format!("    {} {l}", self.paint(Style::Dim, "│")))
            .collect();
        if all.len() > SHOWN_LINES {
            out.push(self.paint(
                Style::Dim,
                &format!("    … {} more lines", all.len() - SHOWN_LINES),
            ));
        }
        out
    }
}

/// What the `start` record carries.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StartInfo {
    /// The script path as given.
    pub script: String,
    /// The working directory (absolute).
    pub cwd: String,
    /// The session directory.
    pub session_dir: String,
    /// The first session file.
    pub session_file: String,
    /// The first session's id.
    pub session_id: String,
    /// The loaded hooks' ids, in load order.
    pub hooks: Vec<String>,
    /// Whether prompts are interactive.
    pub has_ui: bool,
}

/// What the `tool_result` record carries.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolRecord {
    /// The tool.
    pub tool: String,
    /// The call id.
    pub tool_call_id: String,
    /// `ok`, `blocked`, `error` or `cancelled` (Ctrl-C).
    pub status: &'static str,
    /// Whether a `tool_result` handler replaced content or details.
    pub changed_by_hooks: bool,
    /// The final content (what the model sees).
    pub content: Vec<Content>,
    /// The final details.
    pub details: Option<Value>,
    /// Why it was blocked, or the error text.
    pub reason: Option<String>,
}
