//! The rule packs: what each blocks, by rule id (`pack:rule`, dcg's ids where dcg has the rule).
//!
//! - [`filesystem`] (`core.filesystem`): `rm` recursive and forced outside temporary
//!   directories, `find -delete`, `chmod` / `chown` / `chgrp` recursive on `/`, a home or a
//!   top-level system directory.
//! - [`git`] (`core.git`): `reset --hard` / `--merge`, `clean -f`, `push --force` without a
//!   lease, `checkout -- <paths>`, `restore` of the worktree, `stash drop` / `clear`,
//!   `branch -D`.
//! - [`system`] (`system.disk`): `dd` to a block device, `mkfs` and other formatters, output
//!   redirected onto a block device.
//! - [`inline`] (`inline.<language>`): interpreter one-liners (`python -c`, `node -e`,
//!   `ruby -e`, `perl -e`, `php -r`, or code fed on standard input) that delete files, and the
//!   shell commands they run (`os.system`, `subprocess`, `child_process`, `system`, backquotes).

pub mod filesystem;
pub mod git;
pub mod inline;
pub mod system;

/// The packs this crate ships, by id.
pub const PACKS: &[&str] = &[
    "core.filesystem",
    "core.git",
    "system.disk",
    "inline.python",
    "inline.node",
    "inline.ruby",
    "inline.perl",
    "inline.php",
];
