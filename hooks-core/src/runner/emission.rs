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

    // Inlined so that an emission without handlers costs its caller a branch; the dispatch is
    // polled out of line, so that inlining this never copies the dispatch's code.
    #[inline(always)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        match this.dispatch.as_pin_mut() {
            Some(dispatch) => poll_dispatch(dispatch, cx),
            None => Poll::Ready(this
                .answer
                .take()
                .expect("an emission polled after it completed")(
            )),
        }
    }
}

#[inline(never)]
fn poll_dispatch<F: Future>(dispatch: Pin<&mut F>, cx: &mut Context<'_>) -> Poll<F::Output> {
    dispatch.poll(cx)
}
