//! The contexts handlers receive: [`HookContext`] for event handlers and [`CommandContext`]
//! for command handlers (SPEC-DETAILS section 3), and the host bindings behind them.

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::api::{HookApiError, SendMessageOptions};
use crate::events::{CustomMessage, Extra};
use crate::exec::{ExecError, ExecOptions, ExecResult, exec_command};
use crate::handler::{BoxFuture, HandlerError};
use crate::session::{SessionManager, SessionWriter};
use crate::ui::{HookUi, NoUi};

/// The model in use (`Model`), as the host describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Model {
    /// The provider, e.g. `anthropic`.
    pub provider: String,
    /// The model id.
    pub id: String,
    /// Other fields, kept.
    #[serde(flatten)]
    pub extra: Extra,
}

/// What `new_session`, `branch` and `navigate_tree` answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionActionResult {
    /// Whether the action did not happen: a hook (or the user) cancelled it, or the host
    /// could not carry it out (a session file that cannot be written, say; the host reports
    /// why).
    pub cancelled: bool,
}

/// A callback that seeds a new session (`setup`).
pub type SessionSetup = Box<
    dyn for<'a> FnOnce(&'a dyn SessionWriter) -> BoxFuture<'a, Result<(), HandlerError>> + Send,
>;

/// Options of [`CommandContext::new_session`].
#[derive(Default)]
pub struct NewSessionOptions {
    /// The session file the new session continues from.
    pub parent_session: Option<String>,
    /// Seeds the new session before it is used.
    pub setup: Option<SessionSetup>,
}

impl std::fmt::Debug for NewSessionOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewSessionOptions")
            .field("parent_session", &self.parent_session)
            .field("setup", &self.setup.as_ref().map(|_| "<fn>"))
            .finish()
    }
}

/// Options of [`CommandContext::navigate_tree`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NavigateTreeOptions {
    /// Whether to summarize the branch left behind.
    pub summarize: bool,
}

/// Sends a custom message for the host (`SendMessageHandler`).
pub type SendMessageHandler = Arc<dyn Fn(CustomMessage, SendMessageOptions) + Send + Sync>;
/// Persists a custom entry for the host (`AppendEntryHandler`).
pub type AppendEntryHandler = Arc<dyn Fn(&str, Option<Value>) + Send + Sync>;
/// Starts a new session (`NewSessionHandler`).
pub type NewSessionHandler =
    Arc<dyn Fn(NewSessionOptions) -> BoxFuture<'static, SessionActionResult> + Send + Sync>;
/// Branches from an entry (`BranchHandler`).
pub type BranchHandler =
    Arc<dyn Fn(String) -> BoxFuture<'static, SessionActionResult> + Send + Sync>;
/// Navigates the session tree (`NavigateTreeHandler`).
pub type NavigateTreeHandler = Arc<
    dyn Fn(String, NavigateTreeOptions) -> BoxFuture<'static, SessionActionResult> + Send + Sync,
>;
/// A `() -> bool` host query.
pub type BoolFn = Arc<dyn Fn() -> bool + Send + Sync>;
/// Waits until the agent is idle.
pub type WaitFn = Arc<dyn Fn() -> BoxFuture<'static, ()> + Send + Sync>;
/// Aborts the current agent run.
pub type AbortFn = Arc<dyn Fn() + Send + Sync>;
/// Returns the current model.
pub type GetModelFn = Arc<dyn Fn() -> Option<Model> + Send + Sync>;

/// The host functions and UI a runner currently has (set by `HookRunner::initialize`).
#[derive(Clone)]
pub(crate) struct Bindings {
    pub(crate) get_model: GetModelFn,
    pub(crate) send_message: Option<SendMessageHandler>,
    pub(crate) append_entry: Option<AppendEntryHandler>,
    pub(crate) new_session: NewSessionHandler,
    pub(crate) branch: BranchHandler,
    pub(crate) navigate_tree: NavigateTreeHandler,
    pub(crate) is_idle: BoolFn,
    pub(crate) wait_for_idle: WaitFn,
    pub(crate) abort: AbortFn,
    pub(crate) has_queued_messages: BoolFn,
    pub(crate) ui: Arc<dyn HookUi>,
    pub(crate) has_ui: bool,
}

