//! The integration tests of hookwright-cli, one module per area, in one test binary. Three are
//! binaries of their own: `tests/read_memory.rs` reads the peak memory of this process's
//! children, which must be the one `hooks run` it starts, `tests/serve_stdio.rs` has its
//! own `main`, which runs the test binary again as a server of its test hooks, and
//! `tests/scaffold.rs` builds a crate `hooks new` made, alone.

mod common;

mod adapter_agents;
mod adapter_claude;
mod adapter_claude_codex;
mod adapter_codex;
mod adapter_examples;
mod adapter_stdio;
mod adapter_tool_outputs;
mod agent_list;
mod audit;
mod bridge_source;
mod decoder_props;
mod default_binary;
mod doctor;
mod explain;
mod guards_config;
mod guards_redact;
mod install;
mod install_agents;
mod install_bridge;
mod install_http;
mod kill_switch;
mod list_cli;
mod log_cli;
mod run_cli;
mod run_pty;
mod serve_agents;
mod serve_cli;
mod serve_files;
mod serve_http;
mod serve_local_users;
mod serve_rebuilt;
mod serve_reliability;
mod serve_resident_state;
mod serve_socket;
mod serve_tables;
mod trust;
mod uninstall;
