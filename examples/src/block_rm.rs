//! Block unsafe bash (SPEC.md section 8, example 1).
//!
//! Upstream:
//!
//! ```text
//! pi.on("tool_call", async (event, ctx) => {
//!   if (event.toolName !== "bash") return;
//!   const cmd = String(event.input.command ?? "");
//!   if (!cmd.includes("rm -rf")) return;
//!   if (!ctx.hasUI) return { block: true, reason: "rm -rf blocked (no UI)" };
//!   const ok = await ctx.ui.confirm("Dangerous command", `Allow: ${cmd}`);
//!   if (!ok) return { block: true, reason: "user denied command" };
//! });
//! ```

use hooks_core::prelude::*;

/// Guards `bash` calls whose command contains `rm -rf`.
///
/// Without an interactive UI the call is blocked with the reason `rm -rf blocked (no UI)`.
/// With one, the user is asked `confirm("Dangerous command", "Allow: <cmd>")`; a refusal blocks
/// the call with `user denied command`, a yes lets it run. Every other call is left alone.
#[hook(event = "tool_call")]
pub async fn block_rm_rf(event: &ToolCallEvent, ctx: &HookContext) -> Option<ToolCallEventResult> {
    if event.tool_name != "bash" {
        return None;
    }
    let cmd = event.input_str("command").unwrap_or_default();
    if !cmd.contains("rm -rf") {
        return None;
    }
    if !ctx.has_ui() {
        return Some(ToolCallEventResult::block("rm -rf blocked (no UI)"));
    }
    let ok = ctx
        .ui()
        .confirm("Dangerous command", &format!("Allow: {cmd}"))
        .await;
    if !ok {
        return Some(ToolCallEventResult::block("user denied command"));
    }
    None
}
