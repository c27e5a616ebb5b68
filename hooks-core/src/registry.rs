//! The link-time registry of `#[hook]`, `#[command]` and `#[renderer]` functions.
//!
//! Each attribute submits a static [`Registration`] (through `inventory`); every crate linked
//! into the binary contributes its registrations. inventory gives no order (and the order it
//! does give differs between debug and release builds), so the registry sorts them once, on
//! first use: hooks by id, and inside a hook by source position (file, line, column), which is
//! the order the author wrote them in. The same pass checks for a command name or a renderer's
//! custom type registered twice inside one hook.
//!
//! # Linking a bundle
//!
//! A crate that only submits registrations and is never named in code is not linked, and its
//! hooks vanish silently. Name every bundle crate once, e.g. in `main.rs`:
//!
//! ```ignore
//! use my_hooks as _;
//! ```

use std::cmp::Ordering;
use std::fmt;
use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

use crate::api::{CommandHandler, HookApi, LoadedHook, RegisteredCommand};
use crate::calls::RenderOptions;
use crate::context::CommandContext;
use crate::events::CustomMessage;
use crate::handler::{BoxFuture, HandlerError, HandlerInfo, SourceLocation};
use crate::ui::Theme;

/// A command function as the registry stores it.
pub(crate) type CommandFn =
    for<'a> fn(&'a str, &'a CommandContext) -> BoxFuture<'a, Result<(), HandlerError>>;
/// A renderer function as the registry stores it.
pub(crate) type RenderFn = fn(&CustomMessage, RenderOptions, &Theme) -> Option<Vec<String>>;
/// Installs a handler (of the event type it was written for) into a hook being built.
pub(crate) type InstallFn = fn(&mut HookApi, HandlerInfo);

/// What a [`Registration`] registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum RegistrationKind {
    /// An event handler (`#[hook]`).
    Handler,
    /// A slash command (`#[command]`).
    Command,
    /// A custom-message renderer (`#[renderer]`).
    Renderer,
}

impl RegistrationKind {
    /// `"handler"`, `"command"` or `"renderer"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            RegistrationKind::Handler => "handler",
            RegistrationKind::Command => "command",
            RegistrationKind::Renderer => "renderer",
        }
    }
}

impl fmt::Display for RegistrationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Copy)]
pub(crate) enum Payload {
    Handler {
        event: &'static str,
        timeout_ms: Option<u64>,
        install: InstallFn,
    },
    Command {
        command: &'static str,
        description: Option<&'static str>,
        run: CommandFn,
    },
    Renderer {
        custom_type: &'static str,
        render: RenderFn,
    },
    /// hookwright's own marker: present whenever link-time registration works.
    Sentinel,
}

/// One function registered by an attribute macro: its identity, its place in the source and
/// the code to install. Built by the macros only (through `hookwright::__private`).
#[derive(Clone, Copy)]
pub struct Registration {
    pub(crate) name: &'static str,
    pub(crate) hook: &'static str,
    pub(crate) location: SourceLocation,
    pub(crate) payload: Payload,
}

