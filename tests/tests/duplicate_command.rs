//! One hook registering the same command name twice is a load-time error naming both places.
//! (A test binary of its own: the duplicate makes every `compiled_hooks` call in it fail.)

use hookwright::prelude::*;
use hookwright::registry::{self, RegistryError};

#[command("handoff")]
fn handoff(_args: &str) {}

#[command("handoff", description = "the same name again")]
async fn handoff_again(_args: &str, _ctx: &CommandContext) {}

/// The same name in another hook is fine.
#[command("handoff", hook = "other")]
fn handoff_elsewhere(_args: &str) {}

#[test]
fn a_duplicate_command_is_an_error_naming_both_places() {
    let error = registry::compiled_hooks(std::path::Path::new(".")).unwrap_err();
    let RegistryError::DuplicateCommand {
        hook,
        name,
        first,
        second,
    } = &error
    else {
        panic!("unexpected error: {error}");
    };
    assert_eq!((*hook, *name), ("duplicate_command", "handoff"));
    assert_eq!((first.line, second.line), (8, 11));
    assert_eq!(
        error.to_string(),
        "hook `duplicate_command` registers the command `/handoff` twice: \
         at tests/tests/duplicate_command.rs:8 and at tests/tests/duplicate_command.rs:11"
    );
    // The registrations themselves are still listed (for `hooks list`).
    assert_eq!(registry::registrations().len(), 3);
    assert_eq!(
        registry::compiled_hook_ids(),
        ["duplicate_command", "other"]
    );
}
