//! The [`Tool`] trait and [`HookToolWrapper`], which runs `tool_call` handlers before a tool and
//! `tool_result` handlers after it (SPEC.md section 4, SPEC-DETAILS section 6).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::{CancellationToken, WaitForCancellationFuture};

use crate::events::{
    Content, EventKind, Extra, ToolCallEvent, ToolCallEventResult, ToolInput, ToolResultEvent,
};
use crate::handler::BoxFuture;
use crate::runner::{HookRunner, ToolCallHookError};

/// What a tool returns: content chunks for the model and tool-specific details.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolOutput {
    /// The output chunks.
    pub content: Vec<Content>,
    /// Tool-specific details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// Other fields (e.g. `isWarning`); dropped when a hook overrides the output.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ToolOutput {
    /// Output made of one text chunk.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            content: vec![Content::text(text)],
            details: None,
            extra: Extra::new(),
        }
    }

    /// All text chunks joined with newlines.
    #[must_use]
    pub fn text_content(&self) -> String {
        self.content
            .iter()
            .filter_map(Content::as_text)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Why a tool call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// A `tool_call` handler blocked the call.
    #[error("{reason}")]
    Blocked {
        /// The handler's reason, or `Tool execution was blocked by a hook`.
        reason: String,
    },
    /// A `tool_call` handler failed, which blocks the call (fail-safe).
    #[error("{0}")]
    Hook(ToolCallHookError),
    /// The tool itself failed.
    #[error("{message}")]
    Failed {
        /// What went wrong.
        message: String,
    },
    /// The call was cancelled.
    #[error("tool call cancelled")]
    Cancelled,
}

impl ToolError {
    /// A tool failure with `message`.
    pub fn failed(message: impl Into<String>) -> Self {
        ToolError::Failed {
            message: message.into(),
        }
    }
}

/// Receives progress updates of a running tool.
pub type UpdateCallback = dyn Fn(ToolOutput) + Send + Sync;

/// A tool the agent can call.
///
/// Implement `execute` as an `async fn`; no attribute macro is needed. The trait is generic
/// (its future is not boxed), so a wrapped call costs no allocation of its own; to keep tools
/// of several types in one collection, use [`DynTool`] (`Arc<dyn DynTool>` is a `Tool` again).
///
/// ```
/// use hookwright::events::ToolInput;
/// use hookwright::tool::UpdateCallback;
/// use hookwright::{Tool, ToolError, ToolOutput};
/// use serde_json::Value;
/// use tokio_util::sync::{CancellationToken, WaitForCancellationFuture};
///
/// struct Echo(Value);
///
/// impl Tool for Echo {
///     fn name(&self) -> &str {
///         "echo"
///     }
///     fn description(&self) -> &str {
///         "answers its `text` input"
///     }
///     fn parameters(&self) -> &Value {
///         &self.0
///     }
///     async fn execute(
///         &self,
///         _call_id: &str,
///         input: &ToolInput,
///         _cancel: &CancellationToken,
///         _on_update: Option<&UpdateCallback>,
///     ) -> Result<ToolOutput, ToolError> {
///         match input.get("text").and_then(Value::as_str) {
///             Some(text) => Ok(ToolOutput::text(text)),
///             None => Err(ToolError::failed("`text` is required")),
///         }
///     }
/// }
/// ```
pub trait Tool: Send + Sync {
    /// The tool's name, e.g. `bash`.
    fn name(&self) -> &str;
    /// What the tool does.
    fn description(&self) -> &str;
    /// The JSON schema of its input.
    fn parameters(&self) -> &Value;
    /// Runs the tool. `cancel` is cancelled when the call is aborted (clone it to keep it
    /// past the call, e.g. in a spawned task); `on_update` receives progress. `input` is
    /// shared: cloning it copies a pointer.
    ///
    /// A tool given a token that is cancelled already changes nothing and fails with
    /// [`ToolError::Cancelled`] (as upstream's tools check `signal.aborted`): a
    /// [`HookToolWrapper`] with no handlers to run calls it directly, without a check of its
    /// own. [`exec_command`](crate::exec_command) starts no process for such a token.
    fn execute(
        &self,
        call_id: &str,
        input: &ToolInput,
        cancel: &CancellationToken,
        on_update: Option<&UpdateCallback>,
    ) -> impl Future<Output = Result<ToolOutput, ToolError>> + Send;
}

