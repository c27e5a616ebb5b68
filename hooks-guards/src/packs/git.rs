//! `core.git`: git commands that destroy uncommitted work, untracked files, stashes, branches
//! or remote history.

use crate::Block;

/// The block for `git ARGS`, if any.
#[must_use]
pub fn judge(args: &[&str]) -> Option<Block> {
    let (sub, rest) = subcommand(args)?;
    match sub {
        "reset" => reset(rest),
        "clean" => clean(rest),
        "push" => push(rest),
        "checkout" => checkout(rest),
        "switch" => switch(rest),
        "restore" => restore(rest),
        "stash" => stash(rest),
        "branch" => branch(rest),
        _ => None,
    }
}

/// The subcommand and its arguments, past git's own options (`-C dir`, `-c k=v`, ...).
fn subcommand<'a>(args: &'a [&'a str]) -> Option<(&'a str, &'a [&'a str])> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if matches!(
            *arg,
            "-C" | "-c"
                | "--git-dir"
                | "--work-tree"
                | "--namespace"
                | "--exec-path"
                | "--config-env"
        ) {
            i += 2;
        } else if arg.starts_with('-') {
            i += 1;
        } else {
            return Some((arg, &args[i + 1..]));
        }
    }
    None
}

/// The options before `--`, and the words after it (`None` without `--`).
fn split_dashdash<'a>(args: &'a [&'a str]) -> (&'a [&'a str], Option<&'a [&'a str]>) {
    match args.iter().position(|a| *a == "--") {
        Some(p) => (&args[..p], Some(&args[p + 1..])),
        None => (args, None),
    }
}

/// Whether a short-option cluster (`-fdx`) among `args` holds `flag`, or a long option is `long`.
fn has(args: &[&str], flag: char, long: &str) -> bool {
    args.iter().any(|a| {
        *a == long
            || a.strip_prefix(long).is_some_and(|v| v.starts_with('='))
            || (a.starts_with('-') && !a.starts_with("--") && a[1..].contains(flag))
    })
}

/// Whether `arg` is the long option `long` or an abbreviation git accepts for it (`--ha` for
/// `--hard`: git takes any unambiguous prefix; `min` is the shortest this guard counts).
fn long(arg: &str, long: &str, min: usize) -> bool {
    let name = arg.split_once('=').map_or(arg, |(name, _)| name);
    name.len() >= min && long.starts_with(name)
}

fn block(rule: &'static str, what: String, instead: &'static str) -> Option<Block> {
    Some(Block {
        rule,
        what,
        instead,
    })
}

fn reset(args: &[&str]) -> Option<Block> {
    let (opts, _) = split_dashdash(args);
    if opts.iter().any(|a| long(a, "--hard", 4)) {
        return block(
            "core.git:reset-hard",
            "`git reset --hard` destroys uncommitted changes in the working tree and the index"
                .to_owned(),
            "`git stash` first (recoverable with `git stash pop`), `git reset --keep <commit>` \
             (refuses to drop local changes), or `git reset --soft` / `git restore --staged` to \
             move only the index",
        );
    }
    if opts.iter().any(|a| long(a, "--merge", 4)) {
        return block(
            "core.git:reset-merge",
            "`git reset --merge` can discard uncommitted changes".to_owned(),
            "`git merge --abort` to leave a merge, or `git stash` first",
        );
    }
    None
}

fn clean(args: &[&str]) -> Option<Block> {
    let (opts, _) = split_dashdash(args);
    let dry = has(opts, 'n', "--dry-run") || opts.iter().any(|a| long(a, "--dry-run", 3));
    ((has(opts, 'f', "--force") || opts.iter().any(|a| long(a, "--force", 4))) && !dry).then(|| Block {
        rule: "core.git:clean-force",
        what: "`git clean -f` permanently removes untracked files (they are in no commit)"
            .to_owned(),
        instead: "`git clean -n` (dry run) to list them and show the user, `git stash -u` to set \
                  them aside recoverably, or delete the files you created by name",
    })
}

fn push(args: &[&str]) -> Option<Block> {
    let (opts, after) = split_dashdash(args);
    let lease = opts
        .iter()
        .any(|a| a.starts_with("--force-with-lease") || a.starts_with("--force-if-includes"));
    let forced = opts.iter().any(|a| long(a, "--force", 4));
    let short = opts
        .iter()
        .any(|a| a.starts_with('-') && !a.starts_with("--") && a[1..].contains('f'));
    let plus_refspec = opts
        .iter()
        .chain(after.unwrap_or(&[]))
        .filter(|a| !a.starts_with('-'))
        .skip(1)
        .any(|a| a.starts_with('+'));
    let deletes = opts
        .iter()
        .any(|a| long(a, "--delete", 4) || long(a, "--mirror", 4) || long(a, "--prune", 5))
        || opts
            .iter()
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a[1..].contains('d'))
        || opts
            .iter()
            .chain(after.unwrap_or(&[]))
            .filter(|a| !a.starts_with('-'))
            .skip(1)
            .any(|a| a.starts_with(':'));
    let rule = if forced && !lease {
        "core.git:push-force-long"
    } else if short {
        "core.git:push-force-short"
    } else if plus_refspec {
        "core.git:push-force-refspec"
    } else if deletes {
        return block(
            "core.git:push-delete",
            "`git push --delete` / `:branch` / `--mirror` / `--prune` deletes branches or tags on \
             the remote"
                .to_owned(),
            "ask the user to delete remote branches; push to a new branch instead",
        );
    } else {
        return None;
    };
    block(
        rule,
        "Force push overwrites the remote branch's history, and others' commits on it are lost"
            .to_owned(),
        "`git push --force-with-lease` (refuses when the remote moved), or push to a new branch",
    )
}

fn checkout(args: &[&str]) -> Option<Block> {
    let (opts, paths) = split_dashdash(args);
    if opts.iter().any(|a| matches!(*a, "-b" | "-B" | "--orphan")) {
        return None;
    }
    if let Some(paths) = paths {
        if paths.is_empty() {
            return None;
        }
        let with_ref = opts.iter().any(|a| !a.starts_with('-'));
        return block(
            if with_ref {
                "core.git:checkout-ref-discard"
            } else {
                "core.git:checkout-discard"
            },
            format!(
                "`git checkout {}-- {}` overwrites uncommitted changes to those paths",
                if with_ref { "<ref> " } else { "" },
                paths.join(" ")
            ),
            "`git stash` first, or `git diff -- <path>` to show the user what would be lost",
        );
    }
    if has(opts, 'f', "--force") {
        return block(
            "core.git:checkout-force",
            "`git checkout --force` throws away local changes".to_owned(),
            "`git stash` first, then `git checkout <branch>`",
        );
    }
    if opts.iter().any(|a| matches!(*a, "." | ":/")) {
        return block(
            "core.git:checkout-discard",
            "`git checkout .` overwrites every uncommitted change in the working tree".to_owned(),
            "`git stash` first, or `git diff` to show the user what would be lost",
        );
    }
    None
}

fn switch(args: &[&str]) -> Option<Block> {
    let (opts, _) = split_dashdash(args);
    let discard = has(opts, 'f', "--force") || opts.iter().any(|a| long(a, "--discard-changes", 4));
    discard.then(|| Block {
        rule: "core.git:checkout-force",
        what: "`git switch --discard-changes` (`-f`) throws away local changes".to_owned(),
        instead: "`git stash` first, then `git switch <branch>`",
    })
}

fn restore(args: &[&str]) -> Option<Block> {
    let (opts, paths) = split_dashdash(args);
    let staged = has(opts, 'S', "--staged");
    let worktree = has(opts, 'W', "--worktree");
    let has_paths =
        paths.is_some_and(|p| !p.is_empty()) || opts.iter().any(|a| !a.starts_with('-'));
    if !has_paths || (staged && !worktree) {
        return None;
    }
    block(
        if worktree {
            "core.git:restore-worktree-explicit"
        } else {
            "core.git:restore-worktree"
        },
        "`git restore` of the working tree discards uncommitted changes to those files".to_owned(),
        "`git restore --staged <path>` to unstage only, or `git stash` first",
    )
}

fn stash(args: &[&str]) -> Option<Block> {
    match args.iter().find(|a| !a.starts_with('-')) {
        Some(&"drop") => block(
            "core.git:stash-drop",
            "`git stash drop` deletes a stash entry".to_owned(),
            "`git stash list` and `git stash show -p` to check it first, or `git stash pop` / \
             `git stash apply` to use it",
        ),
        Some(&"clear") => block(
            "core.git:stash-clear",
            "`git stash clear` deletes every stash entry".to_owned(),
            "`git stash list` to show them to the user, and drop only the ones they name",
        ),
        _ => None,
    }
}

fn branch(args: &[&str]) -> Option<Block> {
    let capital = args
        .iter()
        .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('D'));
    let delete = has(args, 'd', "--delete");
    let force = has(args, 'f', "--force");
    (capital || (delete && force)).then(|| Block {
        rule: "core.git:branch-force-delete",
        what: "`git branch -D` deletes a branch even when its commits are merged nowhere"
            .to_owned(),
        instead: "`git branch -d <branch>` (refuses unmerged work)",
    })
}
