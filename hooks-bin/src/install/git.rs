//! Keeping the files that hold the secret of `hooks serve` out of git: `install --http` makes
//! git ignore them before it writes the secret, refuses when one is tracked, and `doctor`
//! reports where they stand ([`standing`]).
//!
//! Claude Code 2.1.328 does the same for the `.claude/settings.local.json` it creates: it
//! asks `git check-ignore`, and when the file is not ignored appends
//! `**/.claude/settings.local.json` to the user's global excludes file (`core.excludesFile`,
//! else `$XDG_CONFIG_HOME/git/ignore` or `~/.config/git/ignore`), checks again, and only warns
//! (`already_tracked`) when `git ls-files --error-unmatch` says the file is tracked. Here the
//! rule goes into the clone's own exclude file (`git rev-parse --git-path info/exclude`,
//! shared by its worktrees): it is never committed, changes nothing outside this clone, and
//! does not depend on a global setting that another `HOME` or `GIT_CONFIG_GLOBAL` would not
//! read. Each rule is the file's own path from the top of the work tree (`/.claude/
//! settings.local.json`), for the file and for its backup (`settings.local.json.bak`, which
//! holds the previous content, and so the secret). A tracked file is refused instead: no
//! ignore rule applies to a file in the index.
//!
//! Outside a git work tree nothing is done. Inside one (a `.git` in the directory or above,
//! or `GIT_DIR` set) where `git` cannot be run, nothing can be checked, and the install is
//! refused (fail closed): writing the exclude rule by hand would not say whether the file is
//! already tracked, which is the case where the secret is committed anyway.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::text::shell_quote;

use super::InstallError;

/// Where a file stands in git.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    /// Not in a git work tree: nothing commits it.
    Outside,
    /// Ignored: `git add -A` leaves it out.
    Ignored,
    /// Neither tracked nor ignored: `git add -A` adds it.
    NotIgnored,
    /// Tracked: in the index, so every change of it is committed.
    Tracked {
        /// The command that stops tracking it (`git rm --cached`, then a commit).
        fix: String,
    },
}

/// Where `file` stands in git ([`Standing`]).
///
/// # Errors
/// In a git work tree where `git` cannot be run or fails: why.
pub fn standing(file: &Path) -> Result<Standing, String> {
    let Some(repo) = Repo::of(file)? else {
        return Ok(Standing::Outside);
    };
    let rel = repo.relative(file)?;
    if repo.tracked(&rel)? {
        return Ok(Standing::Tracked {
            fix: repo.untrack(&rel),
        });
    }
    Ok(if repo.ignored(&rel)? {
        Standing::Ignored
    } else {
        Standing::NotIgnored
    })
}