impl Default for Bindings {
    fn default() -> Self {
        Bindings {
            get_model: Arc::new(|| None),
            send_message: None,
            append_entry: None,
            new_session: default_new_session(),
            branch: Arc::new(|_| Box::pin(async { SessionActionResult::default() })),
            navigate_tree: Arc::new(|_, _| Box::pin(async { SessionActionResult::default() })),
            is_idle: default_is_idle(),
            wait_for_idle: default_wait_for_idle(),
            abort: default_abort(),
            has_queued_messages: default_has_queued_messages(),
            ui: Arc::new(NoUi),
            has_ui: false,
        }
    }
}

pub(crate) fn default_new_session() -> NewSessionHandler {
    Arc::new(|_| Box::pin(async { SessionActionResult::default() }))
}
pub(crate) fn default_is_idle() -> BoolFn {
    Arc::new(|| true)
}
pub(crate) fn default_wait_for_idle() -> WaitFn {
    Arc::new(|| Box::pin(async {}))
}
pub(crate) fn default_abort() -> AbortFn {
    Arc::new(|| {})
}
pub(crate) fn default_has_queued_messages() -> BoolFn {
    Arc::new(|| false)
}

/// State shared by a runner and every context it builds; read at call time by late-bound
/// members.
pub(crate) struct Shared {
    pub(crate) bindings: RwLock<Bindings>,
    pub(crate) cwd: PathBuf,
    pub(crate) session_manager: Arc<dyn SessionManager>,
}

impl Shared {
    pub(crate) fn bindings(&self) -> Bindings {
        self.bindings
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    fn with<T>(&self, f: impl FnOnce(&Bindings) -> T) -> T {
        f(&self
            .bindings
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner))
    }
}

/// How many `initialize` calls (plus the runner's start) a runner lends contexts for; past
/// that, each emission builds its own context, as before the first one.
const LENT_SLOTS: usize = 16;

/// The contexts a runner lends its emissions.
///
/// What an emission captures (`ui`, `has_ui`, and the host's `get_model`) changes only when
/// the host calls `initialize`, so the runner builds one [`HookContext`] per `initialize`, up
/// front, and lends it by reference: an emission then costs one atomic load and the host's
/// `get_model` call, where building a context takes a lock and three reference counts. The
/// model is still asked once per emission; when it is the one the lent context holds (or no
/// model), that context is lent, else the emission builds its own. A lent context stays valid
/// until the runner is dropped, so an emission that outlives an `initialize` keeps what it
/// captured.
pub(crate) struct LentContexts {
    slots: [OnceLock<Lent>; LENT_SLOTS],
    /// The slot in force; `LENT_SLOTS` once they are used up.
    current: AtomicUsize,
    /// The next free slot.
    next: Mutex<usize>,
}

struct Lent {
    /// The context without a model.
    base: HookContext,
    get_model: GetModelFn,
    /// The context with the first model `get_model` answered.
    with_model: OnceLock<HookContext>,
}

/// The context of one emission: lent by the runner or built for it.
pub(crate) enum EmissionContext<'r> {
    Lent(&'r HookContext),
    Owned(HookContext),
}

impl Deref for EmissionContext<'_> {
    type Target = HookContext;
    #[inline(always)]
    fn deref(&self) -> &HookContext {
        match self {
            EmissionContext::Lent(ctx) => ctx,
            EmissionContext::Owned(ctx) => ctx,
        }
    }
}

impl LentContexts {
    /// Lends contexts of the runner's current bindings.
    pub(crate) fn new(shared: &Arc<Shared>) -> Self {
        let lent = LentContexts {
            slots: std::array::from_fn(|_| OnceLock::new()),
            current: AtomicUsize::new(LENT_SLOTS),
            next: Mutex::new(0),
        };
        lent.publish(shared, &shared.bindings());
        lent
    }

