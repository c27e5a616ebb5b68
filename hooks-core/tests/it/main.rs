//! The integration tests of hookwright, one module per area, in one test binary. Only the
//! allocation count (`tests/alloc_count.rs`) is a binary of its own: its counting global
//! allocator would count every test running beside it.

mod support;

mod commands_renderers;
mod context;
mod events_json;
mod hook_table;
mod loader_capability;
mod loader_load;
mod loader_path;
mod model_combine;
mod no_ui;
mod reliability_cancel;
mod reliability_concurrency;
mod reliability_panics;
mod reliability_timeouts;
mod runner_before_agent_start;
mod runner_context;
mod runner_emit;
mod runner_errors;
mod runner_tool_call;
mod shell_hooks;
mod status_line;
mod wrapper;
