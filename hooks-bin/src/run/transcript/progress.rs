//! The records of the script and the agent run: start and end, load errors and warnings,
//! actions, events and results, the context sent, tool results, the assistant's reply,
//! Ctrl-C and failed actions.

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::{StartInfo, Style, ToolRecord, Transcript, clean};
use crate::sync::Locked as _;

impl Transcript {
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
        let fields = json!({"path": path, "error": error});
        self.say("load_error", fields, Style::Warn, || {
            format!("  load error  {}: {}", clean(path), clean(error))
        });
    }

    /// A warning (discovery, session file).
    pub fn warning(&self, message: &str) {
        self.say("warning", json!({"message": message}), Style::Warn, || {
            format!("  warning  {}", clean(message))
        });
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
            self.out.locked().events.push(name.to_owned());
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
            status @ ("blocked" | "cancelled") => {
                let style = if status == "blocked" {
                    Style::Bad
                } else {
                    Style::Warn
                };
                let reason = clean(outcome.reason.as_deref().unwrap_or(""));
                lines.push(self.paint(style, &format!("  ✗ {status}: {reason}")));
            }
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

    /// The assistant's scripted answer.
    pub fn assistant(&self, text: &str) {
        self.say("assistant", json!({"text": text}), Style::Plain, || {
            format!("  assistant  {}", clean(text))
        });
    }

    /// A Ctrl-C was handled (`kind`: `cancel`, `stop` or `exit`).
    pub fn interrupt(&self, kind: &str, message: &str) {
        let fields = json!({"kind": kind, "message": message});
        self.say("interrupt", fields, Style::Warn, || {
            format!("  ^C  {}", clean(message))
        });
    }

    /// An action could not be carried out.
    pub fn error(&self, message: &str) {
        self.say("error", json!({"message": message}), Style::Bad, || {
            format!("  error  {}", clean(message))
        });
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
