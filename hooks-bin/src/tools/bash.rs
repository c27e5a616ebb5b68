//! `bash`: runs `bash -c COMMAND` in the workspace root.
//!
//! The command runs in its own process group through [`hooks_core::exec_command`]; on timeout
//! or cancellation the whole group gets SIGTERM, then SIGKILL a second later. The output is
//! stdout followed by stderr, cut to the last [`MAX_LINES`](super::MAX_LINES) lines /
//! [`MAX_BYTES`](super::MAX_BYTES) bytes. A non-zero exit status is a tool error whose text is
//! the output plus `Command exited with code N`.

use std::time::Duration;

use hooks_core::{ExecOptions, ToolError, ToolOutput, exec_command};
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use super::{Workspace, cap_tail};

/// The default timeout of a command, in seconds.
pub(crate) const DEFAULT_TIMEOUT_SECS: f64 = 120.0;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BashInput {
    command: String,
    #[serde(default)]
    timeout: Option<f64>,
}

pub(crate) async fn run(
    ws: &Workspace,
    input: BashInput,
    cancel: &CancellationToken,
) -> Result<ToolOutput, ToolError> {
    let secs = input.timeout.unwrap_or(DEFAULT_TIMEOUT_SECS);
    if !secs.is_finite() || secs <= 0.0 {
        return Err(ToolError::failed(format!(
            "invalid input: timeout must be a positive number of seconds, got {secs}"
        )));
    }
    let options = ExecOptions {
        cancel: Some(cancel.clone()),
        timeout: Some(Duration::from_secs_f64(secs)),
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
            &format!("Command timed out after {secs} seconds"),
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
