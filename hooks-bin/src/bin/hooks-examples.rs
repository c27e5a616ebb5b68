//! `hooks-examples`: every command of `hooks`, with the example bundle
//! ([`hookwright_examples`]: the teaching examples, blocking `rm -rf`, redacting `API_KEY=...`,
//! holding compaction, `/handoff`, ...) linked in instead of the guards. The quickstart session
//! (`examples/sessions/quickstart.jsonl`) runs through it.

use std::process::ExitCode;

use hookwright_examples as _;

fn main() -> ExitCode {
    hookwright_cli::main()
}
