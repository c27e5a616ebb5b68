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

mod judge;
pub mod packs;
pub mod shell;

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

/// The block for running the shell command line `command`, or `None` when it may run.
pub fn check_command(command: &str) -> Option<Block> {
    judge::script(command, 0)
}

/// The block for running the argument vector `argv` (no shell in between), or `None`.
pub fn check_argv(argv: &[&str]) -> Option<Block> {
    let words: Vec<shell::Word> = argv.iter().map(|a| shell::Word::literal(*a)).collect();
    judge::command(&words, None, 0)
}

/// Blocks `bash` calls whose command would destroy work ([`check_command`] on the command line,
/// [`check_argv`] on the argument vector `argv` the Codex adapter keeps beside it). The reason
/// names the rule and a safer alternative ([`Block::reason`]). A `bash` call without a string
/// command cannot be judged, and is blocked.
#[hook(event = "tool_call")]
pub fn destructive_commands(event: &ToolCallEvent) -> Option<ToolCallEventResult> {
    if event.tool_name != "bash" {
        return None;
    }
    let argv: Option<Vec<&str>> = event
        .input
        .get("argv")
        .and_then(|argv| argv.as_array())
        .and_then(|argv| argv.iter().map(|arg| arg.as_str()).collect());
    if let Some(block) = argv.as_deref().and_then(check_argv) {
        return Some(ToolCallEventResult::block(block.reason()));
    }
    let Some(command) = event.input_str("command") else {
        if argv.is_some() {
            return None;
        }
        return Some(ToolCallEventResult::block(
            "blocked by hooks-guards [guard:unreadable]: the bash call has no command string to \
             judge, and a guard that cannot decide blocks. Safer: send the command as a string.",
        ));
    };
    check_command(command).map(|block| ToolCallEventResult::block(block.reason()))
}
