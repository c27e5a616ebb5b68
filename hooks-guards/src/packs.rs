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

/// Every rule of the packs, by id (`pack:rule`): what `[rules]` in the configuration may name.
/// The `guard` rules (`guard:unreadable`, `guard:config`) are not among them: they are always on.
pub const RULES: &[&str] = &[
    "core.filesystem:chmod-recursive-root",
    "core.filesystem:find-delete",
    "core.filesystem:rm-r-root-home",
    "core.filesystem:rm-recursive-force-long",
    "core.filesystem:rm-rf-general",
    "core.filesystem:rm-rf-root-home",
    "core.git:branch-force-delete",
    "core.git:checkout-discard",
    "core.git:checkout-force",
    "core.git:checkout-ref-discard",
    "core.git:clean-force",
    "core.git:push-delete",
    "core.git:push-force-long",
    "core.git:push-force-refspec",
    "core.git:push-force-short",
    "core.git:reset-hard",
    "core.git:reset-merge",
    "core.git:restore-worktree",
    "core.git:restore-worktree-explicit",
    "core.git:stash-clear",
    "core.git:stash-drop",
    "inline.node:delete",
    "inline.perl:delete",
    "inline.php:delete",
    "inline.python:delete",
    "inline.ruby:delete",
    "system.disk:dd-device",
    "system.disk:mkfs",
    "system.disk:redirect-device",
];
