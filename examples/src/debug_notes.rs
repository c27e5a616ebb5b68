//! Debug notes: a `debug-only` custom message after every tool result, and a renderer for them.
//!
//! The notes are shown to the user and kept in the session, but [`crate::filter_context`]
//! removes them from the model's context.

use hookwright::HookApiError;
use hookwright::prelude::*;

/// The custom type of the notes.
pub const DEBUG_ONLY: &str = "debug-only";

/// After every tool that ran, sends a `debug-only` note with the size of its output.
///
/// # Errors
/// When the host has not set up message sending (never in `hooks run`).
#[hook(event = "tool_result")]
pub fn note_tool_output(event: &ToolResultEvent, ctx: &HookContext) -> Result<(), HookApiError> {
    let bytes: usize = event
        .content
        .iter()
        .filter_map(Content::as_text)
        .map(str::len)
        .sum();
    let note = format!(
        "{} {} returned {bytes} bytes of text",
        event.tool_name, event.tool_call_id
    );
    ctx.send_message(
        CustomMessage::new(DEBUG_ONLY, note),
        SendMessageOptions::default(),
    )
}

/// Renders `debug-only` notes as one muted line: `[debug] <text>`.
#[renderer("debug-only")]
pub fn render_debug_note(
    message: &CustomMessage,
    _options: RenderOptions,
    theme: &Theme,
) -> Option<Vec<String>> {
    let text = message.content.to_text();
    Some(vec![
        theme.fg(ThemeColor::Muted, &format!("[debug] {text}")),
    ])
}
