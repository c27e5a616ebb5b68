//! The UI a handler can use (`ctx.ui()`): the [`HookUi`] trait, the no-op [`NoUi`] used when
//! there is no interactive UI, the [`Theme`] renderers receive, and the [`StatusLine`].

mod status;

pub use status::{StatusLine, sanitize_status_text, truncate_to_width};

use async_trait::async_trait;
use serde_json::Value;

/// The kind of a notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NotifyKind {
    /// Information (the default).
    #[default]
    Info,
    /// A warning.
    Warning,
    /// An error.
    Error,
}

/// A request for a host-specific custom component (`ui.custom`): a kind the host knows and a
/// JSON payload. The host answers with the value its component produced, or `None`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CustomUiRequest {
    /// What component to show.
    pub kind: String,
    /// Its input.
    pub payload: Value,
}

/// Colours a theme can apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ThemeColor {
    /// Accent colour.
    Accent,
    /// Muted, secondary text.
    Muted,
    /// Success.
    Success,
    /// Warning.
    Warning,
    /// Error.
    Error,
}

/// The current theme: whether colour is on, and how each [`ThemeColor`] is drawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Theme {
    /// The theme's name.
    pub name: String,
    /// Whether styling escapes are emitted (off for pipes and `NO_COLOR`).
    pub color: bool,
}

impl Default for Theme {
    fn default() -> Self {
        Theme::plain()
    }
}

impl Theme {
    /// A theme that emits no escapes.
    #[must_use]
    pub fn plain() -> Self {
        Theme {
            name: "plain".to_owned(),
            color: false,
        }
    }

    /// The default dark theme with colour on.
    #[must_use]
    pub fn dark() -> Self {
        Theme {
            name: "dark".to_owned(),
            color: true,
        }
    }

    /// `text` in `color` (unchanged when colour is off).
    #[must_use]
    pub fn fg(&self, color: ThemeColor, text: &str) -> String {
        if !self.color {
            return text.to_owned();
        }
        let code = match color {
            ThemeColor::Accent => "36",
            ThemeColor::Muted => "90",
            ThemeColor::Success => "32",
            ThemeColor::Warning => "33",
            ThemeColor::Error => "31",
        };
        format!("\x1b[{code}m{text}\x1b[0m")
    }

    /// `text` in bold (unchanged when colour is off).
    #[must_use]
    pub fn bold(&self, text: &str) -> String {
        if self.color {
            format!("\x1b[1m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
}

/// The UI context of a handler (`HookUIContext`).
///
/// Hosts implement it. Every method has the answer of the no-op UI (SPEC-DETAILS section
/// 4.1): `select`/`input`/`editor`/`custom` answer `None`, `confirm` answers `false`,
/// `notify`/`set_status`/`set_editor_text` do nothing, `get_editor_text` answers `""` and
/// `theme` is [`Theme::plain`]; so a UI implements only what it shows. [`NoUi`] is the UI
/// that implements nothing.
#[async_trait]
pub trait HookUi: Send + Sync {
    /// Lets the user pick one of `options`; `None` when cancelled.
    async fn select(&self, title: &str, options: &[String]) -> Option<String> {
        let _ = (title, options);
        None
    }
    /// Asks a yes/no question; `true` if confirmed.
    async fn confirm(&self, title: &str, message: &str) -> bool {
        let _ = (title, message);
        false
    }
    /// Asks for one line of text; `None` when cancelled.
    async fn input(&self, title: &str, placeholder: Option<&str>) -> Option<String> {
        let _ = (title, placeholder);
        None
    }
    /// Opens a multi-line editor; `None` when cancelled.
    async fn editor(&self, title: &str, prefill: Option<&str>) -> Option<String> {
        let _ = (title, prefill);
        None
    }
    /// Shows a notification.
    fn notify(&self, message: &str, kind: NotifyKind) {
        let _ = (message, kind);
    }
    /// Sets (`Some`) or clears (`None`) one keyed segment of the status line.
    fn set_status(&self, key: &str, text: Option<&str>) {
        let _ = (key, text);
    }
    /// Shows a host-specific custom component and waits for its value.
    async fn custom(&self, request: CustomUiRequest) -> Option<Value> {
        let _ = request;
        None
    }
    /// Replaces the text of the main input editor.
    fn set_editor_text(&self, text: &str) {
        let _ = text;
    }
    /// The text of the main input editor.
    fn get_editor_text(&self) -> String {
        String::new()
    }
    /// The current theme.
    fn theme(&self) -> Theme {
        Theme::plain()
    }
}

/// The no-op UI (SPEC.md section 6): every [`HookUi`] method keeps its default answer.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoUi;

impl HookUi for NoUi {}
