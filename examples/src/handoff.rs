//! The `/handoff` slash command (SPEC.md section 8, example 4).
//!
//! Upstream:
//!
//! ```text
//! pi.registerCommand("handoff", {
//!   description: "Create a new session with setup message",
//!   handler: async (_args, ctx) => {
//!     await ctx.waitForIdle();
//!     await ctx.newSession({
//!       parentSession: ctx.sessionManager.getSessionFile(),
//!       setup: async sm => {
//!         sm.appendMessage({
//!           role: "user",
//!           content: [{ type: "text", text: "Continue from prior session summary." }],
//!           timestamp: Date.now(),
//!         });
//!       },
//!     });
//!   },
//! });
//! ```

use std::time::{SystemTime, UNIX_EPOCH};

use hookwright::prelude::*;

/// The message the new session starts with.
pub const SETUP_MESSAGE: &str = "Continue from prior session summary.";

/// `/handoff`: hands the work over to a fresh session.
///
/// Waits until the agent is idle, then starts a new session whose parent is the current
/// session file, seeded with the user message "Continue from prior session summary.". The
/// arguments are ignored.
#[command("handoff", description = "Create a new session with setup message")]
pub async fn handoff(_args: &str, ctx: &CommandContext) {
    ctx.wait_for_idle().await;
    let parent_session = ctx
        .session_manager()
        .session_file()
        .map(|p| p.to_string_lossy().into_owned());
    ctx.new_session(NewSessionOptions {
        parent_session,
        setup: Some(Box::new(|sm| {
            Box::pin(async move {
                sm.append_message(Message::User(UserMessage {
                    content: MessageContent::Parts(vec![Content::text(SETUP_MESSAGE)]),
                    timestamp: Some(now_ms()),
                    extra: Extra::new(),
                }))
                .map_err(HandlerError::new)?;
                Ok(())
            })
        })),
    })
    .await;
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