    /// Lends contexts of `bindings` from now on (the caller holds the bindings' write lock,
    /// so that the bindings and the lent context change together).
    pub(crate) fn publish(&self, shared: &Arc<Shared>, bindings: &Bindings) {
        let mut next = self
            .next
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let index = *next;
        if index < LENT_SLOTS {
            *next += 1;
            let lent = Lent {
                base: HookContext {
                    ui: Arc::clone(&bindings.ui),
                    has_ui: bindings.has_ui,
                    model: None,
                    shared: Arc::clone(shared),
                },
                get_model: Arc::clone(&bindings.get_model),
                with_model: OnceLock::new(),
            };
            // The slot is fresh: `next` only grows, under this lock.
            let _ = self.slots[index].set(lent);
        }
        self.current.store(index.min(LENT_SLOTS), Ordering::Release);
    }

    /// The context of an emission starting now (calls the host's `get_model` once).
    #[inline]
    pub(crate) fn context(&self, shared: &Arc<Shared>) -> EmissionContext<'_> {
        let index = self.current.load(Ordering::Acquire);
        let Some(lent) = self.slots.get(index).and_then(OnceLock::get) else {
            return EmissionContext::Owned(HookContext::capture(shared));
        };
        match (lent.get_model)() {
            None => EmissionContext::Lent(&lent.base),
            Some(model) => lent.with_model(model),
        }
    }
}

impl Lent {
    #[cold]
    fn with_model(&self, model: Model) -> EmissionContext<'_> {
        let mut model = Some(model);
        let ctx = self.with_model.get_or_init(|| {
            self.base
                .with_model(model.take().expect("the model is taken once"))
        });
        match model {
            None => EmissionContext::Lent(ctx),
            Some(model) if ctx.model() == Some(&model) => EmissionContext::Lent(ctx),
            Some(model) => EmissionContext::Owned(self.base.with_model(model)),
        }
    }
}

/// The second argument of every event handler (`HookContext`).
///
/// `ui`, `has_ui` and `model` are captured when the context is built (once per emission, shared
/// by that emission's handlers); `is_idle`, `abort` and `has_queued_messages` call the runner's
/// current host functions at call time.
#[derive(Clone)]
pub struct HookContext {
    ui: Arc<dyn HookUi>,
    has_ui: bool,
    model: Option<Arc<Model>>,
    shared: Arc<Shared>,
}

impl HookContext {
    pub(crate) fn capture(shared: &Arc<Shared>) -> Self {
        let (ui, has_ui, get_model) =
            shared.with(|b| (Arc::clone(&b.ui), b.has_ui, Arc::clone(&b.get_model)));
        HookContext {
            ui,
            has_ui,
            model: get_model().map(Arc::new),
            shared: Arc::clone(shared),
        }
    }

    fn with_model(&self, model: Model) -> Self {
        HookContext {
            ui: Arc::clone(&self.ui),
            has_ui: self.has_ui,
            model: Some(Arc::new(model)),
            shared: Arc::clone(&self.shared),
        }
    }

    /// The UI captured when this context was built.
    #[must_use]
    pub fn ui(&self) -> &dyn HookUi {
        &*self.ui
    }

    /// Whether an interactive UI was available when this context was built.
    #[must_use]
    pub fn has_ui(&self) -> bool {
        self.has_ui
    }

    /// The working directory of the runner.
    #[must_use]
    pub fn cwd(&self) -> &Path {
        &self.shared.cwd
    }

    /// The session (read-only; writes go through [`HookContext::send_message`] and
    /// [`HookContext::append_entry`]).
    #[must_use]
    pub fn session_manager(&self) -> &dyn SessionManager {
        &*self.shared.session_manager
    }

    /// The model when this context was built.
    #[must_use]
    pub fn model(&self) -> Option<&Model> {
        self.model.as_deref()
    }

