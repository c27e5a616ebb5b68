//! The checks of this tool's entries in one settings file ([`install::find_ours`], the rule
//! `install` and `uninstall` use): the binary each runs, the fail-closed key against the
//! agent's version, the server of HTTP entries, and Codex's trust.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use semver::Version;

use super::finding::Finding;
use super::server::{self, ServerState};
use super::{Context, Scope};
use crate::agents::{Agent, AgentEvent};
use crate::install::command::Command;
use crate::install::git::Standing;
use crate::install::{self, CodexConfig, Found, Runs};
use crate::text::shell_quote;

/// `PreToolUse, Stop`.
fn names(events: &[AgentEvent]) -> String {
    let mut names: Vec<&str> = events.iter().map(|e| e.as_str()).collect();
    names.dedup();
    names.join(", ")
}

fn any_gating(events: &[AgentEvent]) -> bool {
    events.iter().any(|e| e.mapping.is_gating())
}

/// What a binary an entry names is.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum BinaryState {
    /// This binary (the same file, after symlinks).
    This,
    /// Another executable file.
    Other,
    /// Nothing there.
    Missing,
    /// A file that cannot be executed (or not a file).
    NotExecutable,
}

pub(super) fn binary_state(path: &Path, this: &Path) -> BinaryState {
    match std::fs::metadata(path) {
        Err(_) => BinaryState::Missing,
        Ok(m) if !m.is_file() || m.permissions().mode() & 0o111 == 0 => BinaryState::NotExecutable,
        Ok(_) if path.canonicalize().is_ok_and(|p| p == this) => BinaryState::This,
        Ok(_) => BinaryState::Other,
    }
}

/// The checks of the entries of ours in `file` (the `agent`'s settings file in `scope`),
/// `version` being the agent's, when known.
pub(super) fn check_file(
    ctx: &Context,
    agent: Agent,
    scope: Scope,
    file: &Path,
    version: Option<&Version>,
    out: &mut Vec<Finding>,
) -> Vec<Found> {
    let found = match install::find_ours(agent, file, &ctx.binary) {
        Ok(found) => found,
        Err(e) => {
            out.push(
                Finding::error(
                    format!(
                        "{}: {} (the agent cannot read it either)",
                        file.display(),
                        crate::json::one_line(&e.to_string(), 300)
                    ),
                    true,
                )
                .fix(format!(
                    "repair {}, then `{}`",
                    file.display(),
                    ctx.install(agent, scope)
                )),
            );
            return Vec::new();
        }
    };
    if found.is_empty() {
        return found;
    }
    binaries(ctx, agent, scope, file, &found, version, out);
    servers(ctx, scope, file, &found, out);
    secret_in_git(ctx, scope, file, &found, out);
    fail_closed(ctx, agent, scope, file, &found, version, out);
    if agent.protocol().install().trusts_entries {
        codex_trust(ctx, scope, file, &found, out);
    }
    found
}

/// The binary of each command entry: this one, another one, or none.
fn binaries(
    ctx: &Context,
    agent: Agent,
    scope: Scope,
    file: &Path,
    found: &[Found],
    version: Option<&Version>,
    out: &mut Vec<Finding>,
) {
    let mut by_binary: BTreeMap<&Command, Vec<&Found>> = BTreeMap::new();
    for f in found {
        if let Runs::Binary(command) = &f.runs {
            by_binary.entry(command).or_default().push(f);
        }
    }
    let shown = file.display();
    let fix = ctx.install(agent, scope);
    for (command, entries_of) in by_binary {
        let events: Vec<AgentEvent> = entries_of.iter().map(|f| f.event).collect();
        let (n, list) = (events.len(), names(&events));
        let entries = if n == 1 { "entry" } else { "entries" };
        let gating = any_gating(&events);
        let path = match command.resolve(&ctx.project, ctx.path_var.as_deref()) {
            Ok(path) => path,
            Err(why) => {
                let name = command.file_name().unwrap_or_default().to_string_lossy();
                out.push(
                    Finding::error(
                        format!(
                            "{shown}: {n} {entries} ({list}) run `{name}`, and {why} on this \
                             machine{}",
                            consequence(agent, &entries_of, version)
                        ),
                        gating,
                    )
                    .fix(format!(
                        "put this binary on PATH as `{name}` (e.g. `ln -s {} ~/.local/bin/{name}` \
                         with ~/.local/bin on PATH, or `cargo install` its package), or `{fix}` \
                         to write a command that runs here",
                        shell_quote(&ctx.binary.display().to_string())
                    )),
                );
                continue;
            }
        };
        let p = match command {
            Command::Path(_) => path.display().to_string(),
            _ => format!("`{command}` ({})", path.display()),
        };
        out.push(match binary_state(&path, &ctx.canonical_binary) {
            BinaryState::This => {
                Finding::ok(format!("{shown}: {n} {entries} ({list}) run this binary"))
            }
            BinaryState::Other => Finding::warn(format!(
                "{shown}: {n} {entries} ({list}) run {p}, not this binary ({})",
                ctx.binary.display()
            ))
            .fix(fix.clone()),
            state => {
                let which = if state == BinaryState::Missing {
                    "does not exist"
                } else {
                    "is not an executable file"
                };
                let fix = match command {
                    Command::InProject(rel) => format!(
                        "build the binary at {} in the project (the entries name it there for \
                         every clone), or `{fix}` to write a command that runs here",
                        rel.display()
                    ),
                    _ => fix.clone(),
                };
                Finding::error(
                    format!(
                        "{shown}: {n} {entries} ({list}) run {p}, which {which}{}",
                        consequence(agent, &entries_of, version)
                    ),
                    gating,
                )
                .fix(fix)
            }
        });
    }
}

