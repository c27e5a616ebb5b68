//! The combine rules (SPEC.md section 5, SPEC-DETAILS sections 5.3 to 5.7): how the outcomes
//! of one emission's handlers make its answer.
//!
//! Each event names its rule as [`HookEvent::Rule`], one of the types here. The runner has one
//! emission path: it starts the rule, hands it each handler's result or error in dispatch order
//! (stopping when the rule says so), and answers what the rule finishes with. So every way of
//! emitting an event answers its rule's [`Combiner::Output`]: `emit(&tool_call)` returns the
//! strict rule's `Result`, `emit(&context)` the chain's messages.

use std::fmt;
use std::ops::ControlFlow;

use super::{
    BeforeAgentStartEventResult, ContextEvent, Event, HookEvent, Message, ToolCallEvent,
    ToolCallEventResult,
};
use crate::handler::{HandlerError, HandlerErrorKind};

/// The name of a combine rule (what [`Combiner::RULE`] says).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Combine {
    /// Results are ignored; every handler runs ([`Ignore`]).
    Ignore,
    /// The last returned result wins; every handler runs ([`LastWins`]).
    LastWins,
    /// The last returned result is tracked; a cancel returns at once ([`UntilCancel`]).
    LastWinsUntilCancel,
    /// The last returned result wins unless a handler blocks; handler errors propagate
    /// ([`Strict`]).
    LastWinsUntilBlock,
    /// Each handler receives the messages output by the previous one ([`Chain`]).
    Chain,
    /// The first returned message is kept; later handlers still run ([`FirstMessage`]).
    FirstMessage,
}

/// A combine rule: the state of one emission, fed each handler's outcome in dispatch order.
///
/// An emission starts the rule (`Default`), calls each handler with [`Combiner::event`], hands
/// it what the handler returned ([`Combiner::result`]) or threw ([`Combiner::error`]) until one
/// of them breaks, and answers [`Combiner::finish`]. A handler that returns nothing is not
/// handed over. An emission without handlers answers `finish` of the fresh rule.
pub trait Combiner<E: Event>: Default + Send + Sync {
    /// The rule's name.
    const RULE: Combine;
    /// What an emission answers.
    type Output;

    /// The event the next handler receives: the emitted one, unless the rule feeds its own
    /// (the chain).
    #[inline(always)]
    fn event<'e>(&'e self, emitted: &'e E) -> &'e E {
        emitted
    }

    /// Takes a result a handler returned; `Break` ends the emission (no later handler runs).
    fn result(&mut self, result: E::Result) -> ControlFlow<()>;

    /// Takes what the handler of `hook` threw (a returned `Err`, a panic, a timeout):
    /// `Continue(error)` has the runner report it (a `HookError`) and go on; `Break` ends the
    /// emission, the rule keeping the error for its output. Every rule but `tool_call`'s
    /// reports.
    #[inline(always)]
    fn error(&mut self, hook: &str, error: HandlerError) -> ControlFlow<(), HandlerError> {
        let _ = hook;
        ControlFlow::Continue(error)
    }

    /// The emission's answer.
    fn finish(self) -> Self::Output;
}

/// What an emission of `E` answers.
pub type Output<E> = <<E as HookEvent>::Rule as Combiner<E>>::Output;

/// Results are ignored (they have no values: [`super::NoResult`]); every handler runs; errors
/// are reported. Answers `None`.
#[derive(Debug, Default)]
pub struct Ignore;

impl<E: Event> Combiner<E> for Ignore {
    const RULE: Combine = Combine::Ignore;
    type Output = Option<E::Result>;

    #[inline(always)]
    fn result(&mut self, _result: E::Result) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    #[inline(always)]
    fn finish(self) -> Option<E::Result> {
        None
    }
}

/// The last returned result wins, wholesale; every handler runs; errors are reported
/// (`tool_result`, `session.compacting`).
pub struct LastWins<E: Event>(Option<E::Result>);

impl<E: Event> Default for LastWins<E> {
    fn default() -> Self {
        LastWins(None)
    }
}

impl<E: Event> Combiner<E> for LastWins<E> {
    const RULE: Combine = Combine::LastWins;
    type Output = Option<E::Result>;

    #[inline(always)]
    fn result(&mut self, result: E::Result) -> ControlFlow<()> {
        self.0 = Some(result);
        ControlFlow::Continue(())
    }

    #[inline(always)]
    fn finish(self) -> Option<E::Result> {
        self.0
    }
}

/// A result that can cancel what its event announces (`cancel: true`).
pub trait Cancels {
    /// Whether this result cancels.
    fn cancels(&self) -> bool;
}

