//! # hookwright-guards
//!
//! Guards to install as they are. Link the crate into a `hooks` binary (`use hookwright_guards as _;`)
//! and its hooks are registered:
//!
//! - [`destructive_commands`]: blocks `bash` calls that would destroy work: `git reset --hard`,
//!   `git clean -f`, `git push --force`, `rm -rf` outside temporary directories, `find -delete`,
//!   `dd` onto a disk, `mkfs`, and the same inside `bash -c`, `eval`, heredocs, `python -c`,
//!   `node -e`, ... (the packs are listed in [`packs`]). Each block names its rule and gives the
//!   model a safer way in the reason.
//! - [`redact_secrets`]: redacts secrets in what `read`, `grep` and `bash` show the model
//!   (cloud keys, tokens of the common providers, private key blocks, JWTs, passwords in URLs,
//!   `KEY=value` assignments), by gitleaks' maintained rule set ([`secrets`]): each secret
//!   becomes `[redacted:<rule>]`; what cannot be searched (a document, a text over
//!   [`secrets::MAX_TEXT`]) is withheld.
//!
//! It is configured without recompiling ([`config`]): the user's `guards.toml` turns packs and
//! rules off and allows programs, commands and paths; a project's `.hooks/guards.toml` may only
//! turn them back on.
//!
//! ## How a command is judged
//!
//! The command line is parsed as shell by brush-parser ([`shell`]), and every simple command
//! that would run is judged on its own, after quote removal: those of pipelines, `&&` / `||` /
//! `;` / `&` lists, subshells and groups, control structures, function bodies, command and
//! process substitutions. A wrapper (`sudo`, `doas`, `env`, `command`, `builtin`, `exec`,
//! `nohup`, `nice`, `time`, `timeout`, `stdbuf`, `ionice`, `setsid`, `strace`, `flock`,
//! `watch`, `xargs`, `find -exec`) is looked through; a shell's `-c` script, its heredoc or
//! here-string, and `eval`'s arguments are judged as scripts; an interpreter's one-liner is
//! judged by [`packs::inline`]. A tool is known by its name without its directory
//! (`/usr/bin/git` is `git`). Left alone: quoted data (`echo "rm -rf /"`, `git commit -m "..."`,
//! heredocs fed to `cat`), `--help` and `--version`, `which`, `type`, `command -v`, and `rm -rf`
//! of paths inside `/tmp`, `/var/tmp` or `$TMPDIR`.
//!
//! A command that cannot be read as shell (a syntax error, or nesting deeper than
//! [`shell::MAX_DEPTH`]) is blocked (`guard:unreadable`): a guard that cannot decide blocks.
//!
//! ## What a denylist cannot catch
//!
//! This is a speed bump, not a sandbox. What a script file, a program of the agent's own, a
//! variable or a downloaded script runs is not on the command line: `bash cleanup.sh`,
//! `make clean`, `$CMD`, `curl ... | sh` all pass. Confine the agent (a container, a throwaway
//! checkout, the agent's own sandbox) where that matters.

use hookwright::prelude::*;

pub mod config;
mod judge;
pub mod packs;
pub mod secrets;
pub mod shell;

pub use secrets::redact_secrets;

/// Why a command is blocked: the rule, what it would destroy, and what to do instead.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct Block {
    /// The rule's id, `pack:rule` (e.g. `core.git:reset-hard`).
    pub rule: &'static str,
    /// What the command would do.
    pub what: String,
    /// The safer alternative given to the model.
    pub instead: &'static str,
}

impl Block {
    /// The reason given to the agent: `[rule] what. Safer: instead.`
    #[must_use]
    pub fn reason(&self) -> String {
        format!(
            "blocked by hooks-guards [{}]: {}. Safer: {}.",
            self.rule, self.what, self.instead
        )
    }
}

impl std::fmt::Display for Block {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason())
    }
}

