//! Panics provoked on purpose, and a panic hook that keeps them out of the test output.

use std::sync::Once;

/// Every panic a test provokes on purpose carries this text, so the panic hook can hide it.
pub const PANIC_TAG: &str = "test-panic";

/// Installs (once per test binary) a panic hook that hides panics whose message contains
/// [`PANIC_TAG`] and reports every other panic (a failing assertion) as usual.
pub fn quiet_expected_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let message = payload
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| payload.downcast_ref::<String>().map(String::as_str));
            if message.is_some_and(|m| m.contains(PANIC_TAG)) || payload.is::<OpaquePayload>() {
                return;
            }
            default(info);
        }));
    });
}

/// A panic payload that is not a string (hidden by [`quiet_expected_panics`] too).
#[derive(Debug)]
pub struct OpaquePayload;

/// Panics with an [`OpaquePayload`].
pub fn boom_opaque() {
    std::panic::panic_any(OpaquePayload)
}

/// Panics with `message` (a function, so handler closures keep the `()` return type).
pub fn boom(message: &str) {
    panic!("{message}")
}