/// The last returned result wins, wholesale; one that cancels is returned at once (no later
/// handler, of this hook or a later one, runs); errors are reported (`session_before_*`).
pub struct UntilCancel<E: Event>(Option<E::Result>);

impl<E: Event> Default for UntilCancel<E> {
    fn default() -> Self {
        UntilCancel(None)
    }
}

impl<E: Event<Result: Cancels>> Combiner<E> for UntilCancel<E> {
    const RULE: Combine = Combine::LastWinsUntilCancel;
    type Output = Option<E::Result>;

    #[inline(always)]
    fn result(&mut self, result: E::Result) -> ControlFlow<()> {
        let stop = result.cancels();
        self.0 = Some(result);
        if stop {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }

    #[inline(always)]
    fn finish(self) -> Option<E::Result> {
        self.0
    }
}

/// `tool_call`, strict: the last returned result wins unless a handler blocks (the first block
/// returns at once). A handler's error or panic ends the emission and is its answer; no
/// `HookError` is reported.
#[derive(Default)]
pub struct Strict {
    current: Option<ToolCallEventResult>,
    failed: Option<ToolCallHookError>,
}

impl Combiner<ToolCallEvent> for Strict {
    const RULE: Combine = Combine::LastWinsUntilBlock;
    type Output = Result<Option<ToolCallEventResult>, ToolCallHookError>;

    #[inline(always)]
    fn result(&mut self, result: ToolCallEventResult) -> ControlFlow<()> {
        let stop = result.is_block();
        self.current = Some(result);
        if stop {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }

    #[cold]
    fn error(&mut self, hook: &str, error: HandlerError) -> ControlFlow<(), HandlerError> {
        self.failed = Some(ToolCallHookError {
            hook_path: hook.to_owned(),
            error,
        });
        ControlFlow::Break(())
    }

    #[inline(always)]
    fn finish(self) -> Self::Output {
        match self.failed {
            Some(error) => Err(error),
            None => Ok(self.current),
        }
    }
}

/// `context`, chained: each handler receives the messages output by the previous one; a
/// result with `Some(messages)` replaces them (an empty list empties them), `None` keeps them;
/// errors are reported and the chain goes on with the previous messages. Answers the final
/// messages when a handler replaced them, `None` when the emitted ones stand.
#[derive(Default)]
pub struct Chain(Option<ContextEvent>);

impl Combiner<ContextEvent> for Chain {
    const RULE: Combine = Combine::Chain;
    type Output = Option<Vec<Message>>;

    #[inline(always)]
    fn event<'e>(&'e self, emitted: &'e ContextEvent) -> &'e ContextEvent {
        self.0.as_ref().unwrap_or(emitted)
    }

    #[inline(always)]
    fn result(&mut self, result: super::ContextEventResult) -> ControlFlow<()> {
        if let Some(messages) = result.messages {
            self.0 = Some(ContextEvent { messages });
        }
        ControlFlow::Continue(())
    }

    #[inline(always)]
    fn finish(self) -> Option<Vec<Message>> {
        self.0.map(|event| event.messages)
    }
}

/// `before_agent_start`: the first result carrying a message is the answer, whole; later
/// handlers still run, their messages ignored; errors are reported.
#[derive(Default)]
pub struct FirstMessage(Option<BeforeAgentStartEventResult>);

impl Combiner<super::BeforeAgentStartEvent> for FirstMessage {
    const RULE: Combine = Combine::FirstMessage;
    type Output = Option<BeforeAgentStartEventResult>;

    #[inline(always)]
    fn result(&mut self, result: BeforeAgentStartEventResult) -> ControlFlow<()> {
        if self.0.is_none() && result.message.is_some() {
            self.0 = Some(result);
        }
        ControlFlow::Continue(())
    }

    #[inline(always)]
    fn finish(self) -> Option<BeforeAgentStartEventResult> {
        self.0
    }
}

/// The error of a `tool_call` handler, which propagates instead of being reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCallHookError {
    /// The hook whose handler failed.
    pub hook_path: String,
    /// What it threw.
    pub error: HandlerError,
}

impl fmt::Display for ToolCallHookError {
    /// A returned `Err` is shown as is (upstream rethrows the same error); a panic or a timeout
    /// names the hook.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.error.kind() {
            HandlerErrorKind::Panic => {
                write!(f, "hook {} panicked: {}", self.hook_path, self.error)
            }
            HandlerErrorKind::Timeout => write!(f, "hook {}: {}", self.hook_path, self.error),
            _ => f.write_str(self.error.message()),
        }
    }
}

impl std::error::Error for ToolCallHookError {}
