//! `core.filesystem`: deleting or re-permissioning trees outside temporary directories.

use crate::Block;

/// `rm` with a recursive and a force flag, unless every target is `disposable` (inside a
/// temporary directory, [`is_temp_path`], or a directory the configuration allows); `rm`
/// recursive (without force) of `/` or a home directory.
#[must_use]
pub fn rm(args: &[&str], disposable: impl Fn(&str) -> bool) -> Option<Block> {
    let mut recursive = false;
    let mut force = false;
    let mut long = false;
    let mut targets = Vec::new();
    let mut options_done = false;
    for arg in args {
        if options_done || !arg.starts_with('-') || *arg == "-" {
            targets.push(*arg);
        } else if *arg == "--" {
            options_done = true;
        } else if let Some(name) = arg.strip_prefix("--") {
            match name {
                "recursive" => {
                    recursive = true;
                    long = true;
                }
                "force" => {
                    force = true;
                    long = true;
                }
                _ => {}
            }
        } else {
            recursive |= arg.contains(['r', 'R']);
            force |= arg.contains('f');
        }
    }
    if !recursive {
        return None;
    }
    let root_or_home = targets.iter().any(|t| is_root_or_home(t));
    if !force {
        let home_var = targets
            .iter()
            .any(|t| matches!(t.trim_end_matches('/'), "$HOME" | "${HOME}"));
        return (root_or_home || home_var).then(|| Block {
            rule: "core.filesystem:rm-r-root-home",
            what: format!(
                "`rm -r {}` deletes a root or home directory tree",
                targets.join(" ")
            ),
            instead: RM_INSTEAD,
        });
    }
    if !targets.is_empty() && targets.iter().all(|t| disposable(t)) {
        return None;
    }
    let rule = if root_or_home {
        "core.filesystem:rm-rf-root-home"
    } else if long {
        "core.filesystem:rm-recursive-force-long"
    } else {
        "core.filesystem:rm-rf-general"
    };
    let what = if targets.is_empty() {
        "`rm -rf` with targets only known when it runs (from a pipe, `xargs` or a variable) deletes without asking".to_owned()
    } else if root_or_home {
        format!(
            "`rm -rf {}` deletes a root or home directory: EXTREMELY DANGEROUS",
            targets.join(" ")
        )
    } else {
        format!(
            "`rm -rf {}` is destructive: it deletes the tree without asking, outside a temporary directory",
            targets.join(" ")
        )
    };
    Some(Block {
        rule,
        what,
        instead: RM_INSTEAD,
    })
}

const RM_INSTEAD: &str = "delete only what you created, by name and without -r/-f \
    (`rm file`, `rmdir empty-dir`), move it aside (`mv build /tmp/build.old`), use the build \
    tool's clean (`cargo clean`, `make clean`), or ask the user to delete it";

/// `find ... -delete` unless every starting path is `disposable` (see [`rm`]).
#[must_use]
pub fn find_delete(start_paths: &[&str], disposable: impl Fn(&str) -> bool) -> Option<Block> {
    if start_paths.iter().all(|p| disposable(p)) {
        return None;
    }
    Some(Block {
        rule: "core.filesystem:find-delete",
        what: format!(
            "`find {} ... -delete` deletes every file that matches, without asking",
            start_paths.join(" ")
        ),
        instead: "run the same `find` with `-print` first and show the list to the user; delete \
            the files you created by name, or let the user run the deletion",
    })
}

/// `chmod` / `chown` / `chgrp` recursive on `/`, a home directory or a top-level system
/// directory (`/etc`, `/usr`, ...).
#[must_use]
pub fn recursive_mode(tool: &str, args: &[&str]) -> Option<Block> {
    let recursive = args.iter().any(|a| {
        *a == "--recursive" || (a.starts_with('-') && !a.starts_with("--") && a.contains('R'))
    });
    if !recursive {
        return None;
    }
    let target = args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .skip(1)
        .find(|a| is_root_or_home(a) || is_top_level_system_dir(a))?;
    Some(Block {
        rule: "core.filesystem:chmod-recursive-root",
        what: format!(
            "`{tool} -R` on `{target}` changes the ownership or mode of a whole system tree"
        ),
        instead: "change only the files your task needs, by path and without -R; a broken \
            system tree's permissions cannot be undone",
    })
}

/// Whether `path` is strictly inside `/tmp`, `/var/tmp`, `/private/tmp` or `$TMPDIR` (in any
/// of its spellings: `$TMPDIR`, `${TMPDIR}`, `${TMPDIR:-/tmp}`), with no `..` and nothing that
/// expands after the prefix.
#[must_use]
pub fn is_temp_path(path: &str) -> bool {
    let rest = [
        "/tmp/",
        "/var/tmp/",
        "/private/tmp/",
        "$TMPDIR/",
        "${TMPDIR}/",
    ]
    .iter()
    .find_map(|prefix| path.strip_prefix(prefix))
    .or_else(|| {
        let after = path
            .strip_prefix("${TMPDIR:-")
            .or_else(|| path.strip_prefix("${TMPDIR-"))?;
        let (default, rest) = after.split_once('}')?;
        let default_is_temp = ["/tmp", "/var/tmp"].contains(&default.trim_end_matches('/'));
        default_is_temp.then_some(rest.strip_prefix('/')?)
    });
    let Some(rest) = rest else {
        return false;
    };
    !rest.is_empty()
        && !rest.contains(['$', '`'])
        && rest.split('/').all(|part| part != "..")
        && rest.trim_matches('/') != "."
}

/// `/`, `/*`, `~`, `~/`, `~/*`, `$HOME`, `${HOME}` and the like.
fn is_root_or_home(path: &str) -> bool {
    let trimmed = path.trim_end_matches(['/', '*']);
    trimmed.is_empty()
        || matches!(
            trimmed,
            "~" | "/home" | "/root" | "/Users" | "$HOME" | "${HOME}"
        )
}

/// `/etc`, `/usr`, `/var`, ... : a directory one level under `/`, other than `/tmp`.
fn is_top_level_system_dir(path: &str) -> bool {
    let trimmed = path.trim_end_matches('/');
    trimmed.starts_with('/') && trimmed.matches('/').count() == 1 && trimmed != "/tmp"
}
