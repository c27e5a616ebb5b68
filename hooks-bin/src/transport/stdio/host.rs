//! The agent's side of a session's runner, over the protocol: a [`Host`] and a [`HookUi`]
//! whose methods are requests and notifications to the client, and a [`SessionManager`] that
//! is the agent's session.
//!
//! What the agent answers at once (is it idle, messages queued, the model, the session file)
//! comes with every `emit` and `command` as their `ctx` ([`ClientContext`]), so asking it costs
//! no round trip. What only the agent can do (a dialog, a new session) is a request the server
//! waits for; what needs no answer (a notification, a message to send) is a notification.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use async_trait::async_trait;
use hookwright::events::{CustomMessage, SessionEntry};
use hookwright::session::{SessionManager, branch_path};
use hookwright::ui::{NotifyKind, StatusLine};
use hookwright::{
    HookUi, Host, JsonlSessionStore, Model, NavigateTreeOptions, NewSessionOptions,
    SendMessageOptions, SessionActionResult, SessionActions,
};
use serde::Deserialize;
use serde_json::{Value, json};

use super::peer::Peer;
use crate::sync::Locked as _;

/// What the client says about the agent with each call (the `ctx` param); every field may be
/// left out.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientContext {
    /// The agent's working directory.
    pub cwd: Option<PathBuf>,
    /// The agent's session file (`null` for a session not written to a file).
    pub session_file: Option<PathBuf>,
    /// The agent's session id.
    pub session_id: Option<String>,
    /// The session's current leaf entry.
    pub leaf_id: Option<String>,
    /// Whether the agent has an interactive UI.
    #[serde(default, rename = "hasUI")]
    pub has_ui: bool,
    /// Whether the agent is idle.
    pub idle: Option<bool>,
    /// Whether the agent has messages queued.
    #[serde(default)]
    pub pending_messages: bool,
    /// The model in use.
    pub model: Option<Model>,
}

/// The latest [`ClientContext`] of one session, shared by its host, UI and session manager.
#[derive(Debug, Default)]
pub(crate) struct ClientState {
    ctx: RwLock<ClientContext>,
}

impl ClientState {
    pub(crate) fn new(ctx: ClientContext) -> Arc<Self> {
        Arc::new(ClientState {
            ctx: RwLock::new(ctx),
        })
    }

    /// Replaces the context with the one a call brought.
    pub(crate) fn update(&self, ctx: ClientContext) {
        *crate::sync::write(&self.ctx) = ctx;
    }

    fn read<T>(&self, f: impl FnOnce(&ClientContext) -> T) -> T {
        f(&crate::sync::read(&self.ctx))
    }
}

/// Where a session's requests go: the client, and which session they are for.
#[derive(Clone)]
pub(crate) struct Link {
    pub(crate) peer: Peer,
    pub(crate) session: Arc<str>,
    pub(crate) state: Arc<ClientState>,
}

impl Link {
    fn notify(&self, method: &str, mut params: Value) {
        params["session"] = Value::from(&*self.session);
        self.peer.notify(method, params);
    }

    /// A request; `None` (and a line on stderr) when the client answered an error or is gone:
    /// the caller then answers what an agent without that function does.
    async fn request(&self, method: &str, mut params: Value) -> Option<Value> {
        params["session"] = Value::from(&*self.session);
        match self.peer.request(method, params).await {
            Ok(answer) => Some(answer),
            Err(e) => {
                eprintln!(
                    "hooks serve: {method} for session {} failed: {}",
                    self.session, e.message
                );
                None
            }
        }
    }

    async fn session_action(&self, method: &str, params: Value) -> SessionActionResult {
        let answer = self.request(method, params).await;
        SessionActionResult {
            cancelled: answer.is_none_or(|a| a["cancelled"].as_bool().unwrap_or(true)),
        }
    }
}

/// The host of a session's runner.
pub(crate) struct BridgeHost {
    pub(crate) link: Link,
}

#[async_trait]
impl Host for BridgeHost {
    fn model(&self) -> Option<Model> {
        self.link.state.read(|c| c.model.clone())
    }

    fn send_message(&self, message: CustomMessage, options: SendMessageOptions) {
        self.link.notify(
            "host/sendMessage",
            json!({ "message": message, "options": options }),
        );
    }

    fn append_entry(&self, custom_type: &str, data: Option<Value>) {
        self.link.notify(
            "host/appendEntry",
            json!({ "customType": custom_type, "data": data }),
        );
    }

    fn is_idle(&self) -> bool {
        self.link.state.read(|c| c.idle.unwrap_or(true))
    }

    async fn wait_for_idle(&self) {
        let _ = self.link.request("host/waitForIdle", json!({})).await;
    }

    fn abort(&self) {
        self.link.notify("host/abort", json!({}));
    }

    fn has_queued_messages(&self) -> bool {
        self.link.state.read(|c| c.pending_messages)
    }

