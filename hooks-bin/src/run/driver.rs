//! Drives one session through the loaded hooks, script step by script step, without a model.
//!
//! A prompt or tool line runs in an agent run ([`super::agent`], `tool_call`);
//! commands, compactions, switches, branches and tree navigations happen between runs (the
//! agent is idle; the session actions are [`super::session`]'s). `session_start` comes first,
//! `session_shutdown` last.
//!
//! Ctrl-C cancels the running tool call, or stops the script (see [`super::interrupt`]).

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use hookwright::context::NavigateTreeOptions;
use hookwright::context::NewSessionOptions;
use hookwright::events::{SessionShutdownEvent, SessionStartEvent, SwitchReason};
use hookwright::{HookRunner, HookToolWrapper};
use serde_json::{Value, json};

use super::agent_run::AgentRun;
use super::host::{DriverHost, Shared};
use super::recorded::Recorded;
use super::script::{Action, EntryRef, Script, Step, split_command};
use crate::run::tools::{BuiltinTool, TOOL_NAMES, Workspace};
use crate::run::ui::HostUi;

/// Drives a script.
pub(crate) struct Driver {
    pub(super) runner: Arc<HookRunner>,
    pub(super) shared: Arc<Shared>,
    pub(super) tools: BTreeMap<&'static str, HookToolWrapper<Recorded>>,
    /// The open agent run, if any.
    pub(super) run: Option<AgentRun>,
}

impl Driver {
    /// Wires `runner` to the host ([`bind`]) and gives it the built-in tools.
    pub(crate) fn new(
        runner: Arc<HookRunner>,
        shared: Arc<Shared>,
        ui: Arc<HostUi>,
        workspace: Arc<Workspace>,
    ) -> Self {
        bind(&runner, Arc::clone(&shared), ui);
        let tools = TOOL_NAMES
            .iter()
            .filter_map(|name| {
                let tool = BuiltinTool::new(name, Arc::clone(&workspace))?;
                let recorded = Recorded {
                    tool,
                    out: Arc::clone(&shared.out),
                    result_handled: runner.has_handlers(hookwright::EventKind::ToolResult),
                    raw: Mutex::new(None),
                };
                Some((*name, HookToolWrapper::new(recorded, Arc::clone(&runner))))
            })
            .collect();
        Driver {
            runner,
            shared,
            tools,
            run: None,
        }
    }

    /// Runs every step; returns how many actions failed.
    pub(crate) async fn drive(&mut self, script: &Script) -> usize {
        self.shared.emit(&SessionStartEvent {}).await;
        self.shared.flush_pending();
        let mut ran = 0;
        for (done, step) in script.steps.iter().enumerate() {
            // Steps without a tool never wait on anything: give the Ctrl-C listener (a task
            // of this single-threaded runtime) its turn, or a Ctrl-C between tools goes unseen.
            tokio::task::yield_now().await;
            if self.shared.interrupts.stop_requested() {
                let left = script.steps.len() - done;
                let s = if left == 1 { "" } else { "s" };
                self.shared.out.interrupt(
                    "stop",
                    &format!("stopped by Ctrl-C: {left} action{s} not run"),
                );
                break;
            }
            self.step(step).await;
            ran += 1;
        }
        self.end_run().await;
        self.shared.out.set_line(0);
        self.shared.emit(&SessionShutdownEvent {}).await;
        self.shared.flush_pending();
        self.shared.out.flush();
        let failed = self.shared.failures.load(Ordering::Relaxed);
        self.shared
            .out
            .end(ran, failed, self.shared.session.file_string().as_deref());
        failed
    }

