//! The `hooks` binary with the bundled examples linked in.

use std::process::ExitCode;

use hookwright_examples as _;

fn main() -> ExitCode {
    hookwright_cli::main()
}
