//! A status line: how many tools ran in this session, and the last one. The count is kept in
//! the runner's state ([`HookContext::state`]), so it lasts as long as the session: in
//! `hooks serve`, one count per agent session.

use std::sync::atomic::{AtomicUsize, Ordering};

use hookwright::prelude::*;

/// The status-line key of this hook (segments are shown sorted by key).
pub const STATUS_KEY: &str = "tools";

/// How many tools ran in this session.
#[derive(Debug, Default)]
pub struct ToolsRun(AtomicUsize);

/// Shows `tools run: 0` when a session starts.
#[hook(event = "session_start")]
pub fn reset_tool_count(_event: &SessionStartEvent, ctx: &HookContext) {
    ctx.state::<ToolsRun>().0.store(0, Ordering::Relaxed);
    ctx.ui().set_status(STATUS_KEY, Some("tools run: 0"));
}

/// After every tool that ran, shows `tools run: N · last: <tool> ✓` (`✗` when it failed).
/// Blocked calls never run, so they are not counted.
#[hook(event = "tool_result")]
pub fn count_tools(event: &ToolResultEvent, ctx: &HookContext) {
    let n = ctx.state::<ToolsRun>().0.fetch_add(1, Ordering::Relaxed) + 1;
    let mark = if event.failed() { "✗" } else { "✓" };
    let text = format!("tools run: {n} · last: {} {mark}", event.tool_name);
    ctx.ui().set_status(STATUS_KEY, Some(&text));
}
