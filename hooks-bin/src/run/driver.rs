//! Drives one session through the loaded hooks, action by action, without a model.
//!
//! # The agent run
//!
//! A `prompt` starts one agent run: `before_agent_start` (its message, if any, is added after the
//! user message), `agent_start`, then the first turn (`turn_start`, `context`). Each following
//! `tool` line is one tool call of that run; the first one happens in the first turn, each later
//! one ends the turn before it (`turn_end`) and starts a new one (`turn_start`, `context`). The run
//! ends at the next line that is not a tool call (or at the end of the script): the tool turn is
//! closed, a last turn gives the scripted assistant reply, `turn_end`, `agent_end`. A `tool` line
//! with no run open starts a run without a prompt (no `before_agent_start`).
//!
//! Commands, compactions, switches, branches and tree navigations happen between runs (the
//! agent is idle). `session_start` comes first, `session_shutdown` last.
//!
//! # The session tree
//!
//! The model's context is built from the current branch of the session (root to leaf), not
//! from every entry in the file. A tree navigation moves the leaf (`Shared::navigate_tree`),
//! so the next prompt continues from the entry navigated to and the messages of the branch
//! left behind are no longer sent. A branch copies the path before an entry into a new session
//! file (`Shared::branch`).
//!
//! Ctrl-C cancels the running tool call, or stops the script (see [`super::interrupt`]).
//!
//! Messages that hooks send with `send_message` are queued and written to the session (and
//! shown) at the next safe point: after the current tool result, before the next `context`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use async_trait::async_trait;