/// The block for running the shell command line `command` with no configuration file, or
/// `None` when it may run ([`judge_command`] judges under one).
pub fn check_command(command: &str) -> Option<Block> {
    judge_command(&config::Config::default(), command).block
}

/// The block for running the argument vector `argv` (no shell in between) with no
/// configuration file, or `None`.
pub fn check_argv(argv: &[&str]) -> Option<Block> {
    judge_argv(&config::Config::default(), argv).block
}

/// What the guard decides about running the shell command line `command` under `config`.
pub fn judge_command(config: &config::Config, command: &str) -> config::Decision {
    let judge = judge::Judge::new(config);
    let block = judge.script(command, 0);
    judge.decision(block)
}

/// What the guard decides about running the argument vector `argv` under `config`.
pub fn judge_argv(config: &config::Config, argv: &[&str]) -> config::Decision {
    let words: Vec<shell::Word> = argv.iter().map(|a| shell::Word::literal(*a)).collect();
    let judge = judge::Judge::new(config);
    let block = judge.command(&words, None, 0);
    judge.decision(block)
}

/// Blocks `bash` calls whose command would destroy work ([`check_command`] on the command line,
/// [`check_argv`] on the argument vector `argv` the Codex adapter keeps beside it), under the
/// configuration of [`config`] (the user's `guards.toml` and the project's
/// `.hooks/guards.toml`, for the runner's working directory). The reason names the rule and a
/// safer alternative ([`Block::reason`]); when the configuration let through what a rule would
/// have blocked, the result blocks nothing and its reason says which rule and which entry
/// (`hooks explain` shows it). A `bash` call without a string command cannot be judged, and
/// an invalid configuration file cannot be applied: both are blocked.
#[hook(event = "tool_call")]
pub fn destructive_commands(
    event: &ToolCallEvent,
    ctx: &HookContext,
) -> Option<ToolCallEventResult> {
    if event.tool_name != "bash" {
        return None;
    }
    let config = match config::load(ctx.cwd()) {
        Ok(config) => config,
        Err(error) => return Some(ToolCallEventResult::block(config_block(&error).reason())),
    };
    let argv: Option<Vec<&str>> = event
        .input
        .get("argv")
        .and_then(|argv| argv.as_array())
        .and_then(|argv| argv.iter().map(|arg| arg.as_str()).collect());
    let mut allowed = Vec::new();
    if let Some(argv) = argv.as_deref() {
        let decision = judge_argv(&config, argv);
        if let Some(block) = decision.block {
            return Some(ToolCallEventResult::block(block.reason()));
        }
        allowed.extend(decision.allowed);
    }
    let Some(command) = event.input_str("command") else {
        if argv.is_some() {
            return allowed_result(&allowed);
        }
        return Some(ToolCallEventResult::block(
            "blocked by hooks-guards [guard:unreadable]: the bash call has no command string to \
             judge, and a guard that cannot decide blocks. Safer: send the command as a string.",
        ));
    };
    let decision = judge_command(&config, command);
    if let Some(block) = decision.block {
        return Some(ToolCallEventResult::block(block.reason()));
    }
    allowed.extend(decision.allowed);
    allowed_result(&allowed)
}

/// The block for a configuration that cannot be applied (`guard:config`).
fn config_block(error: &config::ConfigError) -> Block {
    Block {
        rule: "guard:config",
        what: format!(
            "the guards' configuration is invalid ({error}), and a guard that cannot decide \
             blocks"
        ),
        instead: "ask the user to fix or delete that file (hooks-guards/README.md shows its \
                  keys)",
    }
}

/// A result that blocks nothing and says what the configuration let through, or `None`.
fn allowed_result(allowed: &[config::Allowed]) -> Option<ToolCallEventResult> {
    if allowed.is_empty() {
        return None;
    }
    let said: Vec<String> = allowed.iter().map(ToString::to_string).collect();
    Some(ToolCallEventResult {
        block: None,
        reason: Some(format!("allowed by hooks-guards: {}", said.join("; "))),
    })
}
