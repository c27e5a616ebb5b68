//! Which command an entry runs: this binary by its bare name on `PATH`, by a path inside the
//! project through the agent's project-directory variable, or by its absolute path; how
//! `install` chooses among them ([`choose`]), how each is spelled in an agent's file
//! ([`Command::word`]) and read back ([`Command::parse`]), and where it leads on this machine
//! ([`Command::resolve`]). See the [module docs](super#the-command-an-entry-runs).

use std::ffi::OsStr;
use std::fmt;
use std::path::{Component, Path, PathBuf};

use super::{InstallError, Scope, Target};
use crate::agents::{Form, ProjectDir};
use crate::text::shell_quote;

/// The command an entry of this tool runs.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Command {
    /// A bare program name, found on `PATH` by the agent (of whoever runs it).
    Name(String),
    /// A path relative to the project directory, reached through the agent's
    /// project-directory variable ([`project_dir`]).
    InProject(PathBuf),
    /// An absolute path.
    Path(PathBuf),
}

impl fmt::Display for Command {
    /// `hooks`, `<project>/target/debug/hooks`, `/usr/local/bin/hooks`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Name(name) => f.write_str(name),
            Command::InProject(rel) => write!(f, "<project>/{}", rel.display()),
            Command::Path(path) => write!(f, "{}", path.display()),
        }
    }
}

/// The project-directory variable of `target` that works in its hook's command, if it has
/// one ([`Spec::project_dir`](crate::agents::Spec::project_dir)).
#[must_use]
pub fn project_dir(target: Target) -> Option<ProjectDir> {
    target.protocol().project_dir()
}

impl Command {
    /// The command as `target`'s file holds it in `form`: for an exec entry the `command`
    /// string, for a shell entry its first word (a path single-quoted when it needs it).
    #[must_use]
    pub fn word(&self, target: Target, form: Form) -> String {
        let quote = |s: &str| match form {
            Form::Exec => s.to_owned(),
            Form::Shell => shell_quote(s),
        };
        match self {
            Command::Name(name) => quote(name),
            Command::Path(path) => quote(&path.to_string_lossy()),
            Command::InProject(rel) => {
                let spelled = project_dir(target).map_or("", |p| p.spelled);
                format!("{spelled}/{}", quote(&rel.to_string_lossy()))
            }
        }
    }

    /// `word`, an entry's command in `form` as [`Command::word`] writes it for `target`,
    /// read back: a path after `target`'s spelled project variable, an absolute path, or a
    /// name without `/`. `None` for anything else (a relative path, another quoting, another
    /// variable).
    #[must_use]
    pub fn parse(target: Target, form: Form, word: &str) -> Option<Command> {
        let unquote = |s: &str| match form {
            Form::Exec => Some(s.to_owned()),
            Form::Shell => shell_unquote(s),
        };
        if let Some(dir) = project_dir(target)
            && let Some(rest) = word
                .strip_prefix(dir.spelled)
                .and_then(|w| w.strip_prefix('/'))
        {
            let rel = PathBuf::from(unquote(rest)?);
            return is_plain_relative(&rel).then_some(Command::InProject(rel));
        }
        let text = unquote(word)?;
        if text.is_empty() || text.contains('$') {
            return None;
        }
        let path = Path::new(&text);
        if path.is_absolute() {
            Some(Command::Path(path.to_path_buf()))
        } else if !text.contains('/') {
            Some(Command::Name(text))
        } else {
            None
        }
    }

    /// The file name of the program this command runs.
    #[must_use]
    pub fn file_name(&self) -> Option<&OsStr> {
        match self {
            Command::Name(name) => Some(OsStr::new(name)),
            Command::InProject(path) | Command::Path(path) => path.file_name(),
        }
    }

    /// Where this command leads on this machine, for a hook of the project `project` with
    /// `path_var` as `PATH` ([`on_path`]), or why it leads nowhere.
    ///
    /// # Errors
    /// A name that is not on `PATH` (or only after a relative entry), said in a sentence.
    pub fn resolve(&self, project: &Path, path_var: Option<&OsStr>) -> Result<PathBuf, String> {
        match self {
            Command::Name(name) => match on_path(name, path_var) {
                OnPath::Found(path) => Ok(path),
                OnPath::AfterRelative { dir, .. } => Err(format!(
                    "`{name}` comes after the relative PATH entry `{}`, which the agent \
                     searches in the project",
                    dir.display()
                )),
                OnPath::Missing => Err(format!("`{name}` is not on PATH")),
            },
            Command::InProject(rel) => Ok(project.join(rel)),
            Command::Path(path) => Ok(path.clone()),
        }
    }
}

