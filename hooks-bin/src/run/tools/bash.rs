//! `bash`: runs `bash -c COMMAND` in the workspace root.
//!
//! The command runs through [`hookwright::exec_command`], whose documentation
//! ([`hookwright::exec`]) says exactly which processes are killed when: when the command exits,
//! what it left running is killed, and output is read for half a second more at most; on
//! timeout or cancellation its processes get SIGTERM, then SIGKILL a second later, so a call
//! returns within its timeout plus about one and a half seconds whatever they do.
//!
//! The output is stdout followed by stderr, cut to the last [`MAX_LINES`](super::MAX_LINES)
//! lines / [`MAX_BYTES`](super::MAX_BYTES) bytes. A non-zero exit status is a tool error whose
//! text is the output plus `Command exited with code N`.
//!
//! `timeout` is in seconds, as upstream's bash tool: a positive number from `1e-9` (one
//! nanosecond) up to, not including, `2^64`. Anything else (`0`, a negative number, `1e20`) is
//! invalid input, rejected when the script is checked.

use std::time::Duration;

use hookwright::{ExecOptions, ToolError, ToolOutput, exec_command};
use serde::{Deserialize, Deserializer, de};
use serde_json::Number;
use tokio_util::sync::CancellationToken;

use super::{Workspace, cap_tail};

/// The default timeout of a command.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BashInput {
    command: String,
    #[serde(default, deserialize_with = "timeout")]
    timeout: Option<Duration>,
}

/// A `timeout`: seconds that fit a non-zero [`Duration`]; the error names the bad value.
fn timeout<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    let secs = Number::deserialize(d)?;
    secs.as_f64()
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .filter(|t| !t.is_zero())
        .map(Some)
        .ok_or_else(|| {
            de::Error::custom(format!(
                "invalid timeout {secs}: expected a number of seconds, at least 1e-9 and below 2^64"
            ))
        })
}

pub(crate) async fn run(
    ws: &Workspace,
    input: BashInput,
    cancel: &CancellationToken,
) -> Result<ToolOutput, ToolError> {
    let timeout = input.timeout.unwrap_or(DEFAULT_TIMEOUT);
    let options = ExecOptions {
        cancel: Some(cancel.clone()),
        timeout: Some(timeout),
        cwd: None,
    };
    let args = ["-c".to_owned(), input.command];
    let result = exec_command("bash", &args, ws.root(), options)
        .await
        .map_err(|e| ToolError::failed(e.to_string()))?;
    if result.killed && cancel.is_cancelled() {
        return Err(ToolError::Cancelled);
    }
    let mut text = result.stdout;
    if !result.stderr.is_empty() {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&result.stderr);
    }
    let (mut text, truncated) = cap_tail(&text);
    if result.killed {
        push_line(
            &mut text,
            &format!("Command timed out after {} seconds", timeout.as_secs_f64()),
        );
        return Err(ToolError::failed(text));
    }
    if result.code != 0 {
        push_line(
            &mut text,
            &format!("Command exited with code {}", result.code),
        );
        return Err(ToolError::failed(text));
    }
    if text.is_empty() {
        text.push_str("(no output)");
    }
    let mut output = ToolOutput::text(text);
    output.details = Some(serde_json::json!({
        "exitCode": result.code,
        "truncated": truncated,
    }));
    Ok(output)
}

fn push_line(text: &mut String, line: &str) {
    if !text.is_empty() {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push('\n');
    }
    text.push_str(line);
}