/// Makes sure git will not commit `file`, which is about to hold the secret of `hooks serve`,
/// nor its backup: refuses when either is tracked, and adds a rule for each one that is not
/// ignored to the clone's exclude file, then checks with `git check-ignore` that it is
/// ignored. With `dry_run`, says which rules it would add and adds none. Reports to `out`.
///
/// # Errors
/// [`InstallError::SecretTracked`] when a file is tracked, [`InstallError::SecretUnguarded`]
/// when git cannot be asked or still does not ignore a file; nothing was written then but,
/// in the last case, the rules.
pub fn keep_out(file: &Path, dry_run: bool, out: &mut dyn Write) -> Result<(), InstallError> {
    let unguarded = |why: String| InstallError::SecretUnguarded {
        path: file.to_path_buf(),
        why,
    };
    let Some(repo) = Repo::of(file).map_err(unguarded)? else {
        return Ok(());
    };
    let mut backup = file.as_os_str().to_owned();
    backup.push(".bak");
    let files = [file.to_path_buf(), PathBuf::from(backup)];
    let mut exposed = Vec::new();
    for path in &files {
        let rel = repo.relative(path).map_err(unguarded)?;
        if repo.tracked(&rel).map_err(unguarded)? {
            return Err(InstallError::SecretTracked {
                path: path.clone(),
                fix: repo.untrack(&rel),
            });
        }
        if !repo.ignored(&rel).map_err(unguarded)? {
            exposed.push(rel);
        }
    }
    if exposed.is_empty() {
        return Ok(());
    }
    let rules = exposed
        .iter()
        .map(|rel| rule(rel))
        .collect::<Result<Vec<_>, _>>()
        .map_err(unguarded)?;
    let o = |r: io::Result<()>| r.map_err(InstallError::Output);
    let shown = rules
        .iter()
        .map(|r| format!("`{r}`"))
        .collect::<Vec<_>>()
        .join(" and ");
    let exclude = repo.exclude.display();
    if dry_run {
        return o(writeln!(
            out,
            "Would add {shown} to {exclude} (this clone's own ignore rules, never committed), \
             so that git ignores the file that will hold the secret of `hooks serve`."
        ));
    }
    append_rules(&repo.exclude, &rules).map_err(|e| unguarded(format!("{exclude}: {e}")))?;
    for rel in &exposed {
        if !repo.ignored(rel).map_err(unguarded)? {
            return Err(unguarded(format!(
                "git still does not ignore {rel} after {shown} went into {exclude}: a `!` rule \
                 in a .gitignore re-includes it (`git check-ignore -v --no-index -- {}` shows \
                 which); remove that rule and install again",
                shell_quote(rel)
            )));
        }
    }
    o(writeln!(
        out,
        "Added {shown} to {exclude} (this clone's own ignore rules, never committed): git \
         ignores the file that holds the secret of `hooks serve`."
    ))
}

/// The git work tree a file is in: its top directory, and the clone's exclude file.
#[derive(Debug)]
struct Repo {
    /// `git rev-parse --show-toplevel`.
    top: PathBuf,
    /// `git rev-parse --git-path info/exclude`, absolute.
    exclude: PathBuf,
}

impl Repo {
    /// The work tree `file` is in, if any (asked in its nearest directory that exists).
    fn of(file: &Path) -> Result<Option<Repo>, String> {
        let dir = existing_dir(file);
        let output = match git(
            &dir,
            &["rev-parse", "--show-toplevel", "--git-path", "info/exclude"],
        ) {
            Ok(output) => output,
            Err(e) => {
                return match repository_above(&dir) {
                    Some(marker) => Err(format!(
                        "it is in a git repository ({}), but `git` cannot be run ({e}): put \
                         git on PATH",
                        marker.display()
                    )),
                    None => Ok(None),
                };
            }
        };
        if !output.status.success() {
            let said = one_line(&output.stderr);
            if said.contains("not a git repository") || repository_above(&dir).is_none() {
                return Ok(None);
            }
            return Err(format!(
                "`git rev-parse` failed in {}: {said}",
                dir.display()
            ));
        }
        let printed = String::from_utf8_lossy(&output.stdout);
        let mut lines = printed.lines();
        match (lines.next(), lines.next()) {
            (Some(top), Some(exclude)) if !top.is_empty() => Ok(Some(Repo {
                top: PathBuf::from(top),
                exclude: dir.join(exclude),
            })),
            // In a git directory, or a bare repository: no work tree to commit it from.
            _ => Ok(None),
        }
    }

    /// `path` from the top of the work tree, `/`-separated.
    fn relative(&self, path: &Path) -> Result<String, String> {
        let resolved = resolved(path);
        let rel = resolved.strip_prefix(&self.top).map_err(|_| {
            format!(
                "{} is not under the work tree {} git names",
                resolved.display(),
                self.top.display()
            )
        })?;
        rel.to_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("{} is not valid UTF-8", rel.display()))
    }

    /// Whether `rel` is in the index (`git ls-files --error-unmatch`).
    fn tracked(&self, rel: &str) -> Result<bool, String> {
        self.ask(&[
            "--literal-pathspecs",
            "ls-files",
            "--error-unmatch",
            "--",
            rel,
        ])
    }

    /// Whether git ignores `rel` (`git check-ignore`, which takes paths as they are and
    /// refuses `--literal-pathspecs`).
    fn ignored(&self, rel: &str) -> Result<bool, String> {
        self.ask(&["check-ignore", "-q", "--", rel])
    }

    /// Runs `git ARGS` in the top directory: exit 0 is yes, 1 no, anything else an error.
    fn ask(&self, args: &[&str]) -> Result<bool, String> {
        let output = git(&self.top, args).map_err(|e| format!("cannot run `git`: {e}"))?;
        match output.status.code() {
            Some(0) => Ok(true),
            Some(1) => Ok(false),
            _ => Err(format!(
                "`git {}` failed in {}: {}",
                args.iter().find(|a| !a.starts_with('-')).unwrap_or(&""),
                self.top.display(),
                one_line(&output.stderr)
            )),
        }
    }

    /// The commands that stop tracking `rel` and commit that.
    fn untrack(&self, rel: &str) -> String {
        let top = shell_quote(&self.top.display().to_string());
        format!(
            "git -C {top} rm --cached -- {rel} && git -C {top} commit -m {message}",
            rel = shell_quote(rel),
            message = shell_quote(&format!("Stop tracking {rel}")),
        )
    }
}

