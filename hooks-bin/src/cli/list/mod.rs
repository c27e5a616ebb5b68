//! `hooks list`: the hooks that load for a working directory, in dispatch order.
//!
//! # JSON (`--json`, `"version": 1`)
//!
//! One object. Keys and their order are stable; new keys may be added in a later version.
//!
//! ```json
//! {
//!   "version": 1,
//!   "cwd": "/abs/project",
//!   "hooks": [
//!     {"index": 1, "path": "hookwright_examples::block_rm", "resolvedPath": "hookwright_examples::block_rm",
//!      "kind": "compiled",
//!      "handlers": [{"event": "tool_call", "name": "block_rm",
//!                    "location": "examples/src/block_rm.rs:18", "file": "examples/src/block_rm.rs",
//!                    "line": 18, "column": 1}],
//!      "customEvents": [],
//!      "commands": [{"name": "handoff", "description": "...", "location": "...", "shadowed": false}],
//!      "renderers": [{"customType": "debug-only", "shadowed": false}]}
//!   ],
//!   "events": [
//!     {"event": "tool_call", "handlers": [{"hook": "hookwright_examples::block_rm", "name": "block_rm",
//!                                          "location": "examples/src/block_rm.rs:18"}]}
//!   ],
//!   "commands": [{"name": "handoff", "hook": "hookwright_examples::handoff", "description": "...",
//!                 "location": "...", "shadowed": false, "shadowedBy": null}],
//!   "renderers": [{"customType": "debug-only", "hook": "...", "shadowed": false, "shadowedBy": null}],
//!   "discovered": [{"name": "bash.sh", "path": "/abs/.xcsh/hooks/pre/bash.sh", "type": "pre",
//!                   "tool": "bash", "level": "project", "provider": "native",
//!                   "providerName": "OMP", "key": "pre:bash:bash.sh", "shadowed": false,
//!                   "refused": false}],
//!   "errors": [{"path": "/abs/x.ts", "error": "..."}],
//!   "warnings": ["..."],
//!   "agents": [{"agent": "claude", "unreachable": [{"event": "context",
//!               "hook": "hookwright_examples::filter_context", "name": "drop_debug_only",
//!               "location": "examples/src/filter_context.rs:19"}],
//!               "unreachableCommands": []}]
//! }
//! ```
//!
//! - `hooks`: load order, which is dispatch order (compiled-in hooks sorted by id, then
//!   discovered files, then `--hook` paths). `kind` is `compiled` or `file`. A hook's `handlers`
//!   are grouped by event (events in the order of SPEC.md section 3), each group in registration
//!   (source) order. `location` is `file:line` (`null` when unknown).
//! - `events`: for each event with handlers (same event order), every handler in dispatch
//!   order across hooks.
//! - `commands` / `renderers`: every registration, hooks in order; `shadowed` is true when an
//!   earlier hook registered the same name (`getCommand` / `getMessageRenderer` return the
//!   first), and `shadowedBy` names that hook.
//! - `discovered`: every item the capability providers found, in provider-priority order;
//!   `shadowed` items lost to a higher-priority item with the same `key` and are not loaded;
//!   `refused` items were refused by the trust check (their load error is in `errors`): they
//!   do not load and shadow nothing.
//! - `errors`: entries that failed to load; `warnings`: discovery warnings.
//! - `agents`: for each agent `hooks` serves (`claude`, `codex`, `gemini`, `copilot`, `qwen`,
//!   `droid`, `cursor`), the loaded handlers it can never call, because none of its hook
//!   events emits their event (`context` is reached only through Gemini CLI's `BeforeModel`;
//!   `turn_start` through no agent), in event order, and the commands it can never run
//!   (none: every agent has a prompt event).
//!
//! The listing is built as this JSON (`listing`) and the readable form rendered from it
//! (`human`).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::call::load;
use crate::trust::TrustMode;

mod agents;
mod human;
mod listing;

pub use human::human;
pub use listing::listing;

/// The version of the JSON output.
pub const LIST_JSON_VERSION: u32 = 1;

/// Options of `hooks list`.
#[derive(Debug, Clone, clap::Args)]
pub struct ListArgs {
    /// Print one stable JSON object (documented in `hooks list --help`).
    #[arg(long)]
    pub json: bool,
    /// The working directory hooks are discovered for [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Also load this hook (a compiled-in hook id or a hook file); repeatable.
    #[arg(long = "hook", value_name = "PATH")]
    pub hooks: Vec<String>,
}

/// The long help of `hooks list`.
pub const LIST_HELP: &str = "\
JSON output (--json): {\"version\": 1, \"cwd\", \"hooks\": [{\"index\", \"path\", \"resolvedPath\", \"kind\",
\"handlers\": [{\"event\", \"name\", \"location\", \"file\", \"line\", \"column\"}], \"customEvents\",
\"commands\": [{\"name\", \"description\", \"location\", \"shadowed\"}], \"renderers\": [{\"customType\",
\"shadowed\"}]}], \"events\": [{\"event\", \"handlers\": [{\"hook\", \"name\", \"location\"}]}],
\"commands\": [{\"name\", \"hook\", \"description\", \"location\", \"shadowed\", \"shadowedBy\"}],
\"renderers\": [{\"customType\", \"hook\", \"shadowed\", \"shadowedBy\"}], \"discovered\": [{\"name\",
\"path\", \"type\", \"tool\", \"level\", \"provider\", \"providerName\", \"key\", \"shadowed\",
\"refused\"}],
\"errors\": [{\"path\", \"error\"}], \"warnings\": [...], \"agents\": [{\"agent\", \"unreachable\":
[{\"event\", \"hook\", \"name\", \"location\"}], \"unreachableCommands\": [{\"name\", \"hook\"}]}]}
Hooks and handlers are listed in dispatch order. Under agents: per agent CLI, the handlers and
commands it can never call (none of its hook events emits their event); pi and oh-my-pi last,
by what their bridge is given.

Exit status: 0 every hook loaded; 1 at least one hook failed to load (listed under errors);
2 invalid usage.";

/// Runs `hooks list`, checking project hook files as `trust` says.
#[must_use]
pub fn run(args: &ListArgs, trust: &TrustMode) -> ExitCode {
    let cwd = match args.cwd.clone().map_or_else(std::env::current_dir, Ok) {
        Ok(cwd) => cwd,
        Err(e) => {
            eprintln!("hooks list: no current directory: {e}");
            return ExitCode::from(2);
        }
    };
    let cwd = match cwd.canonicalize() {
        Ok(cwd) => cwd,
        Err(e) => {
            eprintln!(
                "hooks list: cannot use {} as the working directory: {e}",
                cwd.display()
            );
            return ExitCode::from(2);
        }
    };
    let loaded = load::load(&cwd, &args.hooks, trust);
    let listing = listing(&cwd, &loaded);
    let mut out = std::io::stdout().lock();
    let written = if args.json {
        serde_json::to_writer_pretty(&mut out, &listing)
            .map_err(std::io::Error::other)
            .and_then(|()| writeln!(out))
    } else {
        out.write_all(human(&listing).as_bytes())
    };
    if let Err(e) = written.and_then(|()| out.flush()) {
        eprintln!("hooks list: cannot write output: {e}");
        return ExitCode::FAILURE;
    }
    if loaded.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
