//! Redact tool output (SPEC.md section 8, example 2).
//!
//! Upstream:
//!
//! ```text
//! pi.on("tool_result", async event => {
//!   if (event.toolName !== "read" || event.isError) return;
//!   const redacted = event.content.map(chunk => {
//!     if (chunk.type !== "text") return chunk;
//!     return { ...chunk, text: chunk.text.replaceAll(/API_KEY=\S+/g, "API_KEY=[REDACTED]") };
//!   });
//!   return { content: redacted };
//! });
//! ```
//!
//! Two redactions, which differ only in what they find:
//!
//! - [`redact_secrets`], which the registered hook uses and the one to copy: any key ending in
//!   `api_key` (`api-key`, `apikey`; also `access_key`, `secret_key`, `private_key`),
//!   `secret`, `token`, `password` or `passwd`, in any case (`API_KEY`, `GITHUB_TOKEN`,
//!   `client_secret`, `x-api-key`, `AWS_SECRET_ACCESS_KEY`), with `=`, `:` or `=>` and any
//!   blanks (Unicode spaces too) around it, the key and the value each quoted or not:
//!   `api_key=v`, `API_KEY = v`, `"API_KEY": "v"`, `password:\u{a0}v`, `'token' => 'v'`. The
//!   value is replaced, its quotes kept, so JSON stays JSON. A key that only holds a keyword
//!   inside it (`max_tokens: 1024`, `token_count = 3`, `secret_name: x`) is not a secret and
//!   keeps its value, so the model is not shown code that differs from the file for nothing.
//!   It still errs toward redacting: `let token = next()` loses `next()`.
//! - [`redact_api_keys`] is the port line by line, kept to show fidelity: `API_KEY=` and the
//!   non-blank run after it, exactly; it misses every other spelling above.

use std::sync::LazyLock;

use hooks_core::prelude::*;
use regex::{Captures, Regex};

static API_KEY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"API_KEY=\S+").expect("the pattern is valid"));

/// A secret: its key (`key`), the key's closing quote (`kq`), the separator with its blanks
/// (`sep`), and the value, double-quoted (`dq`), single-quoted (`sq`) or bare (`bare`: a
/// non-blank run, not starting with a quote, `:` or `=`).
static SECRET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)(?P<key>[\w.-]*?(?:(?:api|access|secret|private)[_-]?key|secret|token|passw(?:or)?d))",
        r#"(?P<kq>["']?)"#,
        r"(?P<sep>[\t\p{Zs}]*(?:=>|[=:])[\t\p{Zs}]*)",
        r#"(?:"(?P<dq>(?:[^"\\\r\n]|\\.)+)"|'(?P<sq>[^'\r\n]+)'|(?P<bare>[^\s"':=]\S*))"#,
    ))
    .expect("the pattern is valid")
});

/// Replaces every `API_KEY=<non-space run>` with `API_KEY=[REDACTED]` (upstream's pattern).
#[must_use]
pub fn redact_api_keys(text: &str) -> String {
    API_KEY.replace_all(text, "API_KEY=[REDACTED]").into_owned()
}

/// Replaces the value of every secret in `text` (see the [module documentation](self)) with
/// `[REDACTED]`, keeping the key, the separator and the value's quotes.
#[must_use]
pub fn redact_secrets(text: &str) -> String {
    SECRET
        .replace_all(text, |caps: &Captures<'_>| {
            let quote = if caps.name("dq").is_some() {
                "\""
            } else if caps.name("sq").is_some() {
                "'"
            } else {
                ""
            };
            format!(
                "{}{}{}{quote}[REDACTED]{quote}",
                &caps["key"], &caps["kq"], &caps["sep"]
            )
        })
        .into_owned()
}

/// Redacts secrets in what the `read` tool returns.
///
/// For a `read` result that is not an error, every text chunk has each secret's value
/// replaced with `[REDACTED]` ([`redact_secrets`]; `API_KEY=<non-space run>` becomes
/// `API_KEY=[REDACTED]`, as upstream); other chunks (images) are kept as they are. The model,
/// the transcript and the session only ever see the redacted text.
#[hook(event = "tool_result")]
pub fn redact_read_output(event: &ToolResultEvent) -> Option<ToolResultEventResult> {
    if event.tool_name != "read" || event.failed() {
        return None;
    }
    let redacted = event
        .content
        .iter()
        .map(|chunk| match chunk {
            Content::Text(text) => Content::Text(TextContent {
                text: redact_secrets(&text.text),
                extra: text.extra.clone(),
            }),
            other => other.clone(),
        })
        .collect();
    Some(ToolResultEventResult {
        content: Some(redacted),
        ..ToolResultEventResult::default()
    })
}