    /// The setup callback runs here, on a session kept in memory; the entries it wrote are
    /// sent along, and the client writes them into the agent's new session.
    async fn new_session(&self, options: NewSessionOptions) -> SessionActionResult {
        let cwd = self.link.state.read(|c| c.cwd.clone()).unwrap_or_default();
        let seed = JsonlSessionStore::in_memory(&cwd);
        if let Some(setup) = options.setup
            && let Err(e) = setup(&seed).await
        {
            eprintln!(
                "hooks serve: the new session's setup failed for session {}: {e}; no session was started",
                self.link.session
            );
            return SessionActionResult { cancelled: true };
        }
        let params = json!({ "parentSession": options.parent_session, "setup": seed.entries() });
        self.link.session_action("host/newSession", params).await
    }

    async fn branch(&self, entry_id: &str) -> SessionActionResult {
        self.link
            .session_action("host/branch", json!({ "entryId": entry_id }))
            .await
    }

    async fn navigate_tree(
        &self,
        target_id: &str,
        options: NavigateTreeOptions,
    ) -> SessionActionResult {
        let params = json!({ "targetId": target_id, "summarize": options.summarize });
        self.link.session_action("host/navigateTree", params).await
    }

    fn session_actions(&self) -> SessionActions {
        SessionActions::ALL
    }

    fn ui(&self) -> Option<Arc<dyn HookUi>> {
        Some(Arc::new(BridgeUi {
            link: self.link.clone(),
            status: Mutex::default(),
        }))
    }

    fn has_ui(&self) -> bool {
        self.link.state.read(|c| c.has_ui)
    }
}

/// The UI of a session's runner: the agent's, through the client.
pub(crate) struct BridgeUi {
    link: Link,
    /// The status line as the hooks set it: sent whole with each change, for a client whose
    /// agent shows no status line of its own.
    status: Mutex<StatusLine>,
}

#[async_trait]
impl HookUi for BridgeUi {
    async fn select(&self, title: &str, options: &[String]) -> Option<String> {
        let answer = self
            .link
            .request("ui/select", json!({ "title": title, "options": options }))
            .await?;
        answer.as_str().map(str::to_owned)
    }

    async fn confirm(&self, title: &str, message: &str) -> bool {
        let answer = self
            .link
            .request("ui/confirm", json!({ "title": title, "message": message }))
            .await;
        answer.and_then(|a| a.as_bool()).unwrap_or(false)
    }

    async fn input(&self, title: &str, placeholder: Option<&str>) -> Option<String> {
        let params = json!({ "title": title, "placeholder": placeholder });
        let answer = self.link.request("ui/input", params).await?;
        answer.as_str().map(str::to_owned)
    }

    async fn editor(&self, title: &str, prefill: Option<&str>) -> Option<String> {
        let params = json!({ "title": title, "prefill": prefill });
        let answer = self.link.request("ui/editor", params).await?;
        answer.as_str().map(str::to_owned)
    }

    fn notify(&self, message: &str, kind: NotifyKind) {
        self.link
            .notify("ui/notify", json!({ "message": message, "kind": kind }));
    }

    fn set_status(&self, key: &str, text: Option<&str>) {
        let line = {
            let mut status = self.status.locked();
            status.set(key, text);
            status.render(usize::MAX)
        };
        self.link.notify(
            "ui/setStatus",
            json!({ "key": key, "text": text, "line": line }),
        );
    }

    fn set_editor_text(&self, text: &str) {
        self.link
            .notify("ui/setEditorText", json!({ "text": text }));
    }
}

/// The agent's session as the hooks of a session read it: its file, id, working directory
/// and leaf from the latest [`ClientContext`]; its entries read from the session file (an
/// agent that has not written its file yet has none).
pub(crate) struct BridgeSession {
    pub(crate) state: Arc<ClientState>,
    /// The runner's working directory, when the client named none.
    pub(crate) cwd: PathBuf,
    /// The id when the client named none: the server session's.
    pub(crate) fallback_id: String,
}

impl SessionManager for BridgeSession {
    fn session_file(&self) -> Option<PathBuf> {
        self.state.read(|c| c.session_file.clone())
    }

    fn session_id(&self) -> String {
        self.state
            .read(|c| c.session_id.clone())
            .unwrap_or_else(|| self.fallback_id.clone())
    }

    fn cwd(&self) -> PathBuf {
        self.state
            .read(|c| c.cwd.clone())
            .unwrap_or_else(|| self.cwd.clone())
    }

    fn entries(&self) -> Vec<SessionEntry> {
        self.session_file()
            .map(|file| read_entries(&file))
            .unwrap_or_default()
    }

    fn leaf_id(&self) -> Option<String> {
        self.state
            .read(|c| c.leaf_id.clone())
            .or_else(|| self.entries().last().map(|e| e.id.clone()))
    }

    fn branch_entries(&self) -> Vec<SessionEntry> {
        let entries = self.entries();
        let leaf = self
            .state
            .read(|c| c.leaf_id.clone())
            .or_else(|| entries.last().map(|e| e.id.clone()));
        branch_path(&entries, leaf.as_deref())
    }
}

/// The entries of the session file `path`: every line that is an entry (the header and lines
/// that are not JSON are skipped; a file that cannot be read has none).
fn read_entries(path: &Path) -> Vec<SessionEntry> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|line| serde_json::from_str::<SessionEntry>(line).ok())
        .filter(|e| e.entry_type != "session")
        .collect()
}
