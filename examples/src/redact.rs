//! Redact tool output (SPEC.md section 8, example 2), shell output included.
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
//! Where upstream redacts the output of `read` only, [`redact_tool_output`] covers every tool
//! that hands a file's contents to the model:
//!
//! - `read` (Claude Code's `Read`, in each of its output shapes: text, a notebook's cells, a
//!   PDF's pages), `grep` (Claude Code's `Grep`: its matching lines) and `bash`, the shell
//!   (Claude Code's `Bash`, every Codex shell tool): `cat secret.env` shows the file as much as
//!   a read does, and Codex has no read tool at all;
//! - a chunk it cannot read, such as a whole PDF sent as a document, is withheld: it is
//!   replaced by a notice ([`WITHHELD_DOCUMENT`]), since the secret could be in its bytes;
//! - images pass as they are (a picture of a secret is not found by a text pattern).
//!
//! Other tools are left alone: `edit` and `write` show the model no file contents. What a hook
//! never sees it cannot redact: a tool whose output reaches the model without passing a hook
//! is blocked instead ([`block_unhooked_output`]: Claude Code's `Monitor`, whose events, one
//! per line the command prints, come to the model as notifications). A command sent to the
//! background with `bash` is fine: the model reads its output file later with `read` or
//! `bash`, both redacted. Two paths stay open, since no hook answer can change them: in Claude
//! Code, the output of a command that exits non-zero (only `PostToolUseFailure` fires, and it
//! takes no new output; a failed result is left alone here, as upstream, since its rewrite is
//! never applied); in Codex, what a command prints before it yields while still running. See
//! docs/agents.md's per-agent table for those paths.
//!
//! A redacted output is not enough where the agent shows the model a file again by itself.
//! Claude Code keeps each file `Read` opened or `Edit` changed and, after a compaction, reads
//! the most recent of them again from disk and attaches them to the next request, with no
//! hook. So in Claude Code [`answer_secret_reads`] answers a `Read` of a file that holds a
//! secret itself, denying the call with the redacted text as the reason (the model gets it as
//! the tool's result), and [`block_secret_edits`] blocks an `Edit` of such a file (the model
//! is told to use a shell command): neither tool opens the file ([`secret_files`] has what
//! they read and show). A file that holds no secret when a tool opens it, and one when Claude
//! Code reads it again, still reaches the model in full then.
//!
//! Two redactions, which differ only in what they find: [`redact_secrets`] (the one the hooks
//! use) and [`redact_api_keys`] (upstream's `API_KEY=\S+`).
pub mod secret_files;

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use hookwright::prelude::*;
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

/// The tools whose output [`redact_tool_output`] redacts: the ones that show the model a
/// file's contents (the facade's [`FILE_CONTENT_TOOLS`]).
pub use hookwright::events::FILE_CONTENT_TOOLS as REDACTED_TOOLS;

/// What replaces a chunk [`redact_tool_output`] cannot read (a PDF sent whole): the facade's
/// notice.
pub use hookwright::events::WITHHELD_DOCUMENT;

/// Redacts secrets in what the tools of [`REDACTED_TOOLS`] return.
///
/// For such a result that is not an error ([`ToolResultEvent::shows_file_contents`]), every
/// text chunk has each secret's value replaced with `[REDACTED]` ([`redact_secrets`];
/// `API_KEY=<non-space run>` becomes `API_KEY=[REDACTED]`, as upstream); images are kept as
/// they are, and any other chunk (a document) is replaced by [`WITHHELD_DOCUMENT`]
/// ([`ToolResultEvent::redact_text`]). The model, the transcript and the session only ever
/// see the redacted text.
#[hook(event = "tool_result")]
pub fn redact_tool_output(event: &ToolResultEvent) -> Option<ToolResultEventResult> {
    if !event.shows_file_contents() {
        return None;
    }
    Some(ToolResultEventResult {
        content: Some(event.redact_text(redact_secrets)),
        ..ToolResultEventResult::default()
    })
}