/// A relative path of normal components only (no `..`, no `.`, not empty).
fn is_plain_relative(path: &Path) -> bool {
    path.components().next().is_some()
        && path.components().all(|c| matches!(c, Component::Normal(_)))
}

/// `word` with the quoting of [`shell_quote`] undone, when it is exactly what
/// [`shell_quote`] makes of some string (plain, or single-quoted with `'\''` for `'`).
pub(super) fn shell_unquote(word: &str) -> Option<String> {
    let unquoted = match word.strip_prefix('\'').and_then(|w| w.strip_suffix('\'')) {
        Some(inner) => inner.replace(r"'\''", "'"),
        None => word.to_owned(),
    };
    (shell_quote(&unquoted) == word).then_some(unquoted)
}

/// What a search of `PATH` for a name found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OnPath {
    /// The first executable file of that name, in an absolute directory, with no relative
    /// entry before it.
    Found(PathBuf),
    /// An executable of that name, but a relative (or empty) entry comes first: the agent
    /// would look in its working directory, the repository, before it.
    AfterRelative {
        /// The relative entry.
        dir: PathBuf,
        /// The executable found after it.
        found: PathBuf,
    },
    /// No executable of that name.
    Missing,
}

/// `name` searched in the directories of `path_var`, in order, as a shell or `execvp` does.
#[must_use]
pub fn on_path(name: &str, path_var: Option<&OsStr>) -> OnPath {
    use std::os::unix::fs::PermissionsExt as _;
    let mut relative = None;
    for dir in std::env::split_paths(path_var.unwrap_or_default()) {
        if !dir.is_absolute() {
            relative.get_or_insert(dir);
            continue;
        }
        let candidate = dir.join(name);
        if std::fs::metadata(&candidate)
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        {
            return match relative {
                Some(dir) => OnPath::AfterRelative {
                    dir,
                    found: candidate,
                },
                None => OnPath::Found(candidate),
            };
        }
    }
    OnPath::Missing
}

/// The command `install` writes, with the sentence saying why, and the other commands that
/// count as up to date (they lead to this binary here too, and are as portable).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    /// The command written.
    pub command: Command,
    /// Why (one sentence, no final period).
    pub why: String,
    /// Further commands that run this binary from this file on this machine and work on
    /// other machines too: an entry with one of them is left as it is.
    pub also: Vec<Command>,
}

/// What [`choose`] decides from.
#[derive(Debug, Clone)]
pub struct Choice<'a> {
    /// The agent.
    pub target: Target,
    /// The scope.
    pub scope: Scope,
    /// `--http`: the entries go to a personal file and start the server of this path.
    pub http: bool,
    /// This binary, absolute (as it was started).
    pub binary: &'a Path,
    /// The canonical project directory.
    pub project: &'a Path,
    /// `PATH`.
    pub path_var: Option<&'a OsStr>,
    /// `--command NAME`.
    pub stated: Option<&'a str>,
    /// `--allow-missing`: write the stated name even when it is not on `PATH` here.
    pub allow_missing: bool,
}

