//! The integration tests of the examples bundle, one module per area, in one test binary.

mod block_rm;
mod example_hooks;
mod interactive_shell;
mod redact;
mod secret_files;
mod test_kit;
