//! `hooks-guards`: the `hooks` binary (every command of `hooks`) with the guards of
//! `hooks-guards` linked in and nothing else: `hooks-guards claude PreToolUse` answers Claude
//! Code's hook call as `hooks` does, with the guards deciding.

use std::process::ExitCode;

use hooks_guards as _;

fn main() -> ExitCode {
    hooks_bin::main()
}
