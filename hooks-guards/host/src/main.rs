//! `hooks-guards`: the `hooks` binary (every command of `hooks`) with the guards of
//! `hookwright-guards` linked in and nothing else: `hooks-guards claude PreToolUse` answers Claude
//! Code's hook call as `hooks` does, with the guards deciding.

use std::process::ExitCode;

use hookwright_guards as _;

fn main() -> ExitCode {
    hookwright_cli::main()
}