/// What the agent does with a call whose gating entry (of `entries`) cannot start: it blocks
/// the call when the entry has the agent's fail-closed key and the agent (`version`, when
/// known) reads it, else lets it run.
fn consequence(agent: Agent, entries: &[&Found], version: Option<&Version>) -> String {
    let gating: Vec<&&Found> = entries
        .iter()
        .filter(|f| f.event.mapping.is_gating())
        .collect();
    if gating.is_empty() {
        return String::new();
    }
    let name = agent.display_name();
    let blocks = agent.protocol().install().fail_closed.is_some_and(|f| {
        let [major, minor, patch] = f.since;
        version.is_none_or(|v| *v >= Version::new(major, minor, patch))
            && gating
                .iter()
                .all(|e| e.entry.get(f.key) == Some(&f.value.json()))
    });
    if blocks {
        format!(": the gating hooks do not run, and {name} blocks every call they gate")
    } else {
        format!(": the gating hooks do not run, and {name} lets every call they gate through")
    }
}

/// Whether `found` is the command entry that starts the server when a session starts
/// (`BINARY claude SessionStart --via-server`).
fn starts_the_server(found: &Found) -> bool {
    let via = |v: &serde_json::Value| {
        v.as_str()
            .is_some_and(|s| s.split_whitespace().any(|w| w == install::VIA_SERVER))
    };
    matches!(found.runs, Runs::Binary(_))
        && (via(&found.entry["command"])
            || found.entry["args"]
                .as_array()
                .is_some_and(|args| args.iter().any(via)))
}

