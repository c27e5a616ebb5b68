//! The `hooks` binary with the bundled examples linked in.

use std::process::ExitCode;

use examples as _;

fn main() -> ExitCode {
    hooks_bin::main()
}
