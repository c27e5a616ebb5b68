//! The agent's view, for hook authors' tests: what an agent would get from `hooks AGENT EVENT`
//! for a recorded input, answered on the adapters' own path (the one `hooks explain` takes).
//!
//! ```
//! use hookwright_cli::testing::agent_call;
//! use serde_json::json;
//!
//! let input = json!({
//!     "session_id": "s1",
//!     "hook_event_name": "PreToolUse",
//!     "tool_name": "Bash",
//!     "tool_input": { "command": "ls" },
//! });
//! // No hook is linked into this doctest: no opinion, exit 0, nothing printed.
//! let answer = agent_call("claude", "PreToolUse", &input);
//! assert_eq!((answer.exit_code, answer.stdout.as_str()), (0, ""));
//! ```
//!
//! The call serves the hooks linked into the test binary alone, in enforce mode, with no
//! decision log: the machine's hook files, `config.toml` and environment (`HOOKS_MODE`, an
//! agent's project directory variable) do not change a test's answer. Hooks in a session of
//! their own, without an agent's protocol, are `hookwright::testing`'s.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::agents::Agent;
use crate::call::AdapterOptions;
use crate::trust::TrustMode;

/// What an agent gets from one hook call: exit code, stdout and stderr, exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentAnswer {
    /// The exit code.
    pub exit_code: u8,
    /// The answer on stdout: one JSON value and a newline, or empty for no opinion.
    pub stdout: String,
    /// The line on stderr of a failure (a block by exit code names its reason there).
    pub stderr: String,
}

impl AgentAnswer {
    /// The answer on stdout as JSON; `None` when it is empty (no opinion).
    ///
    /// # Panics
    /// When stdout is not empty and not JSON (no adapter answers so).
    #[must_use]
    pub fn json(&self) -> Option<Value> {
        (!self.stdout.trim().is_empty()).then(|| {
            serde_json::from_str(&self.stdout)
                .unwrap_or_else(|e| panic!("the answer is not JSON ({e}): {}", self.stdout))
        })
    }
}

/// `hooks AGENT EVENT` with `input` on stdin, in the current directory: see [`agent_call_in`].
///
/// # Panics
/// When `agent` is not one the binary serves (`claude`, `codex`, `gemini`, `copilot`, `qwen`,
/// `droid`, `cursor`), or the current directory cannot be read.
#[must_use]
pub fn agent_call(agent: &str, event: &str, input: &Value) -> AgentAnswer {
    let cwd = std::env::current_dir().expect("the current directory, for an agent call");
    agent_call_in(&cwd, agent, event, input)
}

/// `hooks AGENT EVENT` with `input` on stdin, `cwd` the project: the agent's exact answer.
/// An unknown event, or an input the agent would not send, is answered as the adapter answers
/// it (a failure: exit 2 on a gating event).
///
/// # Panics
/// When `agent` is not one the binary serves.
#[must_use]
pub fn agent_call_in(cwd: &Path, agent: &str, event: &str, input: &Value) -> AgentAnswer {
    let agent: Agent = agent.parse().unwrap_or_else(|e| panic!("{e}"));
    let options = AdapterOptions {
        cwd: Some(PathBuf::from(cwd)),
        hooks: Some(std::sync::Arc::new(|cwd: &Path| {
            hookwright::registry::compiled_hooks(cwd).map_err(|e| e.to_string())
        })),
        trust: TrustMode::Check,
        ..AdapterOptions::default()
    };
    let bytes = serde_json::to_vec(input).expect("a JSON value serializes");
    let outcome = crate::cli::explain::explain(agent, event, &bytes, &options).outcome;
    AgentAnswer {
        exit_code: outcome.code,
        stdout: outcome.stdout,
        stderr: outcome.stderr,
    }
}
