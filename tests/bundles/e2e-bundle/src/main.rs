//! `hooks-e2e`: an author's own `hooks` binary (every command of `hooks`), linking the examples
//! bundle and two more hooks: a `before_agent_start` message, which the e2e suite looks for in
//! the model's request, and a `ttsr_triggered` handler, an event pi cannot deliver (the bridge
//! names it at start). See tests/tests/e2e/scenarios/pi_bridge.rs.

use std::process::ExitCode;

use examples as _;
use hooks_core::prelude::*;

/// The text of the message injected before every agent run.
const INJECTED: &str = "E2E-BEFORE-AGENT-START";

/// Injects a `e2e-context` message (shown) before every agent run.
#[hook(event = "before_agent_start")]
fn inject_context(_event: &BeforeAgentStartEvent) -> BeforeAgentStartEventResult {
    BeforeAgentStartEventResult {
        message: Some(InjectedMessage {
            custom_type: "e2e-context".to_owned(),
            content: MessageContent::Text(INJECTED.to_owned()),
            display: true,
            details: None,
            attribution: None,
        }),
    }
}

/// Notes the rules that fired (oh-my-pi only: pi has no such event).
#[hook(event = "ttsr_triggered")]
fn note_rules(event: &TtsrTriggeredEvent, ctx: &HookContext) {
    ctx.ui().notify(
        &format!("{} rules fired", event.rules.len()),
        NotifyKind::Info,
    );
}

fn main() -> ExitCode {
    hooks_bin::main()
}