impl Registration {
    /// The function's name.
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The id of the hook it belongs to (the module path unless given with `hook = "..."`).
    #[must_use]
    pub fn hook(&self) -> &'static str {
        self.hook
    }

    /// Where the function was written.
    #[must_use]
    pub fn location(&self) -> SourceLocation {
        self.location
    }

    /// What it registers.
    #[must_use]
    pub fn kind(&self) -> RegistrationKind {
        match self.payload {
            Payload::Handler { .. } => RegistrationKind::Handler,
            Payload::Command { .. } => RegistrationKind::Command,
            Payload::Renderer { .. } | Payload::Sentinel => RegistrationKind::Renderer,
        }
    }

    /// What it is registered for: the event name of a handler, the command name of a command,
    /// the custom type of a renderer.
    #[must_use]
    pub fn target(&self) -> &'static str {
        match self.payload {
            Payload::Handler { event, .. } => event,
            Payload::Command { command, .. } => command,
            Payload::Renderer { custom_type, .. } => custom_type,
            Payload::Sentinel => "",
        }
    }

    /// The event name, for a handler.
    #[must_use]
    pub fn event(&self) -> Option<&'static str> {
        match self.payload {
            Payload::Handler { event, .. } => Some(event),
            _ => None,
        }
    }

    /// The command's description, for a command that has one.
    #[must_use]
    pub fn description(&self) -> Option<&'static str> {
        match self.payload {
            Payload::Command { description, .. } => description,
            _ => None,
        }
    }

    /// The handler's own timeout (`timeout_ms = N`), for a handler that has one.
    #[must_use]
    pub fn timeout(&self) -> Option<Duration> {
        match self.payload {
            Payload::Handler { timeout_ms, .. } => timeout_ms.map(Duration::from_millis),
            _ => None,
        }
    }

    fn is_sentinel(&self) -> bool {
        matches!(self.payload, Payload::Sentinel)
    }

    /// The sort order: hook id, then source position; name and kind only break ties.
    fn order(&self, other: &Self) -> Ordering {
        (
            self.hook,
            self.location,
            self.kind(),
            self.name,
            self.target(),
        )
            .cmp(&(
                other.hook,
                other.location,
                other.kind(),
                other.name,
                other.target(),
            ))
    }

    fn install(&self, api: &mut HookApi) {
        match self.payload {
            Payload::Handler { install, .. } => install(
                api,
                HandlerInfo {
                    name: self.name.into(),
                    location: Some(self.location),
                    timeout: self.timeout(),
                },
            ),
            Payload::Command {
                command,
                description,
                run,
            } => {
                let handler: CommandHandler = std::sync::Arc::new(run);
                api.add_command(RegisteredCommand {
                    name: command.to_owned(),
                    description: description.map(str::to_owned),
                    handler,
                    location: Some(self.location),
                });
            }
            Payload::Renderer {
                custom_type,
                render,
            } => {
                api.register_message_renderer(custom_type, render);
            }
            Payload::Sentinel => {}
        }
    }
}

impl fmt::Debug for Registration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registration")
            .field("name", &self.name)
            .field("kind", &self.kind())
            .field("target", &self.target())
            .field("hook", &self.hook)
            .field("location", &self.location)
            .finish()
    }
}

inventory::collect!(Registration);

inventory::submit! {
    Registration {
        name: "",
        hook: "",
        location: SourceLocation { file: file!(), line: line!(), column: column!() },
        payload: Payload::Sentinel,
    }
}

/// A mistake found while building the registry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// One hook registers the same command name twice.
    #[error("hook `{hook}` registers the command `/{name}` twice: at {first} and at {second}")]
    DuplicateCommand {
        /// The hook id.
        hook: &'static str,
        /// The command name.
        name: &'static str,
        /// The first registration (in source order).
        first: SourceLocation,
        /// The second one.
        second: SourceLocation,
    },
    /// One hook registers two renderers for the same custom type.
    #[error(
        "hook `{hook}` registers two renderers for `{custom_type}`: at {first} and at {second}"
    )]
    DuplicateRenderer {
        /// The hook id.
        hook: &'static str,
        /// The custom message type.
        custom_type: &'static str,
        /// The first registration (in source order).
        first: SourceLocation,
        /// The second one.
        second: SourceLocation,
    },
    /// Link-time registration does not work on this target: not even hookwright's own
    /// registration was collected.
    #[error(
        "link-time registration is not supported on this target: no registration was collected"
    )]
    Unsupported,
    /// No compiled-in hook has this id.
    #[error("no compiled-in hook has the id {0}")]
    UnknownHook(String),
}

