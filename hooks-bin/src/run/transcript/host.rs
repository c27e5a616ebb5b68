//! The records of what hooks do through the host (messages, entries, the status line,
//! notifications, prompts, hook errors, commands) and of the session actions (switch, branch,
//! compaction, tree navigation).

use serde_json::{Value, json};

use super::{Style, Transcript, clean, clean_rendered};

impl Transcript {
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
        let fields = json!({"customType": custom_type, "data": data});
        self.say("entry", fields, Style::Dim, || {
            let data = data.map(Value::to_string).unwrap_or_default();
            format!("  entry  [{}] {}", clean(custom_type), clean(&data))
        });
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
        let style = match kind {
            "error" => Style::Bad,
            "warning" => Style::Warn,
            _ => Style::Plain,
        };
        self.say(
            "notify",
            json!({"kind": kind, "message": message}),
            style,
            || format!("  notify ({kind})  {}", clean(message)),
        );
    }

    /// A hook asked the user something; `answer` is what it got.
    pub fn prompt(&self, kind: &str, title: &str, answer: &Value) {
        let fields = json!({"kind": kind, "title": title, "answer": answer});
        self.say("prompt", fields, Style::Plain, || {
            let answer = match answer {
                Value::Null => "(no answer)".to_owned(),
                Value::Bool(true) => "yes".to_owned(),
                Value::Bool(false) => "no".to_owned(),
                Value::String(s) => clean(s),
                other => clean(&other.to_string()),
            };
            format!("  ? {kind} \"{}\" → {answer}", clean(title))
        });
    }

    /// A handler failed (reported through the runner's error listeners).
    pub fn hook_error(&self, hook_path: &str, event: &str, error: &str) {
        let fields = json!({"hookPath": hook_path, "event": event, "error": error});
        self.say("hook_error", fields, Style::Bad, || {
            format!(
                "  hook error  {} on {event}: {}",
                clean(hook_path),
                clean(error)
            )
        });
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
}
