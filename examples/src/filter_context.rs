//! Filter the model context (SPEC.md section 8, example 3).
//!
//! Upstream:
//!
//! ```text
//! pi.on("context", async event => {
//!   const filtered = event.messages.filter(msg => !(msg.role === "custom" && msg.customType === "debug-only"));
//!   return { messages: filtered };
//! });
//! ```

use hookwright::prelude::*;

/// Keeps `debug-only` messages away from the model.
///
/// Before every model call, drops each message with role `custom` and customType `debug-only`
/// (see [`crate::debug_notes`], which writes such messages); every other message is passed on
/// unchanged and in order. The messages stay in the session and the transcript.
#[hook(event = "context")]
pub fn drop_debug_only(event: &ContextEvent) -> ContextEventResult {
    let filtered = event
        .messages
        .iter()
        .filter(|msg| !(msg.role() == "custom" && msg.custom_type() == Some("debug-only")))
        .cloned()
        .collect();
    ContextEventResult {
        messages: Some(filtered),
    }
}
