//! [`HookApi`], the builder a hook registers through (upstream `pi`), and [`LoadedHook`], what
//! a loaded hook is. The `#[hook]`/`#[command]`/`#[renderer]` macros end in the same model.

use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use indexmap::IndexMap;
use serde_json::Value;

pub use crate::calls::{DeliverAs, HookApiError, RenderOptions, SendMessageOptions};
use crate::context::{CommandContext, HookContext};
use crate::events::{CustomMessage, HookEvent};
use crate::exec::{ExecError, ExecOptions, ExecResult, exec_command};
use crate::handler::{
    BoxFuture, Handler, HandlerEntry, HandlerError, HandlerInfo, HandlerTable, IntoHandlerResult,
    SourceLocation,
};
use crate::runner::shared::Shared;
use crate::ui::Theme;

/// A command handler: receives the text after `/name ` and a [`CommandContext`].
pub type CommandHandler = Arc<
    dyn for<'a> Fn(&'a str, &'a CommandContext) -> BoxFuture<'a, Result<(), HandlerError>>
        + Send
        + Sync,
>;

/// A slash command registered by a hook (`RegisteredCommand`).
#[derive(Clone)]
pub struct RegisteredCommand {
    /// The name, without the leading `/`.
    pub name: String,
    /// What it does.
    pub description: Option<String>,
    /// The code.
    pub handler: CommandHandler,
    /// Where it was written, when known.
    pub location: Option<SourceLocation>,
}

impl fmt::Debug for RegisteredCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegisteredCommand")
            .field("name", &self.name)
            .field("description", &self.description)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// Renders a custom message as lines; `None` means "use the default rendering".
pub type MessageRenderer =
    Arc<dyn Fn(&CustomMessage, RenderOptions, &Theme) -> Option<Vec<String>> + Send + Sync>;

/// Where a hook's `send_message` and `append_entry` go: the host of the runner the hook is
/// in, once the runner is built.
#[derive(Default)]
pub(crate) struct HookActions {
    runner: OnceLock<Arc<Shared>>,
}

impl HookActions {
    fn send_message(
        &self,
        message: CustomMessage,
        options: SendMessageOptions,
    ) -> Result<(), HookApiError> {
        match self.runner.get() {
            Some(shared) => shared.send_message(message, options),
            None => Err(HookApiError::SendMessageNotInitialized),
        }
    }

    fn append_entry(&self, custom_type: &str, data: Option<Value>) -> Result<(), HookApiError> {
        match self.runner.get() {
            Some(shared) => shared.append_entry(custom_type, data),
            None => Err(HookApiError::AppendEntryNotInitialized),
        }
    }

    fn initialized(&self) -> bool {
        self.runner.get().is_some_and(|shared| shared.initialized())
    }
}

/// A cloneable handle to a hook's `send_message`, `append_entry` and `exec`, for handlers
/// that outlive the registration call (what closing over `pi` does upstream).
#[derive(Clone)]
pub struct HookSender {
    actions: Arc<HookActions>,
    cwd: PathBuf,
}

impl fmt::Debug for HookSender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let initialized = self.actions.initialized();
        f.debug_struct("HookSender")
            .field("cwd", &self.cwd)
            .field("send_message", &initialized)
            .field("append_entry", &initialized)
            .finish()
    }
}

impl HookSender {
    /// Sends a custom message (see [`HookContext::send_message`]).
    ///
    /// # Errors
    /// `sendMessage handler not initialized` before the host initialized the runner.
    pub fn send_message(
        &self,
        message: CustomMessage,
        options: SendMessageOptions,
    ) -> Result<(), HookApiError> {
        self.actions.send_message(message, options)
    }

    /// Persists a custom entry (see [`HookContext::append_entry`]).
    ///
    /// # Errors
    /// `appendEntry handler not initialized` before the host initialized the runner.
    pub fn append_entry(&self, custom_type: &str, data: Option<Value>) -> Result<(), HookApiError> {
        self.actions.append_entry(custom_type, data)
    }

    /// Runs a command in the loader's working directory (or `options.cwd`).
    ///
    /// # Errors
    /// When the command cannot be started or its output is too large.
    pub async fn exec(
        &self,
        command: &str,
        args: &[String],
        options: ExecOptions,
    ) -> Result<ExecResult, ExecError> {
        exec_command(command, args, &self.cwd, options).await
    }
}