impl<T: Tool + ?Sized> Tool for Arc<T> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn description(&self) -> &str {
        (**self).description()
    }
    fn parameters(&self) -> &Value {
        (**self).parameters()
    }
    fn execute(
        &self,
        call_id: &str,
        input: &ToolInput,
        cancel: &CancellationToken,
        on_update: Option<&UpdateCallback>,
    ) -> impl Future<Output = Result<ToolOutput, ToolError>> + Send {
        (**self).execute(call_id, input, cancel, on_update)
    }
}

/// A [`Tool`] that can be used as a trait object (`Arc<dyn DynTool>`): its future is boxed.
/// Every `Tool` is a `DynTool`, and `dyn DynTool` is a `Tool` again, so a host can keep tools
/// of several types in one collection and still wrap each with [`HookToolWrapper`].
///
/// ```
/// # use std::sync::Arc;
/// # use hookwright::tool::DynTool;
/// fn toolbox(tools: Vec<Arc<dyn DynTool>>) -> Vec<String> {
///     tools.iter().map(|t| t.name().to_owned()).collect()
/// }
/// ```
pub trait DynTool: Send + Sync {
    /// [`Tool::name`].
    fn name(&self) -> &str;
    /// [`Tool::description`].
    fn description(&self) -> &str;
    /// [`Tool::parameters`].
    fn parameters(&self) -> &Value;
    /// [`Tool::execute`], boxed.
    fn execute_boxed<'a>(
        &'a self,
        call_id: &'a str,
        input: &'a ToolInput,
        cancel: &'a CancellationToken,
        on_update: Option<&'a UpdateCallback>,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;
}

impl<T: Tool> DynTool for T {
    fn name(&self) -> &str {
        Tool::name(self)
    }
    fn description(&self) -> &str {
        Tool::description(self)
    }
    fn parameters(&self) -> &Value {
        Tool::parameters(self)
    }
    fn execute_boxed<'a>(
        &'a self,
        call_id: &'a str,
        input: &'a ToolInput,
        cancel: &'a CancellationToken,
        on_update: Option<&'a UpdateCallback>,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(Tool::execute(self, call_id, input, cancel, on_update))
    }
}

impl Tool for dyn DynTool {
    fn name(&self) -> &str {
        DynTool::name(self)
    }
    fn description(&self) -> &str {
        DynTool::description(self)
    }
    fn parameters(&self) -> &Value {
        DynTool::parameters(self)
    }
    async fn execute(
        &self,
        call_id: &str,
        input: &ToolInput,
        cancel: &CancellationToken,
        on_update: Option<&UpdateCallback>,
    ) -> Result<ToolOutput, ToolError> {
        self.execute_boxed(call_id, input, cancel, on_update).await
    }
}

pub use crate::events::DEFAULT_BLOCK_REASON;

/// Wraps a tool so that hooks see every call. It is itself a [`Tool`] with the inner tool's
/// name, description and parameters, so wrapping is transparent.
///
/// # Order
///
/// 1. `tool_call` handlers (only when any exist). The first block stops the call with the
///    handler's reason (or [`DEFAULT_BLOCK_REASON`]); a failing handler stops it with its error
///    (fail-safe). After a block no `tool_result` is emitted.
/// 2. The inner tool runs with the same input, cancellation token and progress callback.
/// 3. On success, `tool_result` handlers (only when any exist) may override `content` and/or
///    `details`; fields they leave out keep the tool's values. A returned `is_error` is ignored.
/// 4. On failure, `tool_result` is emitted with `isError: true` and the error text as content;
///    its result is ignored and the original error is returned.
///
/// Cancelling the token while a `tool_call` handler or the tool is pending drops it and the
/// call fails with [`ToolError::Cancelled`]; a call whose token is cancelled before the tool
/// starts (during the `tool_call` handlers, or before a call that has handlers) fails the
/// same way without polling the tool's future.
///
/// Whether handlers of either event exist is asked once per call (a runner's handlers are
/// fixed when it is built). With none, the wrapper is out of the way: the call is the tool's
/// own future, first polled as it is (a token cancelled before the call is the tool's to
/// honour, see [`Tool::execute`]), and watched for a cancellation only once it is pending.
/// No event is built, nothing is copied, and the token is not read.
pub struct HookToolWrapper<T> {
    tool: T,
    runner: Arc<HookRunner>,
}

