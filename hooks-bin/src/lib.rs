//! The `hooks` host, as a library.
//!
//! `hooks` links compiled hook bundles (by default the `examples` crate) and exposes them:
//! list them, drive a session through them with real tools, serve them to Claude Code and
//! Codex. An author's own binary gets every command for their bundle:
//!
//! ```ignore
//! use my_hooks as _; // link the bundle: its #[hook] functions register themselves
//!
//! fn main() -> std::process::ExitCode {
//!     hookwright_cli::main()
//! }
//! ```
//!
//! | command | what it does | exit status |
//! | --- | --- | --- |
//! | `hooks list [--json] [--cwd DIR]` | the hooks that load, in dispatch order ([`cli::list`]) | 0; 1 when a hook failed to load |
//! | `hooks run SCRIPT.jsonl [--session-dir DIR] [--cwd DIR] [--json] [--no-ui]` | drives a session ([`run`]) | 0; 1 an action failed; 2 invalid script |
//! | `hooks claude\|codex\|gemini\|copilot\|qwen\|droid\|cursor EVENT` | serve one agent hook call ([`agents`], [`call`], [`transport::command`]), handed to the running `hooks serve` over its unix socket when one runs (`HOOKS_NO_SERVER=1`: never; [`serve::socket`]) | the agent's protocol: 0; 2 blocks (every failure on a gating event); 1 a failure on an observational event |
//! | `hooks install claude\|codex\|gemini\|copilot\|qwen\|droid\|cursor\|pi\|omp [--project\|--user] [--dry-run] [--claude-version V] [--trust]` | register this binary with the agent ([`install`]; pi and oh-my-pi get the bridge extension, [`install::extension`]) | 0; 1 on failure; 2 invalid usage |
//! | `hooks explain AGENT EVENT [--input FILE] [--json] [--cwd DIR]` | one agent call with every handler that ran, its outcome and time, and the agent's answer ([`cli::explain`]) | 0 explained; 1 the input or the config file cannot be read; 2 invalid usage |
//! | `hooks uninstall AGENT [--project\|--user] [--dry-run]` (every agent `install` takes) | remove this binary's entries from the agent's settings ([`install::uninstall`]; pi and oh-my-pi: the bridge extension, [`install::extension::uninstall`]) | 0; 1 on failure; 2 invalid usage |
//! | `hooks doctor [--project DIR] [--json]` | for each agent on this machine and each entry of this binary in its settings: the binary, the agent's version and switches, Codex's trust, the server of HTTP entries and whether git would commit their secret, project hook files; each finding with its fix ([`cli::doctor`]) | 0 every gating hook runs; 1 a gating hook would not run, or git tracks a file holding the secret; 2 invalid usage |
//! | `hooks serve [--status\|--stop\|--detach] [--port N] [--idle-timeout S] [--max-sessions N] [--call-timeout S]` | serve the hooks over HTTP on 127.0.0.1 and a unix socket in the runtime directory, one runner per agent session ([`serve`]) | 0; 1 not running (`--status`) or cannot serve |
//! | `hooks serve --stdio` | serve the hooks over JSON-RPC 2.0 on stdin and stdout, one session per client session id ([`transport::stdio`]) | 0 at the end of input or on SIGTERM; 1 it could not start |
//! | `hooks new NAME [--path DIR] [--dir DIR]` | create a bundle crate with its host binary, one guard, its tests, a README and a CI workflow ([`cli::new`]) | 0; 1 the directory exists or cannot be written; 2 invalid name or `--path` |
//! | `hooks log [--since WHEN] [--agent AGENT] [--session ID] [--denied] [-f] [--json] [--file FILE]` | the decision log summarized per agent, event, tool and handler: calls, blocks, rewrites, what audit mode would have blocked or rewritten, errors, time; filtered, followed (`-f`) ([`cli::log`]) | 0; 1 no log where it looked, or it cannot be read; 2 invalid usage |
//! | `hooks trust [PATH...]` / `hooks trust --list` / `hooks untrust PATH...` | record, list or remove trusted project hook files ([`trust`]) | 0; 1 a file or the store cannot be read or written; 2 the store is malformed, or no config directory |
//!
//! | environment / config file | what it does |
//! | --- | --- |
//! | `HOOKS_DISABLE=1` | every adapter call (and `hooks serve`'s) answers "no opinion" at once, nothing runs ([`call::hooks_disabled`]) |
//! | `HOOKS_MODE=audit` / `mode = "audit"` in `<config dir>/config.toml` | the adapters and `hooks serve` compute and log every decision and give the agent "no opinion" (exit 0) ([`call::audit`]); `HOOKS_MODE=enforce` overrides the file; another value, or a malformed file, fails the call as bad input does |
//! | `[log] enabled = true` in `config.toml` (always on in audit mode) | the decision log, one JSON line per call, `$XDG_STATE_HOME/hooks/decisions.jsonl` (else `~/.local/state/hooks/`) or `[log] path`, rotated past `max_bytes` keeping `keep` files ([`call::audit::log`]) |
//! | `HOOKS_CONFIG_DIR` | the config directory (trust store, serve secret, `config.toml`, the guards' `guards.toml`) instead of `$XDG_CONFIG_HOME/hooks` or `~/.config/hooks` ([`hookwright::dirs`], [`trust`]) |
//!
//! Project-level hook files (found under the working directory) run only when trusted
//! ([`trust`]); `--trust-all` (an option of `list`, `run`, `claude`, `codex`, also accepted
//! before them: `hooks --trust-all run ...`; and of `serve`) skips that check, e.g. in CI. Usage errors (an
//! unknown option, a missing argument) exit with 2, except for `hooks claude|codex EVENT` on an
//! observational event, where every failure exits 1 ([`agents::Protocol::failure_code`]).

use std::process::ExitCode;

pub mod agents;
pub mod call;
pub mod cli;
pub mod home;
pub mod install;
pub mod json;
pub mod run;
pub mod sanitize;
pub mod serve;
mod sync;
pub mod testing;
mod text;
pub mod transport;
pub mod trust;

pub use cli::{Cli, Command, command};

/// Runs the `hooks` command line (`std::env::args`).
#[must_use]
pub fn main() -> ExitCode {
    cli::main()
}