/// The builder a hook registers through (upstream `HookAPI`, the `pi` object).
///
/// ```
/// use hookwright::prelude::*;
///
/// let mut api = HookApi::new("my-hook", "/tmp");
/// api.on(|event: &ToolCallEvent, _ctx: &HookContext| {
///     (event.input_str("command") == Some("rm -rf /"))
///         .then(|| ToolCallEventResult::block("no"))
/// });
/// let hook = api.finish();
/// assert_eq!(hook.path, "my-hook");
/// ```
pub struct HookApi {
    path: String,
    resolved_path: PathBuf,
    handlers: HandlerTable,
    commands: IndexMap<String, RegisteredCommand>,
    renderers: IndexMap<String, MessageRenderer>,
    sender: HookSender,
}

impl HookApi {
    /// A builder for the hook at `path` (its id); `cwd` is where `exec` runs and what a
    /// relative `path` resolves against.
    pub fn new(path: impl Into<String>, cwd: impl Into<PathBuf>) -> Self {
        let path = path.into();
        let cwd = cwd.into();
        let resolved_path = if std::path::Path::new(&path).is_absolute() {
            PathBuf::from(&path)
        } else {
            cwd.join(&path)
        };
        HookApi {
            path,
            resolved_path,
            handlers: HandlerTable::default(),
            commands: IndexMap::new(),
            renderers: IndexMap::new(),
            sender: HookSender {
                actions: Arc::default(),
                cwd,
            },
        }
    }

    /// Sets the resolved absolute path (loaders that resolved it themselves).
    pub fn with_resolved_path(mut self, resolved: impl Into<PathBuf>) -> Self {
        self.resolved_path = resolved.into();
        self
    }

    /// Registers a sync handler of `E` (appended; no de-duplication).
    pub fn on<E, F, R>(&mut self, handler: F) -> &mut Self
    where
        E: HookEvent,
        F: Fn(&E, &HookContext) -> R + Send + Sync + 'static,
        R: IntoHandlerResult<E::Result>,
    {
        self.on_handler(Handler::sync(handler), HandlerInfo::named("<closure>"))
    }

    /// Registers an async handler of `E`, written as a closure returning a boxed future:
    /// `api.on_async(|e: &ToolCallEvent, ctx| Box::pin(async move { ... }))`.
    pub fn on_async<E, F, R>(&mut self, handler: F) -> &mut Self
    where
        E: HookEvent,
        F: for<'a> Fn(&'a E, &'a HookContext) -> BoxFuture<'a, R> + Send + Sync + 'static,
        R: IntoHandlerResult<E::Result> + 'static,
    {
        self.on_handler(Handler::boxed(handler), HandlerInfo::named("<closure>"))
    }

    /// Registers a handler of `E` with its info (name, location, timeout).
    pub fn on_handler<E: HookEvent>(
        &mut self,
        handler: Handler<E>,
        info: HandlerInfo,
    ) -> &mut Self {
        self.handlers.push(HandlerEntry { handler, info });
        self
    }

    /// Registers a handler of the custom event `name` (any string, as upstream `pi.on`); it
    /// receives the JSON payload and its result is ignored.
    pub fn on_custom<F>(&mut self, name: impl Into<String>, handler: F) -> &mut Self
    where
        F: for<'a> Fn(&'a Value, &'a HookContext) -> BoxFuture<'a, Result<(), HandlerError>>
            + Send
            + Sync
            + 'static,
    {
        self.handlers.push_custom(
            name,
            HandlerEntry::custom(handler, HandlerInfo::named("<closure>")),
        );
        self
    }

    /// Registers the slash command `name`; registering the same name again in this hook
    /// replaces it (keeping its first position).
    pub fn register_command<F>(
        &mut self,
        name: impl Into<String>,
        description: Option<&str>,
        handler: F,
    ) -> &mut Self
    where
        F: for<'a> Fn(&'a str, &'a CommandContext) -> BoxFuture<'a, Result<(), HandlerError>>
            + Send
            + Sync
            + 'static,
    {
        let name = name.into();
        self.add_command(RegisteredCommand {
            name,
            description: description.map(str::to_owned),
            handler: Arc::new(handler),
            location: None,
        })
    }