    /// Whether the agent is idle (asked at call time).
    #[must_use]
    pub fn is_idle(&self) -> bool {
        let f = self.shared.with(|b| Arc::clone(&b.is_idle));
        f()
    }

    /// Aborts the current agent run (fire-and-forget).
    pub fn abort(&self) {
        let f = self.shared.with(|b| Arc::clone(&b.abort));
        f();
    }

    /// Whether messages are queued (asked at call time).
    #[must_use]
    pub fn has_queued_messages(&self) -> bool {
        let f = self.shared.with(|b| Arc::clone(&b.has_queued_messages));
        f()
    }

    /// Sends a custom message that is shown and sent to the model (`pi.sendMessage`).
    ///
    /// # Errors
    /// `sendMessage handler not initialized` before the host initialized the runner.
    pub fn send_message(
        &self,
        message: CustomMessage,
        options: SendMessageOptions,
    ) -> Result<(), HookApiError> {
        let f = self
            .shared
            .with(|b| b.send_message.clone())
            .ok_or(HookApiError::SendMessageNotInitialized)?;
        f(message, options);
        Ok(())
    }

    /// Persists a custom entry that is not sent to the model (`pi.appendEntry`).
    ///
    /// # Errors
    /// `appendEntry handler not initialized` before the host initialized the runner.
    pub fn append_entry(&self, custom_type: &str, data: Option<Value>) -> Result<(), HookApiError> {
        let f = self
            .shared
            .with(|b| b.append_entry.clone())
            .ok_or(HookApiError::AppendEntryNotInitialized)?;
        f(custom_type, data);
        Ok(())
    }

    /// Runs a command in the runner's working directory (or `options.cwd`); see
    /// [`exec_command`].
    ///
    /// # Errors
    /// When the command cannot be started or its output is too large.
    pub async fn exec(
        &self,
        command: &str,
        args: &[String],
        options: ExecOptions,
    ) -> Result<ExecResult, ExecError> {
        exec_command(command, args, &self.shared.cwd, options).await
    }
}

/// The context of a command handler (`HookCommandContext`): everything of [`HookContext`]
/// plus session control, which only commands get (calling it from inside the agent loop could
/// deadlock). Each method uses the host function current at call time.
#[derive(Clone)]
pub struct CommandContext {
    ctx: HookContext,
}

impl Deref for CommandContext {
    type Target = HookContext;
    fn deref(&self) -> &HookContext {
        &self.ctx
    }
}

impl CommandContext {
    pub(crate) fn capture(shared: &Arc<Shared>) -> Self {
        CommandContext {
            ctx: HookContext::capture(shared),
        }
    }

    /// Waits until the agent is idle (resolves at once by default).
    pub async fn wait_for_idle(&self) {
        let f = self.ctx.shared.with(|b| Arc::clone(&b.wait_for_idle));
        f().await;
    }

    /// Starts a new session (answers `{ cancelled: false }` when the host gave no handler).
    pub async fn new_session(&self, options: NewSessionOptions) -> SessionActionResult {
        let f = self.ctx.shared.with(|b| Arc::clone(&b.new_session));
        f(options).await
    }

    /// Branches from `entry_id` (answers `{ cancelled: false }` when the host gave no handler).
    pub async fn branch(&self, entry_id: &str) -> SessionActionResult {
        let f = self.ctx.shared.with(|b| Arc::clone(&b.branch));
        f(entry_id.to_owned()).await
    }

    /// Navigates to `target_id` in the session tree (answers `{ cancelled: false }` when the
    /// host gave no handler).
    pub async fn navigate_tree(
        &self,
        target_id: &str,
        options: NavigateTreeOptions,
    ) -> SessionActionResult {
        let f = self.ctx.shared.with(|b| Arc::clone(&b.navigate_tree));
        f(target_id.to_owned(), options).await
    }

    /// The event-handler view of this context.
    #[must_use]
    pub fn hook_context(&self) -> &HookContext {
        &self.ctx
    }
}
