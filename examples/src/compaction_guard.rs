//! Hold compactions while a marker file exists.

use hookwright::prelude::*;

/// The marker file, relative to the session's working directory.
pub const MARKER: &str = ".hooks/hold-compaction";

/// Cancels every compaction while `<cwd>/.hooks/hold-compaction` exists, and says so with a
/// warning notification. Remove the file to let compactions run again.
#[hook(event = "session_before_compact")]
pub fn hold_compaction(
    _event: &SessionBeforeCompactEvent,
    ctx: &HookContext,
) -> Option<SessionBeforeCompactResult> {
    if !ctx.cwd().join(MARKER).exists() {
        return None;
    }
    ctx.ui().notify(
        &format!("compaction held: remove {MARKER} to allow it"),
        NotifyKind::Warning,
    );
    Some(SessionBeforeCompactResult {
        cancel: Some(true),
        ..SessionBeforeCompactResult::default()
    })
}
