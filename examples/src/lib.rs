//! Example hook bundles, written the way a user would write their own.
//!
//! Link this crate into a `hooks` binary (`use hookwright_examples as _;`) and every function below is
//! registered. Each module is one hook (its id is the module path, e.g. `hookwright_examples::block_rm`);
//! hooks run in id order.
//!
//! The four canonical examples of SPEC.md section 8:
//!
//! - [`block_rm`]: block `bash` commands that run `rm` with a recursive and a force flag, in
//!   any spelling (ask first when there is a UI); upstream's `contains("rm -rf")` beside it;
//! - [`redact`]: redact the values of `API_KEY=...`, `"token": "..."` and the like in the
//!   output of `read`, `grep` and `bash` (upstream: `read` only), and block the tools whose
//!   output passes no hook (Claude Code's `Monitor`); upstream's `API_KEY=\S+` beside it;
//! - [`filter_context`]: drop `debug-only` custom messages from the model context;
//! - [`handoff`]: `/handoff` starts a new session seeded with a setup message.
//!
//! And more:
//!
//! - [`status_line`]: a status-line segment counting the tools run;
//! - [`compaction_guard`]: cancel compactions while `.hooks/hold-compaction` exists;
//! - [`debug_notes`]: a `debug-only` note after each tool, and a renderer for such notes.
//!
//! `examples/sessions/quickstart.jsonl` exercises all of them:
//! `cargo run -p hookwright-cli --bin hooks-examples -- run examples/sessions/quickstart.jsonl`.

pub mod block_rm;
pub mod compaction_guard;
pub mod debug_notes;
pub mod filter_context;
pub mod handoff;
pub mod redact;
pub mod status_line;