impl<T: Tool> HookToolWrapper<T> {
    /// Wraps `tool` with the hooks of `runner`.
    pub fn new(tool: T, runner: Arc<HookRunner>) -> Self {
        HookToolWrapper { tool, runner }
    }

    /// The inner tool.
    pub fn inner(&self) -> &T {
        &self.tool
    }

    /// [`Tool::execute`] when `tool_call` handlers (`gated`) or `tool_result` handlers
    /// (`observed`) exist.
    async fn hooked(
        &self,
        gated: bool,
        observed: bool,
        call_id: &str,
        input: &ToolInput,
        cancel: &CancellationToken,
        on_update: Option<&UpdateCallback>,
    ) -> Result<ToolOutput, ToolError> {
        let runner = &self.runner;
        // The name and id are copied once per call and the input is shared: the `tool_call`
        // event moves into `tool_result`.
        let event = ToolCallEvent {
            tool_name: self.tool.name().to_owned(),
            tool_call_id: call_id.to_owned(),
            input: input.clone(),
        };
        if gated {
            // A cancellation while a gate is pending drops the gate, as an allow would end it;
            // the tool then never starts (the check of `UntilCancelled::tool`).
            let decision = UntilCancelled {
                future: runner.emit_tool_call(&event),
                wait: None,
                cancel,
                cancel_first: false,
            };
            match decision.await {
                Ok(result) => {
                    if let Some(reason) = result.and_then(ToolCallEventResult::into_block_reason) {
                        return Err(ToolError::Blocked { reason });
                    }
                }
                Err(error) => return Err(ToolError::Hook(error)),
            }
        }

        // The output moves into the event and back out: no copy of it is made. A failure is
        // its error's text, and is returned as it was.
        let (event, extra) = {
            let outcome =
                UntilCancelled::tool(self.tool.execute(call_id, input, cancel, on_update), cancel)
                    .await;
            if !observed {
                return outcome;
            }
            let ToolCallEvent {
                tool_name,
                tool_call_id,
                input,
            } = event;
            let (content, details, extra) = match outcome {
                Ok(ToolOutput {
                    content,
                    details,
                    extra,
                }) => (content, details, Ok(extra)),
                Err(error) => (vec![Content::text(error.to_string())], None, Err(error)),
            };
            let event = ToolResultEvent {
                tool_name,
                tool_call_id,
                input,
                content,
                details,
                is_error: Some(extra.is_err()),
                is_warning: None,
            };
            (event, extra)
        };
        let result = runner.emit_tool_result(&event).await;
        let extra = extra?;
        let ToolResultEvent {
            content, details, ..
        } = event;
        Ok(match result {
            Some(r) => ToolOutput {
                content: r.content.unwrap_or(content),
                details: r.details.filter(|d| !d.is_null()).or(details),
                extra: Extra::new(),
            },
            None => ToolOutput {
                content,
                details,
                extra,
            },
        })
    }
}

pin_project_lite::pin_project! {
    /// A future run until it completes (its output) or the token is cancelled (its output's
    /// [`Cancelled::cancelled`]).
    ///
    /// The cancellation wait is built only once the future is pending (building and dropping
    /// one takes the token's locks, and most gates and no-op tools complete on their first
    /// poll). With `cancel_first` (the tool) the cancellation has priority: the future is not
    /// polled at all when the token is cancelled already, nor on any later poll once it is;
    /// without (a gate), the future is polled first.
    struct UntilCancelled<'t, F> {
        #[pin]
        future: F,
        #[pin]
        wait: Option<WaitForCancellationFuture<'t>>,
        cancel: &'t CancellationToken,
        cancel_first: bool,
    }
}

/// What a run that the token cancelled answers.
trait Cancelled {
    /// The answer.
    fn cancelled() -> Self;
}

impl Cancelled for Result<ToolOutput, ToolError> {
    /// A cancelled tool failed.
    fn cancelled() -> Self {
        Err(ToolError::Cancelled)
    }
}

impl Cancelled for Result<Option<ToolCallEventResult>, ToolCallHookError> {
    /// A cancelled gate let the call through (to the tool's own check, which fails it).
    fn cancelled() -> Self {
        Ok(None)
    }
}