    async fn step(&mut self, step: &Step) {
        let out = Arc::clone(&self.shared.out);
        if !matches!(step.action, Action::Tool { .. }) {
            // Everything but a tool call happens while the agent is idle: close the open run
            // first (its records belong to the block of the lines before, so this comes
            // before the line changes).
            self.end_run().await;
        }
        out.set_line(step.line);
        match &step.action {
            Action::Prompt { text, reply } => {
                out.action(
                    "prompt",
                    &format!("{text:?}"),
                    json!({"text": text, "reply": reply}),
                );
                let (name, args) = split_command(text);
                if text.trim_start().starts_with('/') && self.runner.get_command(name).is_some() {
                    self.command(name, args).await;
                } else {
                    self.start_run(Some(text), reply.clone()).await;
                }
            }
            Action::Tool { name, input, id } => {
                let input_text = Value::from(input.clone()).to_string();
                out.action(
                    "tool",
                    &format!("{name} {input_text}"),
                    json!({"tool": name, "input": input, "id": id}),
                );
                let id = id.clone().unwrap_or_else(|| format!("call_{}", step.line));
                self.tool_call(name, input, &id).await;
            }
            Action::Command { name, args } => {
                out.action(
                    "command",
                    &format!("/{name} {args}"),
                    json!({"name": name, "args": args}),
                );
                self.command(name, args).await;
            }
            Action::Compact(spec) => {
                out.action(
                    "compact",
                    spec.summary.as_deref().unwrap_or(""),
                    json!({"customInstructions": spec.custom_instructions, "summary": spec.summary}),
                );
                self.shared
                    .compact(spec.custom_instructions.clone(), spec.summary.clone())
                    .await;
            }
            Action::Switch(spec) => {
                let reason = serde_json::to_value(spec.reason).unwrap_or_default();
                out.action(
                    "switch",
                    &format!(
                        "{} {}",
                        reason.as_str().unwrap_or(""),
                        spec.session.as_deref().unwrap_or("")
                    ),
                    json!({"reason": reason, "session": spec.session}),
                );
                match spec.reason {
                    SwitchReason::New => {
                        self.shared.new_session(NewSessionOptions::default()).await;
                    }
                    SwitchReason::Resume => {
                        self.shared
                            .resume(spec.session.as_deref().unwrap_or_default())
                            .await;
                    }
                    SwitchReason::Fork => {
                        self.shared.fork().await;
                    }
                }
            }
            Action::Branch(spec) => {
                out.action(
                    "branch",
                    &entry_text(&spec.entry),
                    json!({"entry": entry_json(&spec.entry)}),
                );
                match self.shared.session.find_entry(&spec.entry) {
                    Ok(entry) => {
                        self.shared.branch(entry.id).await;
                    }
                    Err(e) => self.shared.fail(&e),
                }
            }
            Action::Tree(spec) => {
                out.action(
                    "tree",
                    &entry_text(&spec.target),
                    json!({"target": entry_json(&spec.target), "summarize": spec.summarize}),
                );
                match self.shared.session.find_entry(&spec.target) {
                    Ok(entry) => {
                        let options = NavigateTreeOptions {
                            summarize: spec.summarize,
                        };
                        self.shared.navigate_tree(entry.id, options).await;
                    }
                    Err(e) => self.shared.fail(&e),
                }
            }
        }
        self.shared.flush_pending();
    }

    /// Runs a registered command with a fresh command context.
    async fn command(&mut self, name: &str, args: &str) {
        match self.runner.run_command(name, args).await {
            None => self.shared.fail(&format!(
                "unknown command /{name} (registered: {})",
                self.command_names()
            )),
            Some(Ok(())) => self.shared.out.command(name, args, None),
            Some(Err(e)) => self.shared.out.command(name, args, Some(e.message())),
        }
    }

    fn command_names(&self) -> String {
        let names: Vec<String> = self
            .runner
            .get_registered_commands()
            .iter()
            .map(|c| format!("/{}", c.name))
            .collect();
        if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        }
    }
}

/// Gives `runner` the host functions (send_message, append_entry, new_session, branch,
/// navigate_tree, the idle state, the UI) and the error listener: the one place a run binds
/// its host.
fn bind(runner: &Arc<HookRunner>, shared: Arc<Shared>, ui: Arc<HostUi>) {
    let _ = shared.runner.set(Arc::downgrade(runner));
    runner.initialize(DriverHost {
        shared: Arc::clone(&shared),
        ui,
    });
    let out = Arc::clone(&shared.out);
    // The subscription lives as long as the runner.
    drop(runner.on_error(move |e| out.hook_error(&e.hook_path, &e.event, &e.error)));
}

fn entry_text(entry: &EntryRef) -> String {
    match entry {
        EntryRef::Id(id) => format!("entry {id}"),
        EntryRef::Index(i) => format!("entry #{i}"),
    }
}

fn entry_json(entry: &EntryRef) -> Value {
    match entry {
        EntryRef::Id(id) => Value::from(id.as_str()),
        EntryRef::Index(i) => Value::from(*i),
    }
}
