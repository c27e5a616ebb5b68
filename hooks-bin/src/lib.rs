//! The `hooks` host, as a library: an author's binary is `hooks_bin::main()`.

use std::process::ExitCode;

/// Runs the `hooks` command line.
#[must_use]
pub fn main() -> ExitCode {
    ExitCode::SUCCESS
}
