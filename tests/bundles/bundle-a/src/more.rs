//! More of bundle A's hook, in a second file: sorted after `lib.rs` (by file name).

use hookwright::prelude::*;

#[hook(event = "context", hook = "bundle_a")]
async fn a4(event: &ContextEvent) -> ContextEventResult {
    crate::append(event, "a4")
}
