//! Trusted hook files: the `hooks` host runs a project's hook files only after the user has
//! reviewed them and recorded their content with `hooks trust`.
//!
//! A repository can ship hook files (`.xcsh/hooks/pre/bash.sh`, `.claude/hooks/pre/*.sh`, ...)
//! that the host would otherwise run on the first tool call after a clone. Here they load only
//! when the SHA-256 hash of their content is recorded in the user's trust store; a file that is
//! not recorded, or whose content changed since, becomes a load error that says which and how
//! to trust it, and it never runs. The check is a
//! [`FilePolicy`](hookwright::loader::FilePolicy) ([`TrustPolicy`]) that the loader consults
//! before de-duplication, so a refused file also hides nothing: the user's own hook with the
//! same key (`pre:bash:bash.sh`) still loads.
//!
//! | module | holds |
//! | --- | --- |
//! | `store` | the trust store: its format, the hashes and keys it records, atomic writes ([`TrustStore`]) |
//! | `config` | where the store lives ([`store_path`]; the names it is found by are here) |
//! | `policy` | which files need trust and the loader's check for a [`TrustMode`] ([`TrustPolicy`]) |
//! | (the commands) | `hooks trust` and `hooks untrust` are [`crate::cli::trust`] |
//! | `error` | why a command or check failed ([`TrustError`]) and how paths appear in messages |
//!
//! # What needs trust
//!
//! | hook | runs |
//! | --- | --- |
//! | compiled-in (linked into the binary) | always |
//! | user-level hook file (discovered under the home directory: `~/.xcsh/agent/hooks`, `~/.xcsh/hooks`, `~/.claude/hooks`, ...) | always |
//! | project-level hook file (discovered under the working directory: `.xcsh/hooks`, `.claude/hooks`, ..., project plugins) | when trusted |
//! | a `--hook PATH` under the working directory | when trusted |
//! | a `--hook PATH` elsewhere | always (named by the user on the command line) |
//!
//! A file that a provider reports at user level is user-level even when the working directory
//! is the home directory itself. User level exists only with an absolute home directory
//! ([`crate::home`]). `--trust-all` (on `list`, `run`, `claude`, `codex`) skips the check, for
//! CI machines that run a checked-out repository's hooks on purpose.
//!
//! # The trust store
//!
//! `<config dir>/trusted.json`, where the config directory is `$HOOKS_CONFIG_DIR` if set (it
//! must be absolute), else `$XDG_CONFIG_HOME/hooks` if `XDG_CONFIG_HOME` is absolute (a
//! relative one is ignored, as the XDG spec says), else `~/.config/hooks` with an absolute
//! home ([`crate::home::home_dir`]); else there is none, and nothing is written:
//!
//! ```json
//! {"version": 1, "files": {"/abs/project/.xcsh/hooks/pre/bash.sh": "<sha256 hex>"}}
//! ```
//!
//! Keys are canonical absolute paths (symlinks resolved), values lowercase hex SHA-256 of the
//! file's bytes. The store is read with the bounded decoder of [`crate::json`]
//! (16 MiB, 64 levels); a malformed store is an error naming `file:line:column`, and no
//! command overwrites it. Writes go to a temporary file in the same directory, which is flushed
//! and renamed over the store (atomic); unknown keys are not kept.
//!
//! # Commands
//!
//! | command | what it does | exit status |
//! | --- | --- | --- |
//! | `hooks trust [--cwd DIR]` | trusts every project hook file discovered for the working directory | 0; 1 a file or the store cannot be read or written; 2 the store is malformed, or there is no config directory |
//! | `hooks trust PATH...` | trusts these files (all or nothing) | the same |
//! | `hooks trust --list` | lists the trusted files and whether each still matches | 0; 1 the store cannot be read; 2 it is malformed, or no config directory |
//! | `hooks untrust PATH...` | removes these files from the store | 0; 1 a path was not trusted (the others are removed) or the store cannot be written; 2 malformed, or no config directory |
//!
//! # Limits
//!
//! - Only the hook file's own bytes are hashed: scripts or programs it runs are not covered.
//! - The check is made when the hooks load and again before each run of the file
//!   ([`TrustPolicy`]), so a file changed while a resident server keeps its hooks is refused on
//!   its next call; it runs by its path a moment after it was hashed, and a process that can
//!   rewrite it in that moment already runs as the user.
//! - Two `hooks trust` running at the same time: the last write wins.

mod config;
mod error;
mod policy;
mod store;

pub use config::{config_dir, config_dir_from, store_path};
pub use error::{TrustError, shown};
pub use policy::{TrustMode, TrustPolicy, needs_trust, project_hook_files, trust_hint};
pub use store::{TRUST_VERSION, TrustStatus, TrustStore, file_key, sha256_file, sha256_hex};

/// The environment variable naming the config directory (overrides the XDG rules).
pub use hookwright::dirs::CONFIG_DIR_ENV;

/// The trust store's file name in the config directory.
pub const TRUST_FILE: &str = "trusted.json";
