//! The [`HookUi`] of `hooks run`.
//!
//! Interactive (stdin and stderr are terminals, no `--no-ui`): `confirm`, `select`, `input` and
//! `editor` prompt on the terminal (stderr) with `inquire`; Escape or Ctrl-C cancels (a
//! cancelled `confirm` is a "no"). Not interactive: every prompt answers exactly as
//! [`hookwright::NoUi`] does (`confirm` no, the others nothing) and `has_ui` is `false`.
//!
//! Either way `notify` and `set_status` go to the transcript (the status line is rendered with
//! [`StatusLine`] and printed when it changes), so a non-interactive run still shows what the
//! hooks said. Hook text is sanitized before it reaches the terminal.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use hookwright::ui::{NotifyKind, Theme};
use hookwright::{HookUi, NoUi, StatusLine};
use serde_json::{Value, json};

use crate::run::transcript::{Transcript, clean};
use crate::sync::Locked as _;

/// The width the status line is rendered to.
const STATUS_WIDTH: usize = 100;

/// The host UI: terminal prompts when interactive, the no-op answers otherwise.
#[derive(Debug)]
pub struct HostUi {
    interactive: bool,
    transcript: Arc<Transcript>,
    status: Mutex<StatusLine>,
    editor_text: Mutex<String>,
}

impl HostUi {
    /// A UI writing to `transcript`, prompting on the terminal when `interactive`.
    #[must_use]
    pub fn new(interactive: bool, transcript: Arc<Transcript>) -> Self {
        HostUi {
            interactive,
            transcript,
            status: Mutex::new(StatusLine::default()),
            editor_text: Mutex::new(String::new()),
        }
    }

    /// Whether prompts reach a person.
    #[must_use]
    pub fn interactive(&self) -> bool {
        self.interactive
    }

    /// Runs a blocking prompt off the async runtime, after flushing the transcript.
    async fn ask<T: Send + 'static>(
        &self,
        prompt: impl FnOnce() -> Result<T, inquire::InquireError> + Send + 'static,
    ) -> Option<T> {
        self.transcript.flush();
        tokio::task::spawn_blocking(prompt).await.ok()?.ok()
    }
}

#[async_trait]
impl HookUi for HostUi {
    async fn select(&self, title: &str, options: &[String]) -> Option<String> {
        let answer = if self.interactive && !options.is_empty() {
            let title = clean(title);
            let shown: Vec<String> = options.iter().map(|o| clean(o)).collect();
            let index = self
                .ask(move || {
                    inquire::Select::new(&title, shown)
                        .raw_prompt()
                        .map(|o| o.index)
                })
                .await;
            index.and_then(|i| options.get(i).cloned())
        } else {
            NoUi.select(title, options).await
        };
        self.transcript.prompt("select", title, &json!(answer));
        answer
    }

    async fn confirm(&self, title: &str, message: &str) -> bool {
        let answer = if self.interactive {
            let question = format!("{}: {}", clean(title), clean(message));
            self.ask(move || {
                inquire::Confirm::new(&question)
                    .with_default(false)
                    .with_help_message("y to allow, n or Enter to refuse")
                    .prompt()
            })
            .await
            .unwrap_or(false)
        } else {
            NoUi.confirm(title, message).await
        };
        self.transcript
            .prompt("confirm", title, &Value::from(answer));
        answer
    }

    async fn input(&self, title: &str, placeholder: Option<&str>) -> Option<String> {
        let answer = if self.interactive {
            let title = clean(title);
            let placeholder = placeholder.map(clean);
            self.ask(move || {
                let mut text = inquire::Text::new(&title);
                if let Some(p) = &placeholder {
                    text = text.with_placeholder(p);
                }
                text.prompt()
            })
            .await
        } else {
            NoUi.input(title, placeholder).await
        };
        self.transcript.prompt("input", title, &json!(answer));
        answer
    }

    async fn editor(&self, title: &str, prefill: Option<&str>) -> Option<String> {
        let answer = if self.interactive {
            let title = clean(title);
            let prefill = prefill.map(str::to_owned);
            self.ask(move || {
                let mut editor = inquire::Editor::new(&title);
                if let Some(p) = &prefill {
                    editor = editor.with_predefined_text(p);
                }
                editor.prompt()
            })
            .await
        } else {
            NoUi.editor(title, prefill).await
        };
        self.transcript.prompt("editor", title, &json!(answer));
        answer
    }

    fn notify(&self, message: &str, kind: NotifyKind) {
        let kind = match kind {
            NotifyKind::Info => "info",
            NotifyKind::Warning => "warning",
            NotifyKind::Error => "error",
        };
        self.transcript.notify(kind, message);
    }

    fn set_status(&self, key: &str, text: Option<&str>) {
        let rendered = {
            let mut status = self.status.locked();
            let before = status.render(STATUS_WIDTH);
            status.set(key, text);
            let after = status.render(STATUS_WIDTH);
            if before == after {
                return;
            }
            after
        };
        self.transcript.status(rendered.as_deref());
    }

    fn set_editor_text(&self, text: &str) {
        *self.editor_text.locked() = text.to_owned();
    }

    fn get_editor_text(&self) -> String {
        self.editor_text.locked().clone()
    }

    fn theme(&self) -> Theme {
        self.transcript.theme()
    }
}