/// The command `install` writes (see the [module docs](super#the-command-an-entry-runs)).
///
/// # Errors
/// [`InstallError::Command`]: a `--command` that is not this binary's name, resolves to
/// another file, or is not on `PATH` (without `--allow-missing`).
pub fn choose(c: &Choice<'_>) -> Result<Chosen, InstallError> {
    let this = c
        .binary
        .canonicalize()
        .unwrap_or_else(|_| c.binary.to_path_buf());
    let name = c
        .binary
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let absolute = Command::Path(c.binary.to_path_buf());
    let refuse = |why: String| InstallError::Command { why };
    let bare = match on_path(&name, c.path_var) {
        OnPath::Found(found) if found.canonicalize().is_ok_and(|p| p == this) => Ok(()),
        OnPath::Found(found) => Err(format!(
            "`{name}` on PATH is {}, another file than this binary",
            found.display()
        )),
        OnPath::AfterRelative { dir, .. } => Err(format!(
            "`{name}` on PATH comes after the relative entry `{}`, where a repository's file \
             could answer first",
            dir.display()
        )),
        OnPath::Missing => Err(format!("`{name}` is not on PATH")),
    };
    if c.http {
        return Ok(Chosen {
            command: absolute,
            why: "--http's entries go to a file of this machine only and name the server of \
                  this path"
                .to_owned(),
            also: Vec::new(),
        });
    }
    let inside = this
        .strip_prefix(c.project)
        .ok()
        .filter(|rel| is_plain_relative(rel))
        .map(Path::to_path_buf);
    let in_project = match (&inside, project_dir(c.target)) {
        (Some(rel), Some(dir)) if c.scope == Scope::Project => Ok((rel.clone(), dir)),
        (Some(_), None) => Err(format!(
            "{} gives its hooks no project-directory variable{}",
            c.target.display_name(),
            if c.target == Target::Codex {
                " and runs them in the session's directory, which may be a subdirectory"
            } else {
                ""
            }
        )),
        (Some(_), Some(_)) => Err("the user's settings serve every project".to_owned()),
        (None, _) => Err("the binary is outside the project".to_owned()),
    };
    if let Some(stated) = c.stated {
        if stated.is_empty() || stated.contains('/') || stated.starts_with('-') {
            return Err(refuse(format!(
                "--command takes a program name without `/` (got `{stated}`)"
            )));
        }
        if stated != name {
            return Err(refuse(format!(
                "--command {stated}: this binary is named `{name}`, and only an entry of that \
                 name is recognised as this tool's by install, uninstall and doctor"
            )));
        }
        let why = match &bare {
            Ok(()) => format!("--command {stated}, which on PATH is this binary"),
            Err(why) if c.allow_missing && !why.contains("another file") => {
                format!("--command {stated} with --allow-missing ({why} on this machine)")
            }
            Err(why) => {
                let hint = if why.contains("another file") {
                    ""
                } else {
                    " (add --allow-missing to write it anyway)"
                };
                return Err(refuse(format!(
                    "--command {stated}: {why}, so the entries would not run this binary{hint}"
                )));
            }
        };
        return Ok(Chosen {
            command: Command::Name(stated.to_owned()),
            why,
            also: in_project
                .ok()
                .map(|(rel, _)| Command::InProject(rel))
                .into_iter()
                .collect(),
        });
    }
    if bare.is_ok() {
        return Ok(Chosen {
            command: Command::Name(name.clone()),
            why: format!("`{name}` on PATH is this binary"),
            also: in_project
                .ok()
                .map(|(rel, _)| Command::InProject(rel))
                .into_iter()
                .collect(),
        });
    }
    let not_bare = bare.err().unwrap_or_default();
    match in_project {
        Ok((rel, dir)) => Ok(Chosen {
            why: format!(
                "{not_bare}, and the binary is inside the project ({}), reached through ${}",
                rel.display(),
                dir.var
            ),
            command: Command::InProject(rel),
            also: Vec::new(),
        }),
        Err(not_inside) => Ok(Chosen {
            command: absolute,
            why: if c.scope == Scope::User && inside.is_none() {
                format!("{not_bare}; the user's settings are this machine's own")
            } else {
                format!("{not_bare}, and {not_inside}")
            },
            also: Vec::new(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_command_reads_back_as_written() {
        for target in [
            Target::Claude,
            Target::Gemini,
            Target::Qwen,
            Target::Copilot,
        ] {
            let form = target.protocol().install().form;
            for command in [
                Command::Name("hooks".into()),
                Command::InProject("target/debug/hooks".into()),
                Command::InProject("my bin/it's/hooks".into()),
                Command::Path("/a b/hooks".into()),
            ] {
                let word = command.word(target, form);
                assert_eq!(
                    Command::parse(target, form, &word),
                    Some(command.clone()),
                    "{target}: {word}"
                );
            }
        }
    }

    #[test]
    fn only_the_forms_install_writes_are_read() {
        let t = Target::Qwen;
        for word in [
            "bin/hooks",
            "./hooks",
            "$QWEN_PROJECT_DIR/bin/hooks",
            "\"$QWEN_PROJECT_DIR\"/../hooks",
            "\"$HOME\"/hooks",
            "$(id)",
            "",
        ] {
            assert_eq!(Command::parse(t, Form::Shell, word), None, "{word}");
        }
        assert_eq!(
            Command::parse(Target::Codex, Form::Shell, "\"$X\"/hooks"),
            None
        );
    }

    #[test]
    fn a_relative_path_entry_comes_before_the_name_it_hides() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("hooks");
        std::fs::write(&bin, "").unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = std::env::join_paths([Path::new("."), dir.path()]).unwrap();
        assert!(matches!(
            on_path("hooks", Some(&path)),
            OnPath::AfterRelative { .. }
        ));
        let path = std::env::join_paths([dir.path()]).unwrap();
        assert_eq!(on_path("hooks", Some(&path)), OnPath::Found(bin));
    }
}
