//! The agent run of a prompt: its turns, the `context` sent to the model, the scripted reply.
//!
//! A `prompt` starts one agent run: `before_agent_start` (its message, if any, is added after the
//! user message), `agent_start`, then the first turn (`turn_start`, `context`). Each following
//! `tool` line is one tool call of that run (`tool_call`); the first one happens in the
//! first turn, each later one ends the turn before it (`turn_end`) and starts a new one
//! (`turn_start`, `context`). The run ends at the next line that is not a tool call (or at the
//! end of the script): the tool turn is closed, a last turn gives the scripted assistant reply,
//! `turn_end`, `agent_end`. A `tool` line with no run open starts a run without a prompt (no
//! `before_agent_start`).

use std::sync::atomic::Ordering;

use hookwright::events::{
    AgentEndEvent, AgentStartEvent, AssistantMessage, Content, CustomMessage, Extra, Message,
    TurnEndEvent, TurnStartEvent,
};

use super::agent_run::{AgentRun, now_ms};
use super::driver::Driver;
use super::session::{context_messages, message_label};

/// The assistant's reply when a prompt gives none.
pub const DEFAULT_REPLY: &str = "(scripted session: no model)";

impl Driver {
    /// `before_agent_start` (with a prompt), `agent_start`, and the first turn.
    pub(super) async fn start_run(&mut self, prompt: Option<&str>, reply: Option<String>) {
        let mut run = AgentRun {
            reply,
            ..AgentRun::default()
        };
        if let Some(prompt) = prompt {
            let event = hookwright::events::BeforeAgentStartEvent {
                prompt: prompt.to_owned(),
                images: None,
            };
            self.shared.out.event(
                "before_agent_start",
                self.runner
                    .has_handlers(hookwright::EventKind::BeforeAgentStart),
                &event,
            );
            let result = self.runner.emit_before_agent_start(prompt, None).await;
            let user = Message::user(prompt);
            run.messages.push(user.clone());
            self.shared.append_message(user);
            if let Some(result) = result {
                self.shared.out.result("before_agent_start", &result);
                if let Some(injected) = result.message {
                    let message = CustomMessage {
                        custom_type: injected.custom_type,
                        content: injected.content,
                        display: injected.display,
                        details: injected.details,
                        attribution: injected.attribution,
                        timestamp: None,
                        extra: Extra::new(),
                    };
                    run.messages.push(Message::Custom(message.clone()));
                    self.shared.deliver(message);
                }
            }
        }
        self.shared.idle.store(false, Ordering::Relaxed);
        self.shared.emit(&AgentStartEvent {}).await;
        self.run = Some(run);
        self.begin_turn().await;
    }

    /// `turn_start`, pending messages, then `context` over the session's messages.
    pub(super) async fn begin_turn(&mut self) {
        let Some(run) = &mut self.run else { return };
        run.turn_has_tool = false;
        run.turn_message = None;
        run.turn_results.clear();
        let turn_index = run.turn;
        self.shared
            .emit(&TurnStartEvent {
                turn_index,
                timestamp: now_ms(),
            })
            .await;
        self.shared.flush_pending();
        let messages = context_messages(&*self.shared.session);
        self.shared.out.event(
            "context",
            self.runner.has_handlers(hookwright::EventKind::Context),
            &hookwright::events::ContextEvent {
                messages: messages.clone(),
            },
        );
        let before = messages.len();
        let sent = self.runner.emit_context(messages.clone()).await;
        let mut removed: Vec<String> = Vec::new();
        if sent != messages {
            // Which messages the handlers took out (quadratic: only when they changed any).
            let mut remaining = sent.clone();
            for message in &messages {
                if let Some(i) = remaining.iter().position(|m| m == message) {
                    remaining.remove(i);
                } else {
                    removed.push(message_label(message));
                }
            }
            self.shared.out.result(
                "context",
                &hookwright::events::ContextEventResult {
                    messages: Some(sent.clone()),
                },
            );
        }
        self.shared.out.context(before, sent.len(), &removed);
    }

    /// `turn_end` of the current turn.
    pub(super) async fn end_turn(&mut self) {
        let Some(run) = &mut self.run else { return };
        let message = run.turn_message.take().unwrap_or_else(|| {
            Message::Assistant(AssistantMessage {
                content: Vec::new(),
                timestamp: None,
                extra: Extra::new(),
            })
        });
        let event = TurnEndEvent {
            turn_index: run.turn,
            message,
            tool_results: std::mem::take(&mut run.turn_results),
        };
        run.turn += 1;
        self.shared.emit(&event).await;
    }

    /// Closes the open run: the tool turn, a last turn with the reply, `agent_end`.
    pub(super) async fn end_run(&mut self) {
        let Some(run) = &self.run else { return };
        if run.turn_has_tool {
            self.end_turn().await;
            self.begin_turn().await;
        }
        let Some(run) = &mut self.run else { return };
        let reply = run.reply.take().unwrap_or_else(|| DEFAULT_REPLY.to_owned());
        let message = Message::Assistant(AssistantMessage {
            content: vec![Content::text(reply.clone())],
            timestamp: Some(now_ms()),
            extra: Extra::new(),
        });
        run.messages.push(message.clone());
        run.turn_message = Some(message.clone());
        self.shared.out.assistant(&reply);
        self.shared.append_message(message);
        self.end_turn().await;
        let Some(run) = self.run.take() else { return };
        self.shared
            .emit(&AgentEndEvent {
                messages: run.messages,
            })
            .await;
        self.shared.idle.store(true, Ordering::Relaxed);
        self.shared.flush_pending();
    }
}
