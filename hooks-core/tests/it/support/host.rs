//! A host made of closures (one per host function, `None` where the host has none) and a UI
//! that records what handlers do.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use hookwright::events::CustomMessage;
use hookwright::handler::BoxFuture;
use hookwright::{
    HookUi, Host, Model, NavigateTreeOptions, NewSessionOptions, SendMessageOptions,
    SessionActionResult, SessionActions,
};
use serde_json::Value;

/// A message the host received: the message and its options.
pub type SentMessage = (
    hookwright::events::CustomMessage,
    hookwright::SendMessageOptions,
);
/// An entry the host received: the custom type and its data.
pub type AppendedEntry = (String, Option<Value>);

/// What the host received through `send_message` / `append_entry`.
#[derive(Debug, Clone, Default)]
pub struct HostInbox {
    pub messages: Arc<Mutex<Vec<SentMessage>>>,
    pub entries: Arc<Mutex<Vec<AppendedEntry>>>,
}

/// Sends a custom message for the host.
pub type SendMessageHandler = Arc<dyn Fn(CustomMessage, SendMessageOptions) + Send + Sync>;
/// Persists a custom entry for the host.
pub type AppendEntryHandler = Arc<dyn Fn(&str, Option<Value>) + Send + Sync>;
/// Starts a new session.
pub type NewSessionHandler =
    Arc<dyn Fn(NewSessionOptions) -> BoxFuture<'static, SessionActionResult> + Send + Sync>;
/// Branches from an entry.
pub type BranchHandler =
    Arc<dyn Fn(String) -> BoxFuture<'static, SessionActionResult> + Send + Sync>;
/// Navigates the session tree.
pub type NavigateTreeHandler = Arc<
    dyn Fn(String, NavigateTreeOptions) -> BoxFuture<'static, SessionActionResult> + Send + Sync,
>;
/// A `() -> bool` host query.
pub type BoolFn = Arc<dyn Fn() -> bool + Send + Sync>;

/// A host made of closures, one per host function (`None`: the host does not have it).
#[derive(Clone)]
pub struct TestHost {
    pub agent: Option<&'static str>,
    pub get_model: Arc<dyn Fn() -> Option<Model> + Send + Sync>,
    pub send_message: SendMessageHandler,
    pub append_entry: AppendEntryHandler,
    pub new_session: Option<NewSessionHandler>,
    pub branch: Option<BranchHandler>,
    pub navigate_tree: Option<NavigateTreeHandler>,
    pub is_idle: Option<BoolFn>,
    pub wait_for_idle: Option<Arc<dyn Fn() -> BoxFuture<'static, ()> + Send + Sync>>,
    pub abort: Option<Arc<dyn Fn() + Send + Sync>>,
    pub has_queued_messages: Option<BoolFn>,
    pub ui: Option<Arc<dyn HookUi>>,
    pub has_ui: Option<bool>,
}

#[async_trait]
impl Host for TestHost {
    fn agent(&self) -> Option<&str> {
        self.agent
    }
    fn model(&self) -> Option<Model> {
        (self.get_model)()
    }
    fn send_message(&self, message: CustomMessage, options: SendMessageOptions) {
        (self.send_message)(message, options);
    }
    fn append_entry(&self, custom_type: &str, data: Option<Value>) {
        (self.append_entry)(custom_type, data);
    }
    fn is_idle(&self) -> bool {
        self.is_idle.as_ref().is_none_or(|f| f())
    }
    async fn wait_for_idle(&self) {
        if let Some(f) = &self.wait_for_idle {
            f().await;
        }
    }
    fn abort(&self) {
        if let Some(f) = &self.abort {
            f();
        }
    }
    fn has_queued_messages(&self) -> bool {
        self.has_queued_messages.as_ref().is_some_and(|f| f())
    }
    async fn new_session(&self, options: NewSessionOptions) -> SessionActionResult {
        match &self.new_session {
            Some(f) => f(options).await,
            None => SessionActionResult::default(),
        }
    }
    async fn branch(&self, entry_id: &str) -> SessionActionResult {
        match &self.branch {
            Some(f) => f(entry_id.to_owned()).await,
            None => SessionActionResult::default(),
        }
    }
    async fn navigate_tree(
        &self,
        target_id: &str,
        options: NavigateTreeOptions,
    ) -> SessionActionResult {
        match &self.navigate_tree {
            Some(f) => f(target_id.to_owned(), options).await,
            None => SessionActionResult::default(),
        }
    }
    fn session_actions(&self) -> SessionActions {
        SessionActions {
            new_session: self.new_session.is_some(),
            branch: self.branch.is_some(),
            navigate_tree: self.navigate_tree.is_some(),
        }
    }
    fn ui(&self) -> Option<Arc<dyn HookUi>> {
        self.ui.clone()
    }
    fn has_ui(&self) -> bool {
        self.has_ui.unwrap_or(false)
    }
}