use hooks_core::api::{RenderOptions, SendMessageOptions};
use hooks_core::context::{
    NavigateTreeOptions, NewSessionOptions, SessionActionResult, SessionSetup,
};
use hooks_core::events::{
    AgentEndEvent, AgentStartEvent, AssistantMessage, Combiner, CompactionPreparation,
    CompactionResult, Content, CustomMessage, Extra, HookEvent, Message, SessionBeforeBranchEvent,
    SessionBeforeCompactEvent, SessionBeforeSwitchEvent, SessionBeforeTreeEvent,
    SessionBranchEvent, SessionCompactEvent, SessionCompactingEvent, SessionEntry,
    SessionShutdownEvent, SessionStartEvent, SessionSwitchEvent, SessionTreeEvent, SwitchReason,
    ToolInput, ToolResultMessage, TreePreparation, TurnEndEvent, TurnStartEvent,
};
use hooks_core::session::branch_path;
use hooks_core::tool::UpdateCallback;
use hooks_core::{
    HookRunner, HookToolWrapper, HookUi, Host, JsonlSessionStore, SessionActions, SessionManager,
    SessionWriter, Tool, ToolError, ToolOutput,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::interrupt::Interrupts;
use super::script::{Action, EntryRef, Script, Step, split_command};
use super::session::{CurrentSession, context_messages, message_label};
use super::transcript::{ToolRecord, Transcript};
use crate::tools::{BuiltinTool, TOOL_NAMES, Workspace};
use crate::ui::HostUi;

/// The assistant's reply when a prompt gives none.
pub const DEFAULT_REPLY: &str = "(scripted session: no model)";

/// What the host functions given to the runner share.
pub(crate) struct Shared {
    runner: OnceLock<Weak<HookRunner>>,
    pub(crate) session: Arc<CurrentSession>,
    pub(crate) out: Arc<Transcript>,
    session_dir: PathBuf,
    cwd: PathBuf,
    pending: Mutex<Vec<CustomMessage>>,
    /// Whether no agent run is open (what `ctx.is_idle()` answers).
    idle: AtomicBool,
    /// Actions that could not be carried out.
    failures: AtomicUsize,
    /// Ctrl-C handling.
    pub(crate) interrupts: Arc<Interrupts>,
}

/// The answer of a session action that failed (reported with [`Shared::fail`]): it did not
/// happen, so the hook that asked for it is told so (`cancelled`), not that it succeeded.
const NOT_DONE: SessionActionResult = SessionActionResult { cancelled: true };

impl Shared {
    pub(crate) fn new(
        session: Arc<CurrentSession>,
        out: Arc<Transcript>,
        session_dir: PathBuf,
        cwd: PathBuf,
    ) -> Arc<Self> {
        Arc::new(Shared {
            runner: OnceLock::new(),
            session,
            out,
            session_dir,
            cwd,
            pending: Mutex::new(Vec::new()),
            idle: AtomicBool::new(true),
            failures: AtomicUsize::new(0),
            interrupts: Interrupts::new(),
        })
    }

    fn runner(&self) -> Option<Arc<HookRunner>> {
        self.runner.get().and_then(Weak::upgrade)
    }

    fn fail(&self, message: &str) {
        self.failures.fetch_add(1, Ordering::Relaxed);
        self.out.error(message);
    }

    /// Emits `event` through the generic dispatcher, recording the event and its result (for
    /// the events whose rule answers a handler's result).
    async fn emit<E>(&self, event: &E) -> Option<E::Result>
    where
        E: HookEvent<Rule: Combiner<E, Output = Option<E::Result>>>,
    {
        let runner = self.runner()?;
        self.out.event(E::NAME, runner.has_handlers(E::KIND), event);
        let result = runner.emit(event).await;
        if let Some(result) = &result {
            self.out.result(E::NAME, result);
        }
        result
    }

    /// Appends a message to the current session.
    fn append_message(&self, message: Message) {
        if let Err(e) = self.session.get().append_message(message) {
            self.fail(&e.to_string());
        }
    }

    /// Writes a custom message to the session and shows it (with its renderer, if any).
    fn deliver(&self, message: CustomMessage) {
        let rendered = self
            .runner()
            .filter(|_| message.display)
            .and_then(|runner| {
                let renderer = runner.get_message_renderer(&message.custom_type)?;
                let theme = self.out.theme();
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    renderer(&message, RenderOptions::default(), &theme)
                }))
                .unwrap_or_else(|_| {
                    self.out.hook_error(
                        "(renderer)",
                        "render",
                        &format!("the renderer of `{}` panicked", message.custom_type),
                    );
                    None
                })
            });
        let text = message.content.to_text();
        let value = serde_json::to_value(&message).unwrap_or_default();
        if message.display {
            self.out.message(&value, rendered.as_deref(), &text);
        }
        if let Err(e) = self.session.get().append_custom_message(message) {
            self.fail(&e.to_string());
        }
    }

    /// Delivers the messages hooks sent since the last safe point.
    fn flush_pending(&self) {
        let pending = std::mem::take(
            &mut *self
                .pending
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        for message in pending {
            self.deliver(message);
        }
    }

    /// `session_before_switch` (cancellable), then `switch` builds the new store, which becomes
    /// current, then `session_switch`.
    ///
    /// `setup` (from `new_session`) seeds the new session after it became current and before
    /// `session_switch`.
    async fn switch_to(
        &self,
        reason: SwitchReason,
        target: Option<String>,
        make: impl FnOnce(&Self) -> Result<JsonlSessionStore, String>,
        change: &str,
        setup: Option<SessionSetup>,
    ) -> SessionActionResult {
        let before = SessionBeforeSwitchEvent {
            reason,
            target_session_file: target,
        };
        if self
            .emit(&before)
            .await
            .is_some_and(|r| r.cancel == Some(true))
        {
            self.out.session(change, None, None, true);
            return SessionActionResult { cancelled: true };
        }
        let store = match make(self) {
            Ok(store) => store,
            Err(e) => {
                self.fail(&e);
                return NOT_DONE;
            }
        };
        let file = store
            .session_file()
            .map(|p| p.to_string_lossy().into_owned());
        let parent = store.parent_session();
        let previous = self.session.replace(store);
        for warning in self.session.get().load_warnings() {
            self.out.warning(warning);
        }
        self.out
            .session(change, file.as_deref(), parent.as_deref(), false);
        if let Some(setup) = setup {
            let store = self.session.get();
            if let Err(e) = setup(&*store).await {
                self.out
                    .hook_error("(new_session setup)", "new_session", e.message());
            }
        }
        let after = SessionSwitchEvent {
            reason,
            previous_session_file: previous
                .session_file()
                .map(|p| p.to_string_lossy().into_owned()),
        };
        self.emit(&after).await;
        SessionActionResult::default()
    }

    /// `new_session` (the command context's, and `{"switch": {"reason": "new"}}`).
    pub(crate) async fn new_session(&self, options: NewSessionOptions) -> SessionActionResult {
        let NewSessionOptions {
            parent_session,
            setup,
        } = options;
        self.switch_to(
            SwitchReason::New,
            None,
            |me| {
                JsonlSessionStore::create(&me.session_dir, &me.cwd, parent_session)
                    .map_err(|e| e.to_string())
            },
            "new",
            setup,
        )
        .await
    }

    /// `{"switch": {"reason": "resume", "session": FILE}}`.
    async fn resume(&self, file: &str) -> SessionActionResult {
        let path = self.resolve_session_file(file);
        let target = path.to_string_lossy().into_owned();
        self.switch_to(
            SwitchReason::Resume,
            Some(target),
            |_| JsonlSessionStore::open(&path).map_err(|e| e.to_string()),
            "resume",
            None,
        )
        .await
    }

    /// `{"switch": {"reason": "fork"}}`: a new session file, parent the current one, with a copy
    /// of the current branch.
    async fn fork(&self) -> SessionActionResult {
        self.switch_to(
            SwitchReason::Fork,
            None,
            |me| {
                let current = me.session.get();
                me.copy_into_new(&current.branch_entries(), current.session_file())
            },
            "fork",
            None,
        )
        .await
    }

    /// A new store whose parent is `parent`, holding copies of `entries` (a path, root first)
    /// with their ids, so references between them (`firstKeptEntryId`) still hold.
    fn copy_into_new(
        &self,
        entries: &[SessionEntry],
        parent: Option<PathBuf>,
    ) -> Result<JsonlSessionStore, String> {
        let parent = parent.map(|p| p.to_string_lossy().into_owned());
        let store = JsonlSessionStore::create(&self.session_dir, &self.cwd, parent)
            .map_err(|e| e.to_string())?;
        for entry in entries {
            store.append_copy(entry).map_err(|e| e.to_string())?;
        }
        Ok(store)
    }

    fn resolve_session_file(&self, file: &str) -> PathBuf {
        let path = Path::new(file);
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.session_dir.join(path)
        }
    }

    /// Finds an entry of the current session.
    fn find_entry(&self, entry: &EntryRef) -> Result<SessionEntry, String> {
        let entries = self.session.get().entries();
        let found = match entry {
            EntryRef::Id(id) => entries.iter().find(|e| &e.id == id).cloned(),
            EntryRef::Index(i) => {
                let len = i64::try_from(entries.len()).unwrap_or(i64::MAX);
                let at = if *i < 0 { len + i } else { *i };
                usize::try_from(at)
                    .ok()
                    .and_then(|at| entries.get(at))
                    .cloned()
            }
        };
        found.ok_or_else(|| match entry {
            EntryRef::Id(id) => format!("the current session has no entry with id {id}"),
            EntryRef::Index(i) => format!(
                "the current session has {} entries: index {i} is out of range",
                entries.len()
            ),
        })
    }

    /// `branch`: `session_before_branch` (cancellable), then a new session file (parent: the
    /// current one) holding the conversation before the chosen entry, then `session_branch`.
    ///
    /// As upstream (`createBranchedSession(entry.parentId)`), the new file holds the path from
    /// the root to the chosen entry's parent, with the same ids, on whichever branch the entry
    /// is; the chosen entry itself (typically the user prompt to redo) is not copied. Branching
    /// from a root entry gives an empty session. `skipConversationRestore` has nothing to skip
    /// here: the context is always rebuilt from the session.
    pub(crate) async fn branch(&self, entry_id: String) -> SessionActionResult {
        let before = SessionBeforeBranchEvent {
            entry_id: entry_id.clone(),
        };
        if self
            .emit(&before)
            .await
            .is_some_and(|r| r.cancel == Some(true))
        {
            self.out.session("branch", None, None, true);
            return SessionActionResult { cancelled: true };
        }
        let current = self.session.get();
        let entries = current.entries();
        let Some(entry) = entries.iter().find(|e| e.id == entry_id) else {
            self.fail(&format!(
                "the current session has no entry with id {entry_id}"
            ));
            return SessionActionResult::default();
        };
        let kept = branch_path(&entries, entry.parent_id.as_deref());
        let store = match self.copy_into_new(&kept, current.session_file()) {
            Ok(store) => store,
            Err(e) => {
                self.fail(&e);
                return NOT_DONE;
            }
        };
        let file = store
            .session_file()
            .map(|p| p.to_string_lossy().into_owned());
        let parent = store.parent_session();
        let previous = self.session.replace(store);
        self.out
            .session("branch", file.as_deref(), parent.as_deref(), false);
        self.emit(&SessionBranchEvent {
            previous_session_file: previous
                .session_file()
                .map(|p| p.to_string_lossy().into_owned()),
        })
        .await;
        SessionActionResult::default()
    }

    /// `navigate_tree`: `session_before_tree` (cancellable; a hook may supply the summary),
    /// then the leaf moves to the target (with a `branch_summary` entry written as the
    /// target's child when a summary is asked for), then `session_tree`.
    ///
    /// The [`TreePreparation`]: `oldLeafId` is the current leaf, `commonAncestorId` the
    /// deepest entry on both the old branch and the target's, `entriesToSummarize` the old
    /// branch's entries after that ancestor (root first). A cancel moves nothing. A summary is
    /// written only when `summarize` was asked for and there is something to summarize (or a
    /// hook supplied one); the hook's `summary` wins over the built-in (model-less) one. The
    /// summary entry (`fromId`: the target, as upstream's `branchWithSummary`) becomes the new
    /// leaf. Navigating to the current leaf does nothing (no events), as upstream.
    ///
    /// Unlike upstream's interactive `/tree`, selecting a user message does not move the leaf
    /// to its parent to re-edit the prompt: the leaf is the entry named.
    pub(crate) async fn navigate_tree(
        &self,
        target_id: String,
        options: NavigateTreeOptions,
    ) -> SessionActionResult {
        let current = self.session.get();
        let entries = current.entries();
        if !entries.iter().any(|e| e.id == target_id) {
            self.fail(&format!(
                "the current session has no entry with id {target_id}"
            ));
            return SessionActionResult::default();
        }
        let old_leaf = current.leaf_id();
        if old_leaf.as_deref() == Some(target_id.as_str()) {
            self.out.tree(
                false,
                old_leaf.as_deref(),
                &target_id,
                old_leaf.as_deref(),
                None,
            );
            return SessionActionResult::default();
        }
        let old_path = branch_path(&entries, old_leaf.as_deref());
        let target_path = branch_path(&entries, Some(&target_id));
        let common = target_path
            .iter()
            .rev()
            .find(|t| old_path.iter().any(|o| o.id == t.id))
            .map(|e| e.id.clone());
        let split = common
            .as_ref()
            .and_then(|c| old_path.iter().position(|e| &e.id == c))
            .map_or(0, |i| i + 1);
        let to_summarize = old_path[split..].to_vec();
        let before = SessionBeforeTreeEvent {
            preparation: TreePreparation {
                target_id: target_id.clone(),
                old_leaf_id: old_leaf.clone(),
                common_ancestor_id: common,
                entries_to_summarize: to_summarize.clone(),
                user_wants_summary: options.summarize,
            },
            signal: CancellationToken::new(),
        };
        let result = self.emit(&before).await;
        if result.as_ref().is_some_and(|r| r.cancel == Some(true)) {
            self.out.tree(
                true,
                old_leaf.as_deref(),
                &target_id,
                old_leaf.as_deref(),
                None,
            );
            return SessionActionResult { cancelled: true };
        }
        if let Err(e) = current.set_leaf(Some(&target_id)) {
            self.fail(&e.to_string());
            return NOT_DONE;
        }
        let hook_summary = result.and_then(|r| r.summary).filter(|_| options.summarize);
        let mut summary_entry = None;
        let mut from_extension = None;
        if options.summarize && (hook_summary.is_some() || !to_summarize.is_empty()) {
            from_extension = Some(hook_summary.is_some());
            let (summary, details) = match hook_summary {
                Some(s) => (s.summary, s.details),
                None => (
                    format!(
                        "Left a branch of {} entries (scripted session: no model summary).",
                        to_summarize.len()
                    ),
                    None,
                ),
            };
            let mut fields = Extra::new();
            fields.insert("fromId".to_owned(), Value::from(target_id.as_str()));
            fields.insert("summary".to_owned(), Value::from(summary));
            if let Some(details) = details {
                fields.insert("details".to_owned(), details);
            }
            fields.insert(
                "fromHook".to_owned(),
                Value::from(from_extension == Some(true)),
            );
            match current.append_entry("branch_summary", fields) {
                Ok(entry) => summary_entry = Some(entry),
                Err(e) => self.fail(&e.to_string()),
            }
        }
        let new_leaf = current.leaf_id();
        self.out.tree(
            false,
            old_leaf.as_deref(),
            &target_id,
            new_leaf.as_deref(),
            summary_entry.as_ref().map(|e| e.id.as_str()),
        );
        self.emit(&SessionTreeEvent {
            new_leaf_id: new_leaf,
            old_leaf_id: old_leaf,
            summary_entry,
            from_extension,
        })
        .await;
        SessionActionResult::default()
    }

    /// A compaction: `session_before_compact` (cancellable; a hook may supply the compaction),
    /// otherwise `session.compacting` and the built-in, model-less summary; then the compaction
    /// entry and `session_compact`.
    async fn compact(&self, custom_instructions: Option<String>, summary: Option<String>) {
        let current = self.session.get();
        let branch = current.branch_entries();
        // Keep the last user prompt and what follows it; summarise what came before.
        let keep_from = branch
            .iter()
            .rposition(|e| {
                e.entry_type == "message"
                    && e.extra.get("message").and_then(|m| m.get("role")) == Some(&json!("user"))
            })
            .unwrap_or(branch.len().saturating_sub(1));
        let first_kept = branch
            .get(keep_from)
            .map(|e| e.id.clone())
            .unwrap_or_default();
        let to_summarize: Vec<Message> = branch[..keep_from]
            .iter()
            .filter_map(super::session::entry_message)
            .collect();
        let recent: Vec<Message> = branch[keep_from..]
            .iter()
            .filter_map(super::session::entry_message)
            .collect();
        let tokens_before = branch
            .iter()
            .map(|e| serde_json::to_string(&e.extra).map_or(0, |s| s.len() as u64 / 4))
            .sum();
        // The branch's last compaction: hooks get its summary and preserved data (upstream's
        // `previousSummary`, `previousPreserveData`), and the built-in summary keeps its text.
        let previous = branch.iter().rev().find(|e| e.entry_type == "compaction");
        let previous_summary = previous
            .and_then(|e| e.extra.get("summary"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let previous_preserve_data = previous
            .and_then(|e| e.extra.get("preserveData"))
            .and_then(Value::as_object)
            .cloned();
        let before = SessionBeforeCompactEvent {
            preparation: CompactionPreparation {
                first_kept_entry_id: first_kept.clone(),
                messages_to_summarize: to_summarize.clone(),
                turn_prefix_messages: Vec::new(),
                recent_messages: recent,
                is_split_turn: false,
                tokens_before,
                previous_summary: previous_summary.clone(),
                previous_preserve_data,
                file_ops: json!({}),
                settings: json!({}),
                extra: Extra::new(),
            },
            branch_entries: branch.clone(),
            custom_instructions,
            signal: CancellationToken::new(),
        };
        let result = self.emit(&before).await;
        if result.as_ref().is_some_and(|r| r.cancel == Some(true)) {
            self.out.compaction(true, false, None, None);
            return;
        }
        let (compaction, from_extension) = match result.and_then(|r| r.compaction) {
            Some(c) => (c, true),
            None => {
                let compacting = SessionCompactingEvent {
                    session_id: current.session_id(),
                    messages: to_summarize.clone(),
                };
                let extra = self.emit(&compacting).await.unwrap_or_default();
                let mut text = summary.unwrap_or_else(|| {
                    format!(
                        "Summary of {} earlier messages (scripted session: no model).",
                        to_summarize.len()
                    )
                });
                if let Some(previous) = previous_summary {
                    text.push_str("\n\nPrevious summary:\n");
                    text.push_str(&previous);
                }
                if let Some(lines) = extra.context.filter(|l| !l.is_empty()) {
                    text.push_str("\n\nAdditional context:\n");
                    text.push_str(
                        &lines
                            .iter()
                            .map(|l| format!("- {l}"))
                            .collect::<Vec<_>>()
                            .join("\n"),
                    );
                }
                (
                    CompactionResult {
                        summary: text,
                        short_summary: None,
                        first_kept_entry_id: first_kept,
                        tokens_before,
                        details: extra.prompt.map(|p| json!({"prompt": p})),
                        preserve_data: extra.preserve_data,
                    },
                    false,
                )
            }
        };
        let mut fields = match serde_json::to_value(&compaction) {
            Ok(Value::Object(map)) => map,
            _ => Extra::new(),
        };
        fields.insert("fromHook".to_owned(), Value::from(from_extension));
        let entry = match current.append_entry("compaction", fields) {
            Ok(entry) => entry,
            Err(e) => {
                self.fail(&e.to_string());
                return;
            }
        };
        self.out.compaction(
            false,
            from_extension,
            Some(&entry.id),
            Some(&compaction.summary),
        );
        self.emit(&SessionCompactEvent {
            compaction_entry: entry,
            from_extension,
        })
        .await;
    }
}

/// A tool that keeps what the real tool returned, before `tool_result` handlers change it, and
/// records the `tool_result` event the wrapper is about to emit.
struct Recorded {
    tool: BuiltinTool,
    out: Arc<Transcript>,
    result_handled: bool,
    raw: Mutex<Option<Result<ToolOutput, ToolError>>>,
}

impl Recorded {
    fn take(&self) -> Option<Result<ToolOutput, ToolError>> {
        self.raw
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }
}

impl Tool for Recorded {
    fn name(&self) -> &str {
        self.tool.name()
    }
    fn description(&self) -> &str {
        self.tool.description()
    }
    fn parameters(&self) -> &Value {
        self.tool.parameters()
    }
    async fn execute(
        &self,
        call_id: &str,
        input: &ToolInput,
        cancel: &CancellationToken,
        on_update: Option<&UpdateCallback>,
    ) -> Result<ToolOutput, ToolError> {
        let out = self.tool.execute(call_id, input, cancel, on_update).await;
        let (content, details, is_error) = match &out {
            Ok(o) => (o.content.clone(), o.details.clone(), false),
            Err(e) => (vec![Content::text(e.to_string())], None, true),
        };
        self.out.event(
            "tool_result",
            self.result_handled,
            &hooks_core::events::ToolResultEvent {
                tool_name: self.tool.name().to_owned(),
                tool_call_id: call_id.to_owned(),
                input: input.clone(),
                content,
                details,
                is_error: Some(is_error),
                is_warning: None,
            },
        );
        *self
            .raw
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(out.clone());
        out
    }
}

/// The state of the open agent run.
#[derive(Default)]
struct AgentRun {
    turn: u64,
    /// Whether the current turn already made its tool call.
    turn_has_tool: bool,
    turn_message: Option<Message>,
    turn_results: Vec<ToolResultMessage>,
    messages: Vec<Message>,
    reply: Option<String>,
}

/// The runner's host: messages go to the pending queue, entries to the transcript and the
/// session, the session actions to the driver, and the UI is `hooks run`'s.
struct DriverHost {
    shared: Arc<Shared>,
    ui: Arc<HostUi>,
}

#[async_trait]
impl Host for DriverHost {
    fn send_message(&self, message: CustomMessage, _options: SendMessageOptions) {
        self.shared
            .pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(message);
    }

    fn append_entry(&self, custom_type: &str, data: Option<Value>) {
        self.shared.out.entry(custom_type, data.as_ref());
        if let Err(e) = self
            .shared
            .session
            .get()
            .append_custom_entry(custom_type, data)
        {
            self.shared.fail(&e.to_string());
        }
    }

    fn is_idle(&self) -> bool {
        self.shared.idle.load(Ordering::Relaxed)
    }

    async fn new_session(&self, options: NewSessionOptions) -> SessionActionResult {
        self.shared.new_session(options).await
    }

    async fn branch(&self, entry_id: &str) -> SessionActionResult {
        self.shared.branch(entry_id.to_owned()).await
    }

    async fn navigate_tree(
        &self,
        target_id: &str,
        options: NavigateTreeOptions,
    ) -> SessionActionResult {
        self.shared
            .navigate_tree(target_id.to_owned(), options)
            .await
    }

    fn session_actions(&self) -> SessionActions {
        SessionActions::ALL
    }

    fn ui(&self) -> Option<Arc<dyn HookUi>> {
        Some(Arc::clone(&self.ui) as Arc<dyn HookUi>)
    }

    fn has_ui(&self) -> bool {
        self.ui.interactive()
    }
}

/// Drives a script.
pub(crate) struct Driver {
    runner: Arc<HookRunner>,
    shared: Arc<Shared>,
    tools: BTreeMap<&'static str, HookToolWrapper<Recorded>>,
    run: Option<AgentRun>,
}

impl Driver {
    /// Wires `runner` to the host: send_message, append_entry, new_session, branch,
    /// navigate_tree, the UI and the error listener.
    pub(crate) fn new(
        runner: Arc<HookRunner>,
        shared: Arc<Shared>,
        ui: Arc<HostUi>,
        workspace: Arc<Workspace>,
    ) -> Self {
        let _ = shared.runner.set(Arc::downgrade(&runner));
        runner.initialize(DriverHost {
            shared: Arc::clone(&shared),
            ui,
        });
        let out = Arc::clone(&shared.out);
        // The subscription lives as long as the runner.
        drop(runner.on_error(move |e| out.hook_error(&e.hook_path, &e.event, &e.error)));
        let tools = TOOL_NAMES
            .iter()
            .filter_map(|name| {
                let tool = BuiltinTool::new(name, Arc::clone(&workspace))?;
                let recorded = Recorded {
                    tool,
                    out: Arc::clone(&shared.out),
                    result_handled: runner.has_handlers(hooks_core::EventKind::ToolResult),
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
                match self.shared.find_entry(&spec.entry) {
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
                match self.shared.find_entry(&spec.target) {
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

    /// `before_agent_start` (with a prompt), `agent_start`, and the first turn.
    async fn start_run(&mut self, prompt: Option<&str>, reply: Option<String>) {
        let mut run = AgentRun {
            reply,
            ..AgentRun::default()
        };
        if let Some(prompt) = prompt {
            let event = hooks_core::events::BeforeAgentStartEvent {
                prompt: prompt.to_owned(),
                images: None,
            };
            self.shared.out.event(
                "before_agent_start",
                self.runner
                    .has_handlers(hooks_core::EventKind::BeforeAgentStart),
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
    async fn begin_turn(&mut self) {
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
            self.runner.has_handlers(hooks_core::EventKind::Context),
            &hooks_core::events::ContextEvent {
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
                &hooks_core::events::ContextEventResult {
                    messages: Some(sent.clone()),
                },
            );
        }
        self.shared.out.context(before, sent.len(), &removed);
    }

    /// `turn_end` of the current turn.
    async fn end_turn(&mut self) {
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
    async fn end_run(&mut self) {
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

    /// One tool call through [`HookToolWrapper`].
    async fn tool_call(&mut self, name: &str, input: &ToolInput, id: &str) {
        if self.run.is_none() {
            self.start_run(None, None).await;
        } else if self.run.as_ref().is_some_and(|r| r.turn_has_tool) {
            self.end_turn().await;
            self.begin_turn().await;
        }
        let call = Message::Assistant(AssistantMessage {
            content: vec![Content::Other(json!({
                "type": "toolCall",
                "id": id,
                "name": name,
                "arguments": input,
            }))],
            timestamp: Some(now_ms()),
            extra: Extra::new(),
        });
        self.shared.append_message(call.clone());
        let Some(tool) = self.tools.get(name) else {
            self.shared.fail(&format!("unknown tool {name}"));
            return;
        };
        let call_event = hooks_core::events::ToolCallEvent {
            tool_name: name.to_owned(),
            tool_call_id: id.to_owned(),
            input: input.clone(),
        };
        let handled = self.runner.has_handlers(hooks_core::EventKind::ToolCall);
        self.shared.out.event("tool_call", handled, &call_event);
        let cancel = CancellationToken::new();
        let running = self
            .shared
            .interrupts
            .tool_running(format!("{name} {id}"), cancel.clone());
        let outcome = tool.execute(id, input, &cancel, None).await;
        drop(running);
        let raw = tool.inner().take();
        let record = match &outcome {
            Ok(output) => ToolRecord {
                tool: name.to_owned(),
                tool_call_id: id.to_owned(),
                status: "ok",
                changed_by_hooks: raw
                    .as_ref()
                    .and_then(|r| r.as_ref().ok())
                    .is_some_and(|r| r.content != output.content || r.details != output.details),
                content: output.content.clone(),
                details: output.details.clone(),
                reason: None,
            },
            Err(error) => {
                let status = match error {
                    ToolError::Blocked { .. } | ToolError::Hook(_) => "blocked",
                    ToolError::Cancelled => "cancelled",
                    _ => "error",
                };
                ToolRecord {
                    tool: name.to_owned(),
                    tool_call_id: id.to_owned(),
                    status,
                    changed_by_hooks: false,
                    content: vec![Content::text(error.to_string())],
                    details: None,
                    reason: Some(error.to_string()),
                }
            }
        };
        self.shared.out.tool_result(&record);
        let result = ToolResultMessage {
            tool_call_id: id.to_owned(),
            tool_name: name.to_owned(),
            content: record.content.clone(),
            details: record.details.clone(),
            is_error: record.status != "ok",
            timestamp: Some(now_ms()),
            extra: Extra::new(),
        };
        self.shared
            .append_message(Message::ToolResult(result.clone()));
        if let Some(run) = &mut self.run {
            run.turn_has_tool = true;
            run.turn_message = Some(call.clone());
            run.messages.push(call);
            run.messages.push(Message::ToolResult(result.clone()));
            run.turn_results.push(result);
        }
    }
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

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
