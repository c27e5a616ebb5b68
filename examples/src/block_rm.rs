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
//!
//! Two versions, which differ only in what counts as `rm -rf`:
//!
//! - [`block_rm_rf`], the registered hook and the one to copy, reads the command line as a
//!   shell would ([`command_line`]): `rm -fr`, `rm -r -f`, `rm --recursive --force`, `/bin/rm`,
//!   `sudo rm`, `'rm' '-rf'`, `rm${IFS}-rf`, `x && rm -rf`, `bash -c "rm -rf"` and Codex's
//!   argument vector `["rm", "-r", "-f", "x"]` (`argv`) are all `rm -rf`; `echo "rm -rf"` and
//!   `git rm -rf` are not. It also refuses a call that starts an interactive shell (`bash`,
//!   `python3`, `sudo -i`: [`interactive`]), since what is typed into one later (Codex's
//!   `write_stdin`) reaches no hook, `rm -rf` included.
//! - [`block_rm_rf_upstream`] is the port line by line, kept to show fidelity: its substring
//!   test (`cmd.contains("rm -rf")`) misses every spelling above but the first, so it is not
//!   registered (two guards would ask twice).
//!
//! Either is a speed bump, not a sandbox: a denylist cannot see what a script file, a pipe into
//! `sh` or a program of its own deletes (see [`command_line`]). Confine the agent (a container,
//! a throwaway checkout, the agent's own sandbox) where that matters.

pub mod command_line;
pub mod interactive;
mod simple_commands;

use hookwright::prelude::*;

use command_line::{argv_runs_rm_rf, runs_rm_rf};
use interactive::{argv_starts_interactive_shell, starts_interactive_shell};

/// Guards `bash` calls that run `rm` with a recursive and a force flag, in any spelling
/// ([`runs_rm_rf`] on the command line, [`argv_runs_rm_rf`] on the argument vector `argv` the
/// Codex adapter keeps beside it), and those that start an interactive shell
/// ([`starts_interactive_shell`], [`argv_starts_interactive_shell`]).
///
/// Without an interactive UI an `rm -rf` is blocked with the reason `rm -rf blocked (no UI)`.
/// With one, the user is asked `confirm("Dangerous command", "Allow: <cmd>")`; a refusal blocks
/// the call with `user denied command`, a yes lets it run. An interactive shell is blocked with
/// [`INTERACTIVE_SHELL_BLOCKED`], UI or not: the user cannot judge commands not typed yet.
/// Every other call is left alone.
#[hook(event = "tool_call")]
pub async fn block_rm_rf(event: &ToolCallEvent, ctx: &HookContext) -> Option<ToolCallEventResult> {
    if event.tool_name != "bash" {
        return None;
    }
    let cmd = event.input_str("command").unwrap_or_default();
    let argv: Option<Vec<&str>> = event
        .input
        .get("argv")
        .and_then(|argv| argv.as_array())
        .and_then(|argv| argv.iter().map(|arg| arg.as_str()).collect());
    let argv = argv.as_deref();
    if starts_interactive_shell(cmd) || argv.is_some_and(argv_starts_interactive_shell) {
        return Some(ToolCallEventResult::block(INTERACTIVE_SHELL_BLOCKED));
    }
    if !runs_rm_rf(cmd) && !argv.is_some_and(argv_runs_rm_rf) {
        return None;
    }
    ask_or_block(cmd, ctx).await
}

/// Why [`block_rm_rf`] blocks a call that starts an interactive shell, and what to do instead.
pub const INTERACTIVE_SHELL_BLOCKED: &str = "interactive shell blocked: commands typed into a \
    shell or interpreter after it starts are not checked; run each command directly instead \
    (e.g. bash -c '...', python3 script.py, python3 -c '...')";

/// The port line by line: guards `bash` calls whose command contains `rm -rf`, as
/// [`block_rm_rf`] does (same reasons, same question) but by that substring alone. Not
/// registered; kept to show fidelity to upstream, and as the minimal version of the example.
pub async fn block_rm_rf_upstream(
    event: &ToolCallEvent,
    ctx: &HookContext,
) -> Option<ToolCallEventResult> {
    if event.tool_name != "bash" {
        return None;
    }
    let cmd = event.input_str("command").unwrap_or_default();
    if !cmd.contains("rm -rf") {
        return None;
    }
    ask_or_block(cmd, ctx).await
}

/// Upstream's answer to a dangerous `cmd`: blocked without a UI, else the user is asked.
async fn ask_or_block(cmd: &str, ctx: &HookContext) -> Option<ToolCallEventResult> {
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