/// A host whose send-message and append-entry handlers record into an inbox, and which has
/// no other host function.
pub fn test_host() -> (TestHost, HostInbox) {
    let inbox = HostInbox::default();
    let messages = Arc::clone(&inbox.messages);
    let entries = Arc::clone(&inbox.entries);
    let host = TestHost {
        agent: None,
        get_model: Arc::new(|| None),
        send_message: Arc::new(move |m, o| messages.lock().unwrap().push((m, o))),
        append_entry: Arc::new(move |t: &str, d| entries.lock().unwrap().push((t.to_owned(), d))),
        new_session: None,
        branch: None,
        navigate_tree: None,
        is_idle: None,
        wait_for_idle: None,
        abort: None,
        has_queued_messages: None,
        ui: None,
        has_ui: None,
    };
    (host, inbox)
}

/// A model value.
pub fn model(id: &str) -> Model {
    Model {
        provider: "anthropic".to_owned(),
        id: id.to_owned(),
        extra: serde_json::Map::new(),
    }
}

/// A UI that records what handlers do; identified by its theme name.
#[derive(Debug)]
pub struct TestUi {
    pub name: String,
    pub confirm_answer: bool,
    pub status: Mutex<hookwright::StatusLine>,
    pub notifications: Mutex<Vec<String>>,
    pub editor_text: Mutex<String>,
}

impl TestUi {
    pub fn new(name: &str) -> Arc<Self> {
        Arc::new(TestUi {
            name: name.to_owned(),
            confirm_answer: true,
            status: Mutex::new(hookwright::StatusLine::default()),
            notifications: Mutex::new(Vec::new()),
            editor_text: Mutex::new(String::new()),
        })
    }
}

#[async_trait]
impl hookwright::HookUi for TestUi {
    async fn select(&self, _title: &str, options: &[String]) -> Option<String> {
        options.first().cloned()
    }
    async fn confirm(&self, _title: &str, _message: &str) -> bool {
        self.confirm_answer
    }
    async fn input(&self, _title: &str, _placeholder: Option<&str>) -> Option<String> {
        Some(format!("input from {}", self.name))
    }
    async fn editor(&self, _title: &str, prefill: Option<&str>) -> Option<String> {
        prefill.map(str::to_owned)
    }
    fn notify(&self, message: &str, _kind: hookwright::ui::NotifyKind) {
        self.notifications.lock().unwrap().push(message.to_owned());
    }
    fn set_status(&self, key: &str, text: Option<&str>) {
        self.status.lock().unwrap().set(key, text);
    }
    async fn custom(&self, request: hookwright::ui::CustomUiRequest) -> Option<Value> {
        Some(request.payload)
    }
    fn set_editor_text(&self, text: &str) {
        *self.editor_text.lock().unwrap() = text.to_owned();
    }
    fn get_editor_text(&self) -> String {
        self.editor_text.lock().unwrap().clone()
    }
    fn theme(&self) -> hookwright::ui::Theme {
        hookwright::ui::Theme {
            name: self.name.clone(),
            color: false,
        }
    }
}