/// `git ARGS` in `dir`, messages in English, stdin closed.
fn git(dir: &Path, args: &[&str]) -> io::Result<Output> {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .output()
}

/// The exclude rule that ignores exactly `rel`: anchored at the top of the work tree, with
/// the characters a pattern treats specially escaped.
fn rule(rel: &str) -> Result<String, String> {
    if rel.contains(['\n', '\r']) {
        return Err(format!(
            "{rel:?}: no ignore rule can name a path with a line break"
        ));
    }
    let mut rule = String::from("/");
    for c in rel.chars() {
        if matches!(c, '\\' | '*' | '?' | '[') {
            rule.push('\\');
        }
        rule.push(c);
    }
    // Trailing spaces are dropped unless escaped.
    let kept = rule.trim_end_matches(' ').len();
    let spaces = rule.len() - kept;
    rule.truncate(kept);
    rule.push_str(&"\\ ".repeat(spaces));
    Ok(rule)
}

/// Appends `rules` to the exclude file `path` (made, with its directory, when missing), under
/// a comment saying whose they are.
fn append_rules(path: &Path, rules: &[String]) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let old = match std::fs::read(path) {
        Ok(old) => old,
        Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e),
    };
    let mut text = String::new();
    if !old.is_empty() && !old.ends_with(b"\n") {
        text.push('\n');
    }
    text.push_str("# hooks install claude --http: these hold the secret of `hooks serve`\n");
    for rule in rules {
        text.push_str(rule);
        text.push('\n');
    }
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()
}

/// The nearest directory of `file`'s that exists (its own, or one above it).
fn existing_dir(file: &Path) -> PathBuf {
    file.ancestors()
        .skip(1)
        .find(|dir| dir.is_dir())
        .unwrap_or(Path::new("/"))
        .to_path_buf()
}

/// `path` with its existing part resolved (symlinks, `..`), the rest as it is: the form git
/// gives the top directory in.
fn resolved(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut base = path;
    loop {
        if let Ok(real) = base.canonicalize() {
            return rest.iter().rev().fold(real, |p, name| p.join(name));
        }
        match (base.parent(), base.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                base = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// What says that `dir` is in a git repository without asking git: `GIT_DIR`, or a `.git`
/// in it or above it.
fn repository_above(dir: &Path) -> Option<PathBuf> {
    if let Some(git_dir) = std::env::var_os("GIT_DIR").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(git_dir));
    }
    dir.ancestors()
        .map(|d| d.join(".git"))
        .find(|marker| std::fs::symlink_metadata(marker).is_ok())
}

/// What git printed on stderr, on one line.
fn one_line(stderr: &[u8]) -> String {
    crate::json::one_line(String::from_utf8_lossy(stderr).trim(), 300)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_names_exactly_the_path() {
        assert_eq!(
            rule(".claude/settings.local.json").unwrap(),
            "/.claude/settings.local.json"
        );
        assert_eq!(rule("a [b]/*?.json").unwrap(), r"/a \[b]/\*\?.json");
        assert_eq!(rule(r"x\y  ").unwrap(), r"/x\\y\ \ ");
        assert!(rule("a\nb").is_err());
    }
}
