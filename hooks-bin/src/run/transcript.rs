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

use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use hooks_core::events::Content;
use hooks_core::ui::Theme;
use serde::Serialize;
use serde_json::{Map, Value, json};

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
enum Style {
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

    /// Whether readable output is coloured.
    #[must_use]
    pub fn color(&self) -> bool {
        self.color
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

    fn lock(&self) -> std::sync::MutexGuard<'_, Output> {
        self.out
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
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
        let mut out = self.lock();
        let text = serde_json::to_string(&Value::Object(map)).unwrap_or_default();
        let _ = writeln!(out.sink, "{text}");
        let _ = out.sink.flush();
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
        let mut out = self.lock();
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
        let mut out = self.lock();
        self.flush_events(&mut out);
        let _ = out.sink.flush();
    }

    /// The run starts.
    pub fn start(&self, info: &StartInfo) {
        if self.json {
            self.record("start", serde_json::to_value(info).unwrap_or_default());
            return;
        }
        let hooks = if info.hooks.is_empty() {
            "(none)".to_owned()
        } else {
            info.hooks.join(", ")
        };
        let ui = if info.has_ui {
            "interactive (prompts on this terminal)"
        } else {
            "none (confirm answers no, select/input/editor answer nothing)"
        };
        self.lines(&[
            self.paint(Style::Bold, &format!("hooks run {}", info.script)),
            format!("  session  {}", self.rel(&info.session_file)),
            format!("  hooks    {}", clean(&hooks)),
            format!("  ui       {ui}"),
        ]);
    }

    /// A hook entry failed to load.
    pub fn load_error(&self, path: &str, error: &str) {
        if self.json {
            self.record("load_error", json!({"path": path, "error": error}));
        } else {
            let text = format!("  load error  {}: {}", clean(path), clean(error));
            self.lines(&[self.paint(Style::Warn, &text)]);
        }
    }

    /// A warning (discovery, session file).
    pub fn warning(&self, message: &str) {
        if self.json {
            self.record("warning", json!({"message": message}));
        } else {
            let text = format!("  warning  {}", clean(message));
            self.lines(&[self.paint(Style::Warn, &text)]);
        }
    }

    /// A script action starts; `summary` is its readable form, `fields` its JSON fields.
    pub fn action(&self, key: &str, summary: &str, fields: Value) {
        if self.json {
            let mut map = Map::new();
            map.insert("action".to_owned(), Value::from(key));
            if let Value::Object(fields) = fields {
                map.extend(fields);
            }
            self.record("action", Value::Object(map));
            return;
        }
        let place = match self.current_line() {
            Some(line) => format!("{}:{line}", self.script_name),
            None => self.script_name.clone(),
        };
        let head = format!(
            "{}  {}",
            self.paint(Style::Accent, &place),
            self.paint(Style::Bold, key)
        );
        self.lines(&[String::new(), format!("{head} {}", clean(summary))]);
    }

    /// The host emits `event` (whether or not a handler exists).
    pub fn event(&self, name: &str, handled: bool, payload: &impl Serialize) {
        if self.json {
            let payload = serde_json::to_value(payload).unwrap_or(Value::Null);
            self.record(
                "event",
                json!({"event": name, "handled": handled, "payload": payload}),
            );
        } else {
            self.lock().events.push(name.to_owned());
        }
    }

    /// The combined result of an event's handlers (JSON only; readable output shows outcomes).
    pub fn result(&self, name: &str, result: &impl Serialize) {
        if self.json {
            let result = serde_json::to_value(result).unwrap_or(Value::Null);
            self.record("result", json!({"event": name, "result": result}));
        }
    }

    /// The `context` event's outcome.
    pub fn context(&self, before: usize, after: usize, removed: &[String]) {
        if self.json {
            self.record(
                "context",
                json!({"before": before, "after": after, "removed": removed}),
            );
            return;
        }
        let mut text = format!("  context  {after} of {before} messages sent to the model");
        if !removed.is_empty() {
            text.push_str(&format!(
                " (filtered by hooks: {})",
                clean(&removed.join(", "))
            ));
        } else if before != after {
            text.push_str(" (changed by hooks)");
        }
        self.lines(&[text]);
    }

