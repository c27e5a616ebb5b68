//! `hooks`: every command of the host, with the guards linked in ([`hookwright_guards`]: the
//! shell-aware destructive-command guard), so that it is useful as it is installed. The example
//! bundle has a binary of its own, `hooks-examples` (`src/bin/hooks-examples.rs`); a bundle of
//! one's own gets its own host binary (`hooks new NAME`).

use std::process::ExitCode;

use hookwright_guards as _;

fn main() -> ExitCode {
    hookwright_cli::main()
}