/// The server of the HTTP entries, and the secret they carry.
fn servers(ctx: &Context, scope: Scope, file: &Path, found: &[Found], out: &mut Vec<Finding>) {
    let http: Vec<(&Found, Option<&str>)> = found
        .iter()
        .filter_map(|f| match &f.runs {
            Runs::Http { authorization, .. } => Some((f, authorization.as_deref())),
            Runs::Binary(_) => None,
        })
        .collect();
    if http.is_empty() {
        return;
    }
    let events: Vec<AgentEvent> = http.iter().map(|(f, _)| f.event).collect();
    let (n, list, shown) = (events.len(), names(&events), file.display());
    let gating = any_gating(&events);
    let serve = ctx.command("serve --detach");
    match ctx.server() {
        ServerState::Listening { pid, port } => {
            let url = format!("http://127.0.0.1:{port}/");
            let elsewhere: Vec<AgentEvent> = http
                .iter()
                .filter(|(f, _)| match &f.runs {
                    Runs::Http { url: u, .. } => !u.starts_with(&url),
                    Runs::Binary(_) => false,
                })
                .map(|(f, _)| f.event)
                .collect();
            if elsewhere.is_empty() {
                out.push(Finding::ok(format!(
                    "{shown}: {n} HTTP entries ({list}): the server answers (pid {pid}, \
                     http://127.0.0.1:{port})"
                )));
            } else {
                out.push(
                    Finding::error(
                        format!(
                            "{shown}: HTTP entries ({}) post to another port than the server's \
                             (pid {pid}, http://127.0.0.1:{port})",
                            names(&elsewhere)
                        ),
                        any_gating(&elsewhere),
                    )
                    .fix(ctx.install_http(scope)),
                );
            }
        }
        // Between sessions that is how it should be, when a session's start starts it.
        ServerState::NotRunning if found.iter().any(starts_the_server) => out.push(
            Finding::warn(format!(
                "{shown}: {n} HTTP entries ({list}) post to `hooks serve`, which does not run \
                 now: the SessionStart entry starts it with the next session; a session that is \
                 open now fails their calls{} until then",
                if gating {
                    ", and Claude Code blocks each gating one"
                } else {
                    ""
                }
            ))
            .fix(serve),
        ),
        ServerState::NotRunning => out.push(
            Finding::error(
                format!(
                    "{shown}: {n} HTTP entries ({list}) post to `hooks serve`, which does not \
                     run, and no SessionStart entry of ours starts it: {}",
                    if gating {
                        "their calls fail, and Claude Code blocks each gating one"
                    } else {
                        "their calls fail"
                    }
                ),
                gating,
            )
            .fix(format!("{serve}, or {}", ctx.install_http(scope))),
        ),
        ServerState::Foreign { port, why } => out.push(
            Finding::error(
                format!(
                    "{shown}: {n} HTTP entries ({list}) post to 127.0.0.1:{port}, and {why}: \
                     Claude Code would send that process the secret and every call, and obey its \
                     answers"
                ),
                gating,
            )
            .fix(format!(
                "stop that process and run `{serve}`; on a machine shared with other users, \
                 install command entries instead (`{}`: they hand their calls to the server over \
                 its private unix socket); the secret may have reached that process: remove {} \
                 and run `{}`",
                ctx.install(Agent::Claude, scope),
                crate::trust::config_dir().map_or_else(
                    |_| "the serve-secret file".to_owned(),
                    |dir| crate::serve::Secret::path_in(&dir).display().to_string()
                ),
                ctx.install_http(scope)
            )),
        ),
        ServerState::Unreachable(why) => out.push(
            Finding::error(format!("{shown}: {n} HTTP entries ({list}): {why}"), gating)
                .fix(format!("{} && {serve}", ctx.command("serve --stop"))),
        ),
    }
    let refused: Vec<(AgentEvent, String)> = http
        .iter()
        .filter_map(|(f, header)| server::check_secret(*header).err().map(|e| (f.event, e)))
        .collect();
    if let Some((_, why)) = refused.first() {
        let events: Vec<AgentEvent> = refused.iter().map(|(e, _)| *e).collect();
        out.push(
            Finding::error(
                format!("{shown}: HTTP entries ({}): {why}", names(&events)),
                any_gating(&events),
            )
            .fix(ctx.install_http(scope)),
        );
    }
}

/// Whether git would commit the secret that HTTP entries carry: the file holding them, or its
/// backup, tracked (an error, exit 1) or not ignored (a warning) ([`install::git`]).
fn secret_in_git(
    ctx: &Context,
    scope: Scope,
    file: &Path,
    found: &[Found],
    out: &mut Vec<Finding>,
) {
    let holds_secret = found.iter().any(|f| {
        matches!(
            &f.runs,
            Runs::Http {
                authorization: Some(_),
                ..
            }
        )
    });
    if !holds_secret {
        return;
    }
    let mut backup = file.as_os_str().to_owned();
    backup.push(".bak");
    let backup = PathBuf::from(backup);
    let files = std::iter::once(file).chain(backup.exists().then_some(backup.as_path()));
    for path in files {
        let shown = path.display();
        match install::git::standing(path) {
            Ok(Standing::Outside) => {}
            Ok(Standing::Ignored) => out.push(Finding::ok(format!(
                "{shown}: holds the secret of `hooks serve`, and git ignores it"
            ))),
            Ok(Standing::NotIgnored) => out.push(
                Finding::warn(format!(
                    "{shown}: holds the secret of `hooks serve`, and git does not ignore it: \
                     `git add -A` adds it, and a commit then carries the secret"
                ))
                .fix(format!(
                    "{} (adds it to the clone's ignore rules, .git/info/exclude)",
                    ctx.install_http(scope)
                )),
            ),
            Ok(Standing::Tracked { fix }) => out.push(
                Finding::leak(format!(
                    "{shown}: holds the secret of `hooks serve`, and git tracks it: the next \
                     commit of it carries the secret"
                ))
                .fix(format!("{fix}, then {}", ctx.install_http(scope))),
            ),
            Err(why) => out.push(Finding::warn(format!(
                "{shown}: holds the secret of `hooks serve`, and whether git ignores it \
                 cannot be told: {why}"
            ))),
        }
    }
}