impl RegistryError {
    /// The id of the one hook this error is about (a duplicate inside it), if any.
    #[must_use]
    pub fn hook(&self) -> Option<&str> {
        match self {
            RegistryError::DuplicateCommand { hook, .. }
            | RegistryError::DuplicateRenderer { hook, .. } => Some(hook),
            RegistryError::Unsupported | RegistryError::UnknownHook(_) => None,
        }
    }
}

struct Registry {
    /// Every registration but the sentinel, sorted.
    sorted: Vec<&'static Registration>,
    /// No registration was collected at all (not even the sentinel).
    unsupported: bool,
    /// The first duplicate of each hook that has one, in hook order.
    duplicates: Vec<RegistryError>,
}

impl Registry {
    /// The first error of the registry, if any.
    fn first_error(&self) -> Option<RegistryError> {
        if self.unsupported {
            return Some(RegistryError::Unsupported);
        }
        self.duplicates.first().cloned()
    }
}

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| build(inventory::iter::<Registration>))
}

/// Sorts and checks `registrations` (the sentinel, when present, is dropped).
fn build(registrations: impl IntoIterator<Item = &'static Registration>) -> Registry {
    let mut sentinel = false;
    let mut sorted = Vec::new();
    for reg in registrations {
        if reg.is_sentinel() {
            sentinel = true;
        } else {
            sorted.push(reg);
        }
    }
    sorted.sort_by(|a, b| a.order(b));
    let duplicates = find_duplicates(&sorted);
    Registry {
        sorted,
        unsupported: !sentinel,
        duplicates,
    }
}

