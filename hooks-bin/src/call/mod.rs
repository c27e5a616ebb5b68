//! One agent hook call, the same for every agent and transport: [`pipeline`] prepares it
//! (event name, input, working directory), opens the hooks ([`load`], [`trace`], the runner
//! of a session) and runs it; its [`Outcome`] (exit code, stdout, stderr) is what the
//! agent reads, whichever transport ([`crate::transport`]) carried the call. Audit mode and
//! the decision log are [`audit`].
//!
//! # One call
//!
//! One call is one hook invocation: the agent starts the process, writes one JSON object on
//! stdin, and reads the exit code, stdout and stderr. The adapter
//!
//! 1. checks the event name (one of the protocol's [`AgentEvent`]s, as the agent spells it);
//! 2. decodes stdin with the bounded decoder of [`crate::json`] (16 MiB, 64 levels of nesting,
//!    UTF-8; unknown fields ignored; a field it needs of the wrong type is an error);
//! 3. loads the hooks for the working directory (`--cwd`, else the agent's project directory
//!    (Claude Code's `CLAUDE_PROJECT_DIR`), else the input's `cwd`, else the process's; it must
//!    be a directory), builds a [`HookRunner`](hookwright::HookRunner) on a current-thread
//!    tokio runtime, and emits the event(s) of the mapping table below;
//! 4. writes at most one JSON answer on stdout (nothing when the hooks have no opinion: the
//!    adapter never prints `allow`), and exits with the code of the table below.
//!
//! # Exit codes (both agents)
//!
//! Events are *gating* when their hooks decide what the agent may do or what the model sees
//! ([`Mapping::is_gating`](crate::agents::Mapping::is_gating)): `PreToolUse`, `PostToolUse`, `UserPromptSubmit`, `PreCompact`.
//! The others are *observational*. A name that is not a known event counts as gating.
//!
//! | outcome | gating event | observational event |
//! | --- | --- | --- |
//! | success, with or without an answer | 0 | 0 |
//! | the adapter fails: unknown event, invalid command line, stdin unreadable, bad input (malformed, truncated, empty, non-UTF-8, too deep, too large, wrong type, missing field), hooks fail to load, internal error or panic, stdout not writable | **2** | 1 |
//! | stdout closed or `/dev/null` (checked first, see [`crate::transport::command`]) | **2** | no failure: the hooks run |
//! | a handler or command returns an error, panics or times out | **2** | 1 |
//!
//! One rule gives every failure its code: [`Protocol::failure_code`](crate::agents::Protocol::failure_code).
//!
//! Exit 2 is fail-closed: Claude Code and Codex both block the action on exit 2 with a
//! non-empty stderr, which is always one line naming the adapter, the event and the reason
//! (`hooks claude PreToolUse: blocked: hook guard panicked: boom`). The one exception is
//! Codex's `PreCompact`: Codex compacts after any exit code, so a failure there exits 0 with
//! the answer that holds the compaction, `{"continue":false,"stopReason":LINE}` with the
//! failure line ([`Protocol::failure_answer`](crate::agents::Protocol::failure_answer)); only where stdout cannot carry it (closed,
//! `/dev/null`, not writable) is it exit 2. Observational events exit 1 instead because exit
//! 2 means something else there (on `Stop` it would make the agent go on, with our error as
//! the new prompt); both agents report exit 1 as a non-blocking error and show the first
//! stderr line. On a failing `PostToolUse`, Claude additionally gets the tool output replaced
//! by a `[tool output withheld: ...]` notice in a shape the tool accepts (for a tool
//! whose shape is not known, `continue: false`: see [`claude`](crate::agents::claude)), so a failing redaction
//! hook does not leak the output it was meant to redact; Codex replaces the output with the
//! stderr reason on its own.
//!
//! # Kill switch
//!
//! With `HOOKS_DISABLE=1` in the environment every call answers "no opinion" at once (exit 0,
//! nothing on stdout, before anything else is checked or loaded) and says on stderr that hooks
//! are disabled ([`disabled_outcome`]): the fail-open lever a user pulls knowingly.
//!
//! Handler errors on `tool_call` come from [`HookRunner::emit_tool_call`](hookwright::HookRunner::emit_tool_call); on other events
//! they are collected through [`HookRunner::on_error`](hookwright::HookRunner::on_error).

pub mod audit;
mod disable;
mod emit;
pub mod load;
mod outcome;
pub mod pipeline;
mod session;
mod tables;
pub mod trace;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hookwright::LoadedHook;

use crate::agents::AgentEvent;
use crate::trust::TrustMode;

