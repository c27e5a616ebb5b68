//! Codex adapter stdin: `hookwright_cli::transport::command::run` with the Codex protocol on arbitrary
//! bytes (the first byte picks the event) with an empty hook set; see `adapter.rs` for what is
//! checked.

#![no_main]

#[path = "adapter.rs"]
mod adapter;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| adapter::check(&hookwright_cli::agents::codex::Codex, data));