/// Builds one [`LoadedHook`] per hook of the sorted `registrations`.
fn hooks_of(registrations: &[&'static Registration], cwd: &Path) -> Vec<LoadedHook> {
    registrations
        .chunk_by(|a, b| a.hook == b.hook)
        .map(|regs| build_hook(regs, cwd))
        .collect()
}

/// Builds the hook of `regs` (the registrations of one hook, sorted).
fn build_hook(regs: &[&'static Registration], cwd: &Path) -> LoadedHook {
    let id = regs[0].hook;
    let mut api = HookApi::new(id, cwd).with_resolved_path(id);
    for reg in regs {
        reg.install(&mut api);
    }
    let mut hook = api.finish();
    hook.compiled = true;
    hook
}

/// What [`compiled_hooks`] does at a process's first use of the registry, over `registrations`
/// instead of the ones collected at link time: sort, check, and build one [`LoadedHook`] per
/// hook. Not public API: for benchmarks of the registry build.
///
/// # Errors
/// As [`compiled_hooks`].
#[doc(hidden)]
pub fn build_hooks_from(
    registrations: &[&'static Registration],
    cwd: &Path,
) -> Result<Vec<LoadedHook>, RegistryError> {
    let registry = build(
        registrations
            .iter()
            .copied()
            .chain(std::iter::once(&SENTINEL)),
    );
    match registry.first_error() {
        Some(error) => Err(error),
        None => Ok(hooks_of(&registry.sorted, cwd)),
    }
}

/// A sentinel, for [`build_hooks_from`].
static SENTINEL: Registration = Registration {
    name: "",
    hook: "",
    location: SourceLocation {
        file: file!(),
        line: line!(),
        column: column!(),
    },
    payload: Payload::Sentinel,
};

/// The first duplicate command (or renderer) of each hook of `sorted` that has one.
fn find_duplicates(sorted: &[&'static Registration]) -> Vec<RegistryError> {
    sorted
        .chunk_by(|a, b| a.hook == b.hook)
        .filter_map(find_duplicate)
        .collect()
}

/// The first duplicate command (or renderer) among `hook`'s sorted registrations.
fn find_duplicate(hook: &[&'static Registration]) -> Option<RegistryError> {
    for (i, second) in hook.iter().enumerate() {
        let kind = second.kind();
        if kind == RegistrationKind::Handler {
            continue;
        }
        let first = hook[..i]
            .iter()
            .find(|r| r.kind() == kind && r.target() == second.target());
        if let Some(first) = first {
            let (hook, target) = (second.hook, second.target());
            let (first, second) = (first.location, second.location);
            return Some(match kind {
                RegistrationKind::Command => RegistryError::DuplicateCommand {
                    hook,
                    name: target,
                    first,
                    second,
                },
                _ => RegistryError::DuplicateRenderer {
                    hook,
                    custom_type: target,
                    first,
                    second,
                },
            });
        }
    }
    None
}

/// Every registration collected at link time, sorted: by hook id, then by source position.
#[must_use]
pub fn registrations() -> &'static [&'static Registration] {
    &registry().sorted
}

/// The ids of the hooks collected at link time, sorted.
#[must_use]
pub fn compiled_hook_ids() -> Vec<&'static str> {
    let mut ids: Vec<&'static str> = registrations().iter().map(|r| r.hook).collect();
    ids.dedup();
    ids
}

/// Builds one [`LoadedHook`] per hook collected at link time, sorted by id; inside a hook,
/// handlers, commands and renderers are registered in source order. `path` and
/// `resolved_path` are the hook id (a compiled hook is not a file); `cwd` is where its `exec`
/// runs.
///
/// # Errors
/// [`RegistryError::DuplicateCommand`] (or `DuplicateRenderer`) when a hook registers the
/// same command name (custom type) twice; [`RegistryError::Unsupported`] when link-time
/// registration does not work on this target. To load the other hooks when one is broken,
/// build them one by one with [`compiled_hook`] (the loader does).
pub fn compiled_hooks(cwd: &Path) -> Result<Vec<LoadedHook>, RegistryError> {
    let registry = registry();
    match registry.first_error() {
        Some(error) => Err(error),
        None => Ok(hooks_of(&registry.sorted, cwd)),
    }
}

/// Builds the hook `id` collected at link time, as [`compiled_hooks`] does: a mistake inside
/// one hook fails that hook alone.
///
/// # Errors
/// [`RegistryError::DuplicateCommand`] (or `DuplicateRenderer`) when this hook registers the
/// same command name (custom type) twice; [`RegistryError::UnknownHook`] when no hook has the
/// id; [`RegistryError::Unsupported`] when link-time registration does not work here.
pub fn compiled_hook(id: &str, cwd: &Path) -> Result<LoadedHook, RegistryError> {
    hook_of(registry(), id, cwd)
}

/// [`compiled_hook`] over `registry`.
fn hook_of(registry: &Registry, id: &str, cwd: &Path) -> Result<LoadedHook, RegistryError> {
    if registry.unsupported {
        return Err(RegistryError::Unsupported);
    }
    if let Some(error) = registry.duplicates.iter().find(|e| e.hook() == Some(id)) {
        return Err(error.clone());
    }
    let sorted = registry.sorted.as_slice();
    let start = sorted.partition_point(|r| r.hook < id);
    let end = sorted.partition_point(|r| r.hook <= id);
    if start == end {
        return Err(RegistryError::UnknownHook(id.to_owned()));
    }
    Ok(build_hook(&sorted[start..end], cwd))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::__private;

    fn install(_: &mut HookApi, _: HandlerInfo) {}
    fn run<'a>(_: &'a str, _: &'a CommandContext) -> BoxFuture<'a, Result<(), HandlerError>> {
        __private::ready_command(Ok(()))
    }
    fn render(_: &CustomMessage, _: RenderOptions, _: &Theme) -> Option<Vec<String>> {
        None
    }

    fn handler(hook: &'static str, file: &'static str, line: u32, column: u32) -> Registration {
        __private::handler("h", "tool_call", hook, file, line, column, None, install)
    }

    fn sorted(mut regs: Vec<&'static Registration>) -> Vec<&'static Registration> {
        regs.sort_by(|a, b| a.order(b));
        regs
    }

    fn leak(r: Registration) -> &'static Registration {
        Box::leak(Box::new(r))
    }

    #[test]
    fn sorts_by_hook_then_file_line_column() {
        let regs = sorted(vec![
            leak(handler("b", "a.rs", 1, 1)),
            leak(handler("a", "b.rs", 1, 1)),
            leak(handler("a", "a.rs", 10, 1)),
            leak(handler("a", "a.rs", 2, 9)),
            leak(handler("a", "a.rs", 2, 5)),
        ]);
        let keys: Vec<_> = regs
            .iter()
            .map(|r| {
                (
                    r.hook(),
                    r.location().file,
                    r.location().line,
                    r.location().column,
                )
            })
            .collect();
        assert_eq!(
            keys,
            [
                ("a", "a.rs", 2, 5),
                ("a", "a.rs", 2, 9),
                ("a", "a.rs", 10, 1),
                ("a", "b.rs", 1, 1),
                ("b", "a.rs", 1, 1),
            ]
        );
    }

    #[test]
    fn duplicate_commands_and_renderers_inside_one_hook_are_errors() {
        let cmd = |hook, line| {
            leak(__private::command(
                "go", None, "f", hook, "x.rs", line, 1, run,
            ))
        };
        let rnd = |hook, line| leak(__private::renderer("t", "f", hook, "x.rs", line, 1, render));
        let at = |line| SourceLocation {
            file: "x.rs",
            line,
            column: 1,
        };
        assert_eq!(find_duplicates(&sorted(vec![cmd("a", 1), cmd("b", 2)])), []);
        assert_eq!(
            find_duplicates(&sorted(vec![cmd("a", 7), cmd("a", 3)])),
            [RegistryError::DuplicateCommand {
                hook: "a",
                name: "go",
                first: at(3),
                second: at(7),
            }]
        );
        assert_eq!(
            find_duplicate(&sorted(vec![cmd("a", 1), rnd("a", 2)])),
            None
        );
        let error = find_duplicate(&sorted(vec![rnd("a", 1), rnd("a", 2)])).unwrap();
        assert_eq!(
            error.to_string(),
            "hook `a` registers two renderers for `t`: at x.rs:1 and at x.rs:2"
        );
        let same_handler_twice = sorted(vec![
            leak(handler("a", "x.rs", 1, 1)),
            leak(handler("a", "x.rs", 2, 1)),
        ]);
        assert_eq!(find_duplicate(&same_handler_twice), None);
    }

    #[test]
    fn a_duplicate_fails_its_own_hook_alone() {
        // One hook's mistake must not take the others (a guard, say) down with it.
        let cmd = |hook, line| {
            leak(__private::command(
                "go", None, "f", hook, "x.rs", line, 1, run,
            ))
        };
        let registry = build([
            cmd("broken", 1),
            cmd("broken", 2),
            leak(handler("guard", "g.rs", 1, 1)),
            &SENTINEL,
        ]);
        let cwd = Path::new(".");
        assert!(matches!(
            hook_of(&registry, "broken", cwd),
            Err(RegistryError::DuplicateCommand { hook: "broken", .. })
        ));
        assert_eq!(hook_of(&registry, "guard", cwd).unwrap().path, "guard");
        assert_eq!(
            hook_of(&registry, "nope", cwd).unwrap_err(),
            RegistryError::UnknownHook("nope".into())
        );
        // The whole-registry build still reports the mistake.
        assert!(matches!(
            registry.first_error(),
            Some(RegistryError::DuplicateCommand { hook: "broken", .. })
        ));
    }

    #[test]
    fn the_sentinel_is_collected_but_not_listed() {
        assert!(
            inventory::iter::<Registration>
                .into_iter()
                .any(Registration::is_sentinel)
        );
        assert!(!registrations().iter().any(|r| r.is_sentinel()));
        assert_eq!(compiled_hooks(Path::new(".")).map(|h| h.len()), Ok(0));
    }
}
