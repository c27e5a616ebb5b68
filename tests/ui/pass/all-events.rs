//! One handler for each of the 25 events, alternating sync and async, with and without the
//! context, each returning a shape its event accepts.

use hookwright::events::EventKind;
use hookwright::prelude::*;
use hookwright::registry;

#[hook(event = "session_start")]
fn on_session_start(_event: &SessionStartEvent) {}

#[hook(event = "session_before_switch")]
async fn on_session_before_switch(
    _event: &SessionBeforeSwitchEvent,
    _ctx: &HookContext,
) -> Option<SessionBeforeSwitchResult> {
    None
}

#[hook(event = "session_switch")]
fn on_session_switch(_event: &SessionSwitchEvent, _ctx: &HookContext) {}

#[hook(event = "session_before_branch")]
async fn on_session_before_branch(
    _event: &SessionBeforeBranchEvent,
) -> Option<SessionBeforeBranchResult> {
    None
}

#[hook(event = "session_branch")]
fn on_session_branch(_event: &SessionBranchEvent) {}

#[hook(event = "session_before_compact")]
fn on_session_before_compact(
    _event: &SessionBeforeCompactEvent,
) -> Option<SessionBeforeCompactResult> {
    None
}

#[hook(event = "session.compacting")]
async fn on_session_compacting(_event: &SessionCompactingEvent) -> Option<SessionCompactingResult> {
    None
}

#[hook(event = "session_compact")]
async fn on_session_compact(_event: &SessionCompactEvent) {}

#[hook(event = "session_before_tree")]
fn on_session_before_tree(
    _event: &SessionBeforeTreeEvent,
    _ctx: &HookContext,
) -> Option<SessionBeforeTreeResult> {
    None
}

#[hook(event = "session_tree")]
async fn on_session_tree(_event: &SessionTreeEvent, _ctx: &HookContext) {}

#[hook(event = "session_shutdown")]
fn on_session_shutdown(_event: &SessionShutdownEvent) {}

#[hook(event = "context")]
async fn on_context(_event: &ContextEvent) -> Option<ContextEventResult> {
    None
}

#[hook(event = "before_agent_start")]
fn on_before_agent_start(_event: &BeforeAgentStartEvent) -> Option<BeforeAgentStartEventResult> {
    None
}

#[hook(event = "agent_start")]
async fn on_agent_start(_event: &AgentStartEvent) {}

#[hook(event = "agent_end")]
fn on_agent_end(_event: &AgentEndEvent) {}

#[hook(event = "turn_start")]
async fn on_turn_start(_event: &TurnStartEvent, _ctx: &HookContext) {}

#[hook(event = "turn_end")]
fn on_turn_end(_event: &TurnEndEvent) {}

#[hook(event = "auto_compaction_start")]
async fn on_auto_compaction_start(_event: &AutoCompactionStartEvent) {}

#[hook(event = "auto_compaction_end")]
fn on_auto_compaction_end(_event: &AutoCompactionEndEvent, _ctx: &HookContext) {}

#[hook(event = "auto_retry_start")]
async fn on_auto_retry_start(_event: &AutoRetryStartEvent) {}

#[hook(event = "auto_retry_end")]
fn on_auto_retry_end(_event: &AutoRetryEndEvent) {}

#[hook(event = "ttsr_triggered")]
async fn on_ttsr_triggered(_event: &TtsrTriggeredEvent) -> Result<(), String> {
    Ok(())
}

#[hook(event = "todo_reminder")]
fn on_todo_reminder(_event: &TodoReminderEvent) -> anyhow::Result<()> {
    Ok(())
}

#[hook(event = "tool_call")]
async fn on_tool_call(_event: &ToolCallEvent, _ctx: &HookContext) -> Option<ToolCallEventResult> {
    None
}

#[hook(event = "tool_result")]
fn on_tool_result(_event: &ToolResultEvent) -> Option<ToolResultEventResult> {
    None
}

fn main() {
    let events: Vec<&str> = registry::registrations()
        .iter()
        .map(|r| r.event().unwrap())
        .collect();
    let all: Vec<&str> = EventKind::ALL.iter().map(|k| k.as_str()).collect();
    assert_eq!(events, all);
    let hooks = registry::compiled_hooks(std::path::Path::new(".")).unwrap();
    assert_eq!(hooks.len(), 1);
    for kind in EventKind::ALL {
        assert_eq!(hooks[0].handlers.infos(*kind).len(), 1, "{kind}");
    }
}