    /// Registers a prepared command (replacing one of the same name in this hook).
    pub fn add_command(&mut self, command: RegisteredCommand) -> &mut Self {
        self.commands.insert(command.name.clone(), command);
        self
    }

    /// Registers a renderer for custom messages of `custom_type`; a second registration of
    /// the same type in this hook replaces the first.
    pub fn register_message_renderer<F>(
        &mut self,
        custom_type: impl Into<String>,
        renderer: F,
    ) -> &mut Self
    where
        F: Fn(&CustomMessage, RenderOptions, &Theme) -> Option<Vec<String>> + Send + Sync + 'static,
    {
        self.renderers
            .insert(custom_type.into(), Arc::new(renderer));
        self
    }

    /// Sends a custom message (see [`HookContext::send_message`]).
    ///
    /// # Errors
    /// `sendMessage handler not initialized` before the host initialized the runner.
    pub fn send_message(
        &self,
        message: CustomMessage,
        options: SendMessageOptions,
    ) -> Result<(), HookApiError> {
        self.sender.send_message(message, options)
    }

    /// Persists a custom entry (see [`HookContext::append_entry`]).
    ///
    /// # Errors
    /// `appendEntry handler not initialized` before the host initialized the runner.
    pub fn append_entry(&self, custom_type: &str, data: Option<Value>) -> Result<(), HookApiError> {
        self.sender.append_entry(custom_type, data)
    }

    /// Runs a command in the loader's working directory (or `options.cwd`).
    ///
    /// # Errors
    /// When the command cannot be started or its output is too large.
    pub async fn exec(
        &self,
        command: &str,
        args: &[String],
        options: ExecOptions,
    ) -> Result<ExecResult, ExecError> {
        self.sender.exec(command, args, options).await
    }

    /// A cloneable handle to this hook's `send_message`, `append_entry` and `exec`.
    #[must_use]
    pub fn sender(&self) -> HookSender {
        self.sender.clone()
    }

    /// The loaded hook.
    #[must_use]
    pub fn finish(self) -> LoadedHook {
        LoadedHook {
            path: self.path,
            resolved_path: self.resolved_path,
            handlers: self.handlers,
            commands: self.commands,
            renderers: self.renderers,
            actions: self.sender.actions,
            compiled: false,
        }
    }
}

/// A loaded hook: its path (as given), resolved path, handlers, commands and renderers.
pub struct LoadedHook {
    /// The path or id as given to the loader.
    pub path: String,
    /// The resolved absolute path.
    pub resolved_path: PathBuf,
    /// Handlers per event, in registration order.
    pub handlers: HandlerTable,
    /// Commands by name, in first-registration order.
    pub commands: IndexMap<String, RegisteredCommand>,
    /// Renderers by custom type.
    pub renderers: IndexMap<String, MessageRenderer>,
    actions: Arc<HookActions>,
    /// Built from the link-time registry ([`crate::registry::compiled_hooks`]).
    pub(crate) compiled: bool,
}

impl LoadedHook {
    /// Sends this hook's `send_message` and `append_entry` (through the senders it handed
    /// out) to the host of the runner whose state is `shared`: the first runner it is in.
    pub(crate) fn link(&self, shared: &Arc<Shared>) {
        let _ = self.actions.runner.set(Arc::clone(shared));
    }

    /// Whether the hook is a compiled-in one (`#[hook]`, `#[command]` and `#[renderer]`
    /// functions of one hook id, from the link-time registry): the same functions and
    /// registrations whoever loads it, and it hands out no [`HookSender`].
    #[must_use]
    pub fn is_compiled(&self) -> bool {
        self.compiled
    }

    /// Whether a [`HookSender`] of this hook is still held (by a handler that closes over
    /// `api.sender()`, say): then the hook sends to the host of one runner. No sender can be
    /// made once the hook is loaded.
    pub(crate) fn handed_out_sender(&self) -> bool {
        Arc::strong_count(&self.actions) > 1
    }
}

impl fmt::Debug for LoadedHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadedHook")
            .field("path", &self.path)
            .field("resolved_path", &self.resolved_path)
            .field("handlers", &self.handlers)
            .field("commands", &self.commands.keys().collect::<Vec<_>>())
            .field("renderers", &self.renderers.keys().collect::<Vec<_>>())
            .finish()
    }
}
