//! A status line: how many tools ran in this session, and the last one.

use std::sync::atomic::{AtomicUsize, Ordering};

use hooks_core::prelude::*;

/// The status-line key of this hook (segments are shown sorted by key).
pub const STATUS_KEY: &str = "tools";

static TOOLS_RUN: AtomicUsize = AtomicUsize::new(0);

/// Resets the count and shows `tools run: 0` when a session starts.
#[hook(event = "session_start")]
pub fn reset_tool_count(_event: &SessionStartEvent, ctx: &HookContext) {
    TOOLS_RUN.store(0, Ordering::Relaxed);
    ctx.ui().set_status(STATUS_KEY, Some("tools run: 0"));
}

/// After every tool that ran, shows `tools run: N · last: <tool> ✓` (`✗` when it failed).
/// Blocked calls never run, so they are not counted.
#[hook(event = "tool_result")]
pub fn count_tools(event: &ToolResultEvent, ctx: &HookContext) {
    let n = TOOLS_RUN.fetch_add(1, Ordering::Relaxed) + 1;
    let mark = if event.failed() { "✗" } else { "✓" };
    let text = format!("tools run: {n} · last: {} {mark}", event.tool_name);
    ctx.ui().set_status(STATUS_KEY, Some(&text));
}