pub use self::disable::{
    DISABLE_ENV, disabled_line, disabled_outcome, hooks_disabled, off_outcome,
};
pub use self::outcome::{Answered, CallFacts, Outcome, audited, no_opinion};
pub use self::pipeline::{answer, answer_call};
pub use self::tables::Tables;

/// The longest stderr line written, in characters.
const MAX_REASON_CHARS: usize = 2000;

/// Produces the hooks to serve for a working directory.
pub type HookFactory = Arc<dyn Fn(&Path) -> Result<Vec<LoadedHook>, String> + Send + Sync>;

/// What an adapter run may be told besides the event and the input.
#[derive(Clone, Default)]
pub struct AdapterOptions {
    /// The working directory (`--cwd`); overrides the project directory and the input's `cwd`.
    pub cwd: Option<PathBuf>,
    /// The agent's project directory (Claude Code sets `CLAUDE_PROJECT_DIR` for its hook
    /// commands); overrides the input's `cwd`, which follows the agent's `cd` into a
    /// subdirectory, where the project's hook files would not be found.
    pub project_dir: Option<PathBuf>,
    /// Where the hooks come from; `None` loads the linked bundle with [`load_bundle`].
    pub hooks: Option<HookFactory>,
    /// A timeout for every async handler without its own (`None`: no timeout, as upstream).
    pub handler_timeout: Option<Duration>,
    /// How the linked bundle's project-level hook files are checked (`--trust-all`:
    /// [`TrustMode::All`]); default [`TrustMode::Check`].
    pub trust: TrustMode,
    /// The mode and the decision log ([`crate::call::audit`]); default: enforce, no log.
    pub audit: crate::call::audit::Settings,
    /// Where the handlers of a call record what they did
    /// ([`crate::call::trace`]): `hooks explain`, and the decision log of a command call.
    /// `None`: the handlers are not wrapped.
    pub runs: Option<crate::call::trace::Runs>,
}

impl AdapterOptions {
    /// Options that serve the hooks `factory` builds (for tests and embedding hosts).
    #[must_use]
    pub fn with_hooks(factory: impl Fn(&Path) -> Vec<LoadedHook> + Send + Sync + 'static) -> Self {
        AdapterOptions {
            hooks: Some(Arc::new(move |cwd: &Path| Ok(factory(cwd)))),
            ..AdapterOptions::default()
        }
    }

    /// These options with the working directory `cwd`.
    #[must_use]
    pub fn cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }
}

impl fmt::Debug for AdapterOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AdapterOptions")
            .field("cwd", &self.cwd)
            .field("project_dir", &self.project_dir)
            .field("hooks", &self.hooks.as_ref().map(|_| "<factory>"))
            .field("handler_timeout", &self.handler_timeout)
            .field("trust", &self.trust)
            .field("audit", &self.audit)
            .field("runs", &self.runs.is_some())
            .finish()
    }
}

/// Loads the hooks this binary serves for `cwd`, the way every `hooks` command does
/// ([`crate::call::load::load`]): the compiled-in bundle, then the hook files discovered for `cwd`,
/// project-level ones only when trusted ([`TrustMode::Check`]).
///
/// A hook that fails to load is an error, not a warning: a guard that did not load must not
/// look like a guard that let the call through.
///
/// # Errors
/// The load errors (`path: error`), joined into one line.
pub fn load_bundle(cwd: &Path) -> Result<Vec<LoadedHook>, String> {
    bundle_or_error(crate::call::load::load(cwd, &[], &TrustMode::Check))
}

/// [`load_bundle`] for one event, checking project-level hook files as `trust` says: the
/// hook-file discovery runs only for the events a hook file can handle
/// ([`Mapping::is_tool_event`](crate::agents::Mapping::is_tool_event)); the others get the compiled-in hooks alone, without scanning
/// a directory.
///
/// # Errors
/// The load errors (`path: error`), joined into one line.
pub fn load_bundle_for(
    cwd: &Path,
    event: AgentEvent,
    trust: &TrustMode,
) -> Result<Vec<LoadedHook>, String> {
    if event.mapping.is_tool_event() {
        bundle_or_error(crate::call::load::load(cwd, &[], trust))
    } else {
        bundle_or_error(crate::call::load::load_compiled(cwd))
    }
}

pub(super) fn bundle_or_error(
    loaded: crate::call::load::Loaded,
) -> Result<Vec<LoadedHook>, String> {
    if loaded.errors.is_empty() {
        Ok(loaded.hooks)
    } else {
        Err(loaded
            .errors
            .iter()
            .map(|e| format!("{}: {}", e.path, e.error))
            .collect::<Vec<_>>()
            .join("; "))
    }
}