    /// A tool call's outcome.
    pub fn tool_result(&self, outcome: &ToolRecord) {
        if self.json {
            self.record(
                "tool_result",
                serde_json::to_value(outcome).unwrap_or_default(),
            );
            return;
        }
        let mut lines = Vec::new();
        match outcome.status {
            "blocked" => lines.push(self.paint(
                Style::Bad,
                &format!(
                    "  ✗ blocked: {}",
                    clean(outcome.reason.as_deref().unwrap_or(""))
                ),
            )),
            "cancelled" => lines.push(self.paint(
                Style::Warn,
                &format!(
                    "  ✗ cancelled: {}",
                    clean(outcome.reason.as_deref().unwrap_or(""))
                ),
            )),
            "error" => {
                lines.push(self.paint(Style::Bad, "  ✗ tool error:"));
                lines.extend(self.body(outcome.reason.as_deref().unwrap_or("")));
            }
            _ => {
                let note = if outcome.changed_by_hooks {
                    " (output changed by hooks)"
                } else {
                    ""
                };
                lines.push(self.paint(Style::Good, &format!("  ✓ ok{note}")));
                let text = outcome
                    .content
                    .iter()
                    .map(|c| {
                        c.as_text()
                            .map_or_else(|| "[non-text content]".to_owned(), str::to_owned)
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                lines.extend(self.body(&text));
            }
        }
        self.lines(&lines);
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

    /// The assistant's scripted answer.
    pub fn assistant(&self, text: &str) {
        if self.json {
            self.record("assistant", json!({"text": text}));
        } else {
            self.lines(&[format!("  assistant  {}", clean(text))]);
        }
    }

    /// A custom message entered the session; `rendered` is the renderer's output.
    pub fn message(&self, message: &Value, rendered: Option<&[String]>, text: &str) {
        if self.json {
            let mut fields = message.clone();
            if let Value::Object(map) = &mut fields {
                map.insert(
                    "rendered".to_owned(),
                    rendered.map_or(Value::Null, |r| Value::from(r.to_vec())),
                );
            }
            self.record("message", fields);
            return;
        }
        let custom_type = message
            .get("customType")
            .and_then(Value::as_str)
            .unwrap_or("");
        match rendered {
            Some(lines) => {
                let lines: Vec<String> = lines
                    .iter()
                    .map(|l| format!("  {}", clean_rendered(l, self.color)))
                    .collect();
                self.lines(&lines);
            }
            None => self.lines(&[format!(
                "  message  [{}] {}",
                clean(custom_type),
                clean(text)
            )]),
        }
    }

    /// A hook persisted a custom entry.
    pub fn entry(&self, custom_type: &str, data: Option<&Value>) {
        if self.json {
            self.record("entry", json!({"customType": custom_type, "data": data}));
        } else {
            let data = data.map(Value::to_string).unwrap_or_default();
            self.lines(&[self.paint(
                Style::Dim,
                &format!("  entry  [{}] {}", clean(custom_type), clean(&data)),
            )]);
        }
    }

    /// The status line changed.
    pub fn status(&self, text: Option<&str>) {
        if self.json {
            self.record("status", json!({"text": text}));
        } else {
            let text = text.map_or_else(|| "(cleared)".to_owned(), clean);
            self.lines(&[format!("  {}  {text}", self.paint(Style::Accent, "status"))]);
        }
    }

    /// A hook sent a notification.
    pub fn notify(&self, kind: &str, message: &str) {
        if self.json {
            self.record("notify", json!({"kind": kind, "message": message}));
        } else {
            let style = match kind {
                "error" => Style::Bad,
                "warning" => Style::Warn,
                _ => Style::Plain,
            };
            self.lines(&[self.paint(style, &format!("  notify ({kind})  {}", clean(message)))]);
        }
    }

    /// A hook asked the user something; `answer` is what it got.
    pub fn prompt(&self, kind: &str, title: &str, answer: &Value) {
        if self.json {
            self.record(
                "prompt",
                json!({"kind": kind, "title": title, "answer": answer}),
            );
        } else {
            let answer = match answer {
                Value::Null => "(no answer)".to_owned(),
                Value::Bool(true) => "yes".to_owned(),
                Value::Bool(false) => "no".to_owned(),
                Value::String(s) => clean(s),
                other => clean(&other.to_string()),
            };
            self.lines(&[format!("  ? {kind} \"{}\" → {answer}", clean(title))]);
        }
    }

    /// A handler failed (reported through the runner's error listeners).
    pub fn hook_error(&self, hook_path: &str, event: &str, error: &str) {
        if self.json {
            self.record(
                "hook_error",
                json!({"hookPath": hook_path, "event": event, "error": error}),
            );
        } else {
            let text = format!(
                "  hook error  {} on {event}: {}",
                clean(hook_path),
                clean(error)
            );
            self.lines(&[self.paint(Style::Bad, &text)]);
        }
    }

    /// A command ran.
    pub fn command(&self, name: &str, args: &str, error: Option<&str>) {
        if self.json {
            let status = if error.is_some() { "error" } else { "ok" };
            self.record(
                "command",
                json!({"name": name, "args": args, "status": status, "error": error}),
            );
        } else if let Some(error) = error {
            let text = format!("  ✗ /{} failed: {}", clean(name), clean(error));
            self.lines(&[self.paint(Style::Bad, &text)]);
        } else {
            self.lines(&[self.paint(Style::Good, &format!("  ✓ /{} done", clean(name)))]);
        }
    }

    /// The current session changed (or a change was cancelled).
    pub fn session(&self, change: &str, file: Option<&str>, parent: Option<&str>, cancelled: bool) {
        if self.json {
            self.record(
                "session",
                json!({"change": change, "file": file, "parentSession": parent, "cancelled": cancelled}),
            );
            return;
        }
        if cancelled {
            let text = format!("  ✗ {change} cancelled by hooks");
            self.lines(&[self.paint(Style::Warn, &text)]);
            return;
        }
        let mut lines = vec![self.paint(
            Style::Good,
            &format!(
                "  ✓ {change} session {}",
                self.rel(file.unwrap_or("(in memory)"))
            ),
        )];
        if let Some(parent) = parent {
            lines.push(format!("    parent {}", self.rel(parent)));
        }
        self.lines(&lines);
    }

    /// A compaction ran or was cancelled.
    pub fn compaction(
        &self,
        cancelled: bool,
        from_extension: bool,
        entry_id: Option<&str>,
        summary: Option<&str>,
    ) {
        if self.json {
            self.record(
                "compaction",
                json!({"cancelled": cancelled, "fromExtension": from_extension, "entryId": entry_id, "summary": summary}),
            );
        } else if cancelled {
            self.lines(&[self.paint(Style::Warn, "  ✗ compaction cancelled by hooks")]);
        } else {
            let by = if from_extension { " (by hooks)" } else { "" };
            let mut lines = vec![self.paint(Style::Good, &format!("  ✓ compacted{by}"))];
            lines.extend(self.body(summary.unwrap_or("")));
            self.lines(&lines);
        }
    }

    /// A tree navigation ran or was cancelled: the leaf moved from `old_leaf` to `target`
    /// (then to `new_leaf`, the summary entry written under the target, if any).
    pub fn tree(
        &self,
        cancelled: bool,
        old_leaf: Option<&str>,
        target: &str,
        new_leaf: Option<&str>,
        summary_entry: Option<&str>,
    ) {
        if self.json {
            self.record(
                "tree",
                json!({"cancelled": cancelled, "oldLeafId": old_leaf, "targetId": target, "newLeafId": new_leaf, "summaryEntryId": summary_entry}),
            );
        } else if cancelled {
            self.lines(&[self.paint(Style::Warn, "  ✗ tree navigation cancelled by hooks")]);
        } else if old_leaf == Some(target) {
            let text = format!("already at {target}");
            self.lines(&[self.paint(Style::Good, &format!("  ✓ {}", clean(&text)))]);
        } else {
            let mut text = format!("moved from {} to {target}", old_leaf.unwrap_or("(root)"));
            if let Some(id) = summary_entry {
                text.push_str(&format!(", branch summary {id}"));
            }
            self.lines(&[self.paint(Style::Good, &format!("  ✓ {}", clean(&text)))]);
        }
    }

    /// A Ctrl-C was handled (`kind`: `cancel`, `stop` or `exit`).
    pub fn interrupt(&self, kind: &str, message: &str) {
        if self.json {
            self.record("interrupt", json!({"kind": kind, "message": message}));
        } else {
            let text = format!("  ^C  {}", clean(message));
            self.lines(&[self.paint(Style::Warn, &text)]);
        }
    }

    /// An action could not be carried out.
    pub fn error(&self, message: &str) {
        if self.json {
            self.record("error", json!({"message": message}));
        } else {
            let text = format!("  error  {}", clean(message));
            self.lines(&[self.paint(Style::Bad, &text)]);
        }
    }

    /// The run ended.
    pub fn end(&self, actions: usize, failed: usize, session_file: Option<&str>) {
        self.set_line(0);
        if self.json {
            self.record(
                "end",
                json!({"actions": actions, "failed": failed, "sessionFile": session_file}),
            );
            return;
        }
        let s = if actions == 1 { "" } else { "s" };
        let mut text = format!("done: {actions} action{s}");
        if failed > 0 {
            text.push_str(&format!(", {failed} failed"));
        }
        if let Some(file) = session_file {
            text.push_str(&format!("; session {}", self.rel(file)));
        }
        self.lines(&[String::new(), self.paint(Style::Bold, &text)]);
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

/// One line of hook text, safe to print: escape sequences removed, control characters
/// (newlines included) turned into spaces, runs of spaces collapsed.
#[must_use]
pub fn clean(text: &str) -> String {
    hooks_core::ui::sanitize_status_text(&sanitize(text, false))
}

/// Several lines of tool or hook text, safe to print: escape sequences removed, tabs kept,
/// other control characters but `\n` turned into spaces.
#[must_use]
pub fn clean_multiline(text: &str) -> String {
    sanitize(text, false)
        .chars()
        .map(|c| {
            if c.is_control() && c != '\n' && c != '\t' {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// One line of renderer output: SGR colour sequences are kept when colour is on, every other
/// escape sequence and control character is removed.
#[must_use]
pub fn clean_rendered(text: &str, color: bool) -> String {
    sanitize(text, color)
        .chars()
        .map(|c| {
            if c.is_control() && c != '\x1b' {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// Removes escape sequences (ESC-based and C1), keeping `ESC [ ... m` when `keep_sgr`.
fn sanitize(text: &str, keep_sgr: bool) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let csi_start = if c == '\x1b' && chars.get(i + 1) == Some(&'[') {
            Some(i + 2)
        } else if c == '\u{9b}' {
            Some(i + 1)
        } else {
            None
        };
        if let Some(start) = csi_start {
            let mut j = start;
            while j < chars.len() && ('\x20'..='\x3f').contains(&chars[j]) {
                j += 1;
            }
            let final_char = chars.get(j).copied();
            if keep_sgr
                && final_char == Some('m')
                && c == '\x1b'
                && chars[start..j]
                    .iter()
                    .all(|c| c.is_ascii_digit() || *c == ';')
            {
                out.extend(&chars[i..=j]);
            }
            i = if final_char.is_some_and(|f| ('\x40'..='\x7e').contains(&f)) {
                j + 1
            } else {
                j
            };
            continue;
        }
        if c == '\x1b' || c == '\u{9d}' || c == '\u{90}' || c == '\u{9e}' || c == '\u{9f}' {
            // OSC, DCS, PM, APC: up to BEL or ST; other ESC sequences: ESC + one char.
            let string_seq = c != '\x1b' || matches!(chars.get(i + 1), Some(']' | 'P' | '^' | '_'));
            if string_seq {
                let mut j = if c == '\x1b' { i + 2 } else { i + 1 };
                while j < chars.len() {
                    if chars[j] == '\x07' || chars[j] == '\u{9c}' {
                        j += 1;
                        break;
                    }
                    if chars[j] == '\x1b' && chars.get(j + 1) == Some(&'\\') {
                        j += 2;
                        break;
                    }
                    j += 1;
                }
                i = j;
            } else {
                i += 2;
            }
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitizing_removes_control_sequences() {
        let hostile = "a\x1b[2J\x1b]0;title\x07b\x1b[31mred\x1b[0m\u{9b}1Ac\rd";
        assert_eq!(clean_multiline(hostile), "abredc d");
        assert_eq!(clean(hostile), "abredc d");
        assert_eq!(clean_rendered(hostile, true), "ab\x1b[31mred\x1b[0mc d");
        assert_eq!(clean_rendered(hostile, false), "abredc d");
        assert_eq!(clean_multiline("x\n\ty\x1b"), "x\n\ty");
    }
}
