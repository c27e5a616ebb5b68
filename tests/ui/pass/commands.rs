//! `#[command]`: sync and async, with and without the context, returning `()` or `Result`.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use hookwright::prelude::*;
use hookwright::{HookRunner, JsonlSessionStore, registry};

static CALLS: AtomicUsize = AtomicUsize::new(0);

/// Create a new session with setup message.
#[command("handoff", description = "Create a new session with setup message")]
async fn handoff(_args: &str, ctx: &CommandContext) {
    ctx.wait_for_idle().await;
    CALLS.fetch_add(1, Ordering::SeqCst);
}

#[command("count")]
fn count(args: &str) -> Result<(), std::num::ParseIntError> {
    CALLS.fetch_add(args.parse()?, Ordering::SeqCst);
    Ok(())
}

#[command("sync-ctx", hook = "zz_other")]
fn sync_ctx(_args: &str, ctx: &CommandContext) {
    let _ = ctx.cwd();
}

#[command("async-result")]
async fn async_result(args: &str) -> anyhow::Result<()> {
    anyhow::ensure!(args.is_empty(), "no arguments expected, got `{args}`");
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let names: Vec<(&str, &str, Option<&str>)> = registry::registrations()
        .iter()
        .map(|r| (r.target(), r.name(), r.description()))
        .collect();
    assert_eq!(
        names,
        [
            (
                "handoff",
                "handoff",
                Some("Create a new session with setup message")
            ),
            ("count", "count", None),
            ("async-result", "async_result", None),
            ("sync-ctx", "sync_ctx", None),
        ]
    );
    let cwd = Path::new(".");
    let runner = HookRunner::new(
        registry::compiled_hooks(cwd).unwrap(),
        cwd,
        Arc::new(JsonlSessionStore::in_memory(cwd)),
    );
    assert_eq!(runner.run_command("handoff", "").await, Some(Ok(())));
    assert_eq!(runner.run_command("count", "2").await, Some(Ok(())));
    assert_eq!(CALLS.load(Ordering::SeqCst), 3);
    let err = runner.run_command("count", "x").await.unwrap().unwrap_err();
    assert_eq!(err.message(), "invalid digit found in string");
    assert!(
        runner
            .run_command("async-result", "x")
            .await
            .unwrap()
            .is_err()
    );
    assert_eq!(runner.run_command("sync-ctx", "").await, Some(Ok(())));
    let command = runner.get_command("handoff").unwrap();
    assert_eq!(command.location.unwrap().line, 14);
}