impl<'t, F: Future<Output = Result<ToolOutput, ToolError>>> UntilCancelled<'t, F> {
    /// The tool's run: [`ToolError::Cancelled`] when the token is cancelled first.
    fn tool(future: F, cancel: &'t CancellationToken) -> Self {
        UntilCancelled {
            future,
            wait: None,
            cancel,
            cancel_first: true,
        }
    }

    /// The tool's run when nothing listens: polled first, watched once pending.
    fn direct(future: F, cancel: &'t CancellationToken) -> Self {
        UntilCancelled {
            future,
            wait: None,
            cancel,
            cancel_first: false,
        }
    }
}

impl<F: Future<Output: Cancelled>> Future for UntilCancelled<'_, F> {
    type Output = F::Output;

    // Inlined, so that the output of a future that completes at once is written where the
    // caller reads it.
    #[inline(always)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let mut this = self.project();
        // Without the wait, this is the first poll.
        let waiting = this.wait.is_some();
        if *this.cancel_first {
            let cancelled = if waiting {
                watch(this.wait.as_mut(), this.cancel, cx)
            } else {
                this.cancel.is_cancelled()
            };
            if cancelled {
                return Poll::Ready(F::Output::cancelled());
            }
        }
        if let Poll::Ready(output) = this.future.poll(cx) {
            return Poll::Ready(output);
        }
        if (!waiting || !*this.cancel_first) && watch(this.wait, this.cancel, cx) {
            return Poll::Ready(F::Output::cancelled());
        }
        Poll::Pending
    }
}

/// Polls the cancellation wait in `slot` (built there on the first call): whether the token
/// is cancelled.
fn watch<'t>(
    mut slot: Pin<&mut Option<WaitForCancellationFuture<'t>>>,
    cancel: &'t CancellationToken,
    cx: &mut Context<'_>,
) -> bool {
    if slot.is_none() {
        slot.set(Some(cancel.cancelled()));
    }
    slot.as_pin_mut()
        .is_some_and(|wait| wait.poll(cx).is_ready())
}

pin_project_lite::pin_project! {
    /// A wrapped call: the tool's own future when nothing listens, or the hooked run.
    #[project = CallProj]
    enum Call<'t, F, H> {
        Direct { #[pin] tool: UntilCancelled<'t, F> },
        Hooked { #[pin] run: H },
    }
}

impl<F, H> Future for Call<'_, F, H>
where
    F: Future<Output = Result<ToolOutput, ToolError>>,
    H: Future<Output = Result<ToolOutput, ToolError>>,
{
    type Output = Result<ToolOutput, ToolError>;

    // Inlined, so that a direct call costs what its tool's future costs; the hooked run is
    // polled out of line.
    #[inline(always)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            CallProj::Direct { tool } => tool.poll(cx),
            CallProj::Hooked { run } => poll_out_of_line(run, cx),
        }
    }
}

/// Polls `future` in a function of its own: a large state machine that is not inlined into
/// its caller's poll.
#[inline(never)]
fn poll_out_of_line<F: Future>(future: Pin<&mut F>, cx: &mut Context<'_>) -> Poll<F::Output> {
    future.poll(cx)
}

impl<T: Tool> Tool for HookToolWrapper<T> {
    fn name(&self) -> &str {
        self.tool.name()
    }

    fn description(&self) -> &str {
        self.tool.description()
    }

    fn parameters(&self) -> &Value {
        self.tool.parameters()
    }

    fn execute(
        &self,
        call_id: &str,
        input: &ToolInput,
        cancel: &CancellationToken,
        on_update: Option<&UpdateCallback>,
    ) -> impl Future<Output = Result<ToolOutput, ToolError>> + Send {
        let gated = self.runner.has_handlers(EventKind::ToolCall);
        let observed = self.runner.has_handlers(EventKind::ToolResult);
        if gated || observed {
            Call::Hooked {
                run: self.hooked(gated, observed, call_id, input, cancel, on_update),
            }
        } else {
            // Nothing listens: the tool's own future, watched once it is pending.
            Call::Direct {
                tool: UntilCancelled::direct(
                    self.tool.execute(call_id, input, cancel, on_update),
                    cancel,
                ),
            }
        }
    }
}