/// The tools whose output reaches the model without passing any hook, which
/// [`block_unhooked_output`] blocks: Claude Code's `Monitor` (our name `monitor`) streams each
/// line its command prints to the model as a notification.
pub const UNHOOKED_OUTPUT_TOOLS: &[&str] = &["monitor"];

/// The reason a call of [`UNHOOKED_OUTPUT_TOOLS`] is blocked with.
pub const UNHOOKED_OUTPUT_REASON: &str = "blocked by the redaction hook: this tool's output \
     reaches the model without passing a hook, so secrets in it cannot be redacted; run the \
     command with bash (in the background if it is long) and read its output instead";

/// Blocks the tools of [`UNHOOKED_OUTPUT_TOOLS`] with [`UNHOOKED_OUTPUT_REASON`]: what they
/// return never passes [`redact_tool_output`].
#[hook(event = "tool_call")]
pub fn block_unhooked_output(event: &ToolCallEvent) -> Option<ToolCallEventResult> {
    UNHOOKED_OUTPUT_TOOLS
        .contains(&event.tool_name.as_str())
        .then(|| ToolCallEventResult::block(UNHOOKED_OUTPUT_REASON))
}

/// The agents that show the model a file their tools opened again later, past every hook,
/// where [`answer_secret_reads`] and [`block_secret_edits`] keep files holding a secret from
/// those tools: Claude Code (`claude`), which attaches the files `Read` opened or `Edit`
/// changed most recently to the first request after a compaction, read again from disk.
pub const REREADING_AGENTS: &[&str] = &["claude"];

/// The path a call of `event` names (`file_path`, else our `path`), resolved as Claude Code
/// resolves it; `None` in agents not in [`REREADING_AGENTS`], for a tool other than `tool`,
/// and without a path.
fn reread_path(event: &ToolCallEvent, ctx: &HookContext, tool: &str) -> Option<PathBuf> {
    if event.tool_name != tool || !ctx.agent().is_some_and(|a| REREADING_AGENTS.contains(&a)) {
        return None;
    }
    let path = event
        .input_str("file_path")
        .or_else(|| event.input_str("path"))?;
    let home = std::env::var_os("HOME");
    Some(secret_files::resolve(
        path,
        ctx.cwd(),
        home.as_deref().map(Path::new),
    ))
}

/// In the agents of [`REREADING_AGENTS`], answers a `read` of a file that holds a secret in
/// place of the tool: blocks the call with the file's text, each secret's value redacted, as
/// the reason, which the model gets as the tool's result ([`secret_files::answer_read`]:
/// `offset` and `limit` as `Read` takes them; a file it cannot check is blocked with why). The
/// agent never opens the file, so it cannot show it to the model again. A file with no secret,
/// and every read elsewhere, runs as usual, its output redacted by [`redact_tool_output`].
#[hook(event = "tool_call")]
pub fn answer_secret_reads(
    event: &ToolCallEvent,
    ctx: &HookContext,
) -> Option<ToolCallEventResult> {
    let path = reread_path(event, ctx, "read")?;
    let number = |key: &str| event.input.get(key).and_then(|v| v.as_u64());
    let lines = secret_files::Lines {
        offset: number("offset"),
        limit: number("limit"),
    };
    secret_files::answer_read(&path, lines).map(ToolCallEventResult::block)
}

/// In the agents of [`REREADING_AGENTS`], blocks an `edit` of a file that holds a secret
/// ([`secret_files::answer_edit`]): the agent would keep the whole edited file, secret
/// included, and show it to the model again after a compaction. The reason tells the model to
/// change the file with a shell command, whose output [`redact_tool_output`] redacts.
#[hook(event = "tool_call")]
pub fn block_secret_edits(event: &ToolCallEvent, ctx: &HookContext) -> Option<ToolCallEventResult> {
    let path = reread_path(event, ctx, "edit")?;
    secret_files::answer_edit(&path).map(ToolCallEventResult::block)
}