/// The agent's fail-closed key on our gating entries against the version that reads it.
fn fail_closed(
    ctx: &Context,
    agent: Agent,
    scope: Scope,
    file: &Path,
    found: &[Found],
    version: Option<&Version>,
    out: &mut Vec<Finding>,
) {
    let Some(f) = agent.protocol().install().fail_closed else {
        return;
    };
    let Some(version) = version.filter(|_| f.versioned) else {
        return;
    };
    let [major, minor, patch] = f.since;
    let since = Version::new(major, minor, patch);
    let setting = format!("\"{}\": {}", f.key, f.value);
    let gating: Vec<&Found> = found
        .iter()
        .filter(|e| e.event.mapping.is_gating())
        .collect();
    let (with, without): (Vec<&Found>, Vec<&Found>) = gating
        .iter()
        .partition(|e| e.entry.get(f.key) == Some(&f.value.json()));
    let name = agent.display_name();
    let shown = file.display();
    if *version >= since && !without.is_empty() {
        let events: Vec<AgentEvent> = without.iter().map(|e| e.event).collect();
        out.push(
            Finding::warn(format!(
                "{shown}: gating entries ({}) lack {setting}, which {name} {version} reads: a \
                 hook that cannot start, crashes or times out lets the action run",
                names(&events)
            ))
            .fix(ctx.install(agent, scope)),
        );
    } else if *version < since && !with.is_empty() {
        let events: Vec<AgentEvent> = with.iter().map(|e| e.event).collect();
        out.push(
            Finding::warn(format!(
                "{shown}: gating entries ({}) have {setting}, but {name} {version} is older \
                 than {since}, the first to read it: a hook that cannot start, crashes or \
                 times out lets the action run",
                names(&events)
            ))
            .fix(format!(
                "upgrade {name} to {since} or later (`npm install -g @anthropic-ai/claude-code`)"
            )),
        );
    }
}

/// Codex runs an entry only once the user trusted it, as it is now.
fn codex_trust(ctx: &Context, scope: Scope, file: &Path, found: &[Found], out: &mut Vec<Finding>) {
    let Some(config_path) = ctx.codex_config_path() else {
        return;
    };
    let config = match CodexConfig::read(&config_path) {
        Ok(config) => config,
        Err(e) => {
            out.push(Finding::error(
                format!(
                    "{}: {}",
                    config_path.display(),
                    crate::json::one_line(&e.to_string(), 300)
                ),
                true,
            ));
            return;
        }
    };
    let shown = file.display();
    let untrusted: Vec<AgentEvent> = found
        .iter()
        .filter(|f| matches!(f.runs, Runs::Binary(_)))
        .filter(|f| !config.as_ref().is_some_and(|c| c.trusts(file, f)))
        .map(|f| f.event)
        .collect();
    if untrusted.is_empty() {
        out.push(Finding::ok(format!(
            "{shown}: Codex trusts every entry of ours ({})",
            config_path.display()
        )));
    } else {
        out.push(
            Finding::error(
                format!(
                    "{shown}: Codex does not trust {} {} of ours ({}) in {}, and skips an \
                     untrusted hook without a word",
                    untrusted.len(),
                    if untrusted.len() == 1 {
                        "entry"
                    } else {
                        "entries"
                    },
                    names(&untrusted),
                    config_path.display()
                ),
                any_gating(&untrusted),
            )
            .fix(format!(
                "{} (or review them in Codex's /hooks)",
                ctx.install(Agent::Codex, scope)
            )),
        );
    }
    if scope == Scope::Project
        && !config
            .as_ref()
            .is_some_and(|c| c.trusts_project(&ctx.project))
    {
        out.push(
            Finding::error(
                format!(
                    "{shown}: Codex reads a project's .codex/hooks.json only in a trusted \
                     project, and {} has no `trust_level = \"trusted\"` for {}",
                    config_path.display(),
                    ctx.project.display()
                ),
                any_gating(&found.iter().map(|f| f.event).collect::<Vec<_>>()),
            )
            .fix(format!(
                "start `codex` in {} and trust the project (or add [projects.\"{}\"] \
                 trust_level = \"trusted\" to {})",
                ctx.project.display(),
                ctx.project.display(),
                config_path.display()
            )),
        );
    }
}

/// The files of `agent` in `scope` as `install` writes them, or why there are none.
pub(super) fn files(ctx: &Context, agent: Agent, scope: Scope) -> Vec<PathBuf> {
    let home = ctx.home.clone().unwrap_or_default();
    install::settings_files(agent, scope, &ctx.project, &home).unwrap_or_default()
}
