//! [`Emission`]: the future an `emit*` call returns.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

pin_project_lite::pin_project! {
    /// The future of an `emit*` call: already done when no handler of the event exists (no
    /// dispatch state is built or polled, and the caller's compiler sees the answer), else the
    /// dispatch.
    ///
    /// A finished emission holds a function that makes its answer rather than the answer
    /// itself: the answer is then built where the caller reads it (an answer stored in the
    /// future first would be written field by field and read back whole, which stalls the
    /// load on x86).
    pub(crate) struct Emission<F, D> {
        #[pin]
        dispatch: Option<F>,
        answer: Option<D>,
    }
}

impl<F, D> Emission<F, D> {
    /// An emission that answers what `answer` makes, at once.
    #[inline(always)]
    pub(crate) fn done(answer: D) -> Self {
        Emission {
            dispatch: None,
            answer: Some(answer),
        }
    }

    /// An emission that runs `dispatch`.
    #[inline(always)]
    pub(crate) fn running(dispatch: F) -> Self {
        Emission {
            dispatch: Some(dispatch),
            answer: None,
        }
    }
}

impl<F: Future, D: FnOnce() -> F::Output> Future for Emission<F, D> {
    type Output = F::Output;

    // Inlined so that an emission without handlers costs its caller a branch, and one with
    // sync handlers only hands its answer over without a call (the dispatch of async
    // handlers is polled out of line: see [`OutOfLine`]).
    #[inline(always)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        match this.dispatch.as_pin_mut() {
            Some(dispatch) => dispatch.poll(cx),
            None => {
                let answer = this.answer.take();
                Poll::Ready(answer.expect("an emission polled after it completed")())
            }
        }
    }
}

pin_project_lite::pin_project! {
    /// A future polled out of line: its state machine is not inlined into the future that
    /// awaits it, so that the awaiting one stays small enough to be inlined into its caller.
    pub(crate) struct OutOfLine<F> {
        #[pin]
        future: F,
    }
}

impl<F> OutOfLine<F> {
    /// Wraps `future`.
    pub(crate) fn new(future: F) -> Self {
        OutOfLine { future }
    }
}

impl<F: Future> Future for OutOfLine<F> {
    type Output = F::Output;

    #[inline(never)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.project().future.poll(cx)
    }
}
