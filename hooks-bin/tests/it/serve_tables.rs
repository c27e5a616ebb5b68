//! The hook table a resident host's sessions share ([`Tables`]): one table for sessions whose
//! hooks are the compiled-in hooks alone, a table of its own for any other load, and what a
//! hook keeps per session staying per session over the shared table.

use crate::common::{input, workdir};

use hookwright::registry::compiled_hooks;
use hookwright::{HookApi, HookTable};
use hookwright_cli::agents::Agent;
use hookwright_cli::call::{AdapterOptions, Tables};
use hookwright_cli::serve::{Secret, ServeOptions, Server};
use hookwright_examples as _;
use serde_json::json;

#[test]
fn sessions_whose_hooks_are_compiled_in_alone_share_one_table() {
    let (a, b) = (workdir(), workdir());
    let tables = Tables::new();
    let first = tables.table_for(compiled_hooks(a.path()).unwrap());
    assert!(!first.hooks().is_empty(), "the examples are linked");
    let second = tables.table_for(compiled_hooks(b.path()).unwrap());
    assert!(
        HookTable::ptr_eq(&first, &second),
        "a second session over the same compiled-in hooks gets the same table"
    );
}

#[test]
fn a_load_with_another_hook_gets_a_table_of_its_own() {
    let dir = workdir();
    let tables = Tables::new();
    let compiled = tables.table_for(compiled_hooks(dir.path()).unwrap());
    let mut hooks = compiled_hooks(dir.path()).unwrap();
    hooks.push(HookApi::new("extra", dir.path()).finish());
    let own = tables.table_for(hooks);
    assert!(!HookTable::ptr_eq(&compiled, &own));
    assert_eq!(own.hooks().last().map(|h| h.path.as_str()), Some("extra"));
    // Fewer compiled-in hooks (one disabled, say) are another table too.
    let mut fewer = compiled_hooks(dir.path()).unwrap();
    fewer.pop();
    assert!(!HookTable::ptr_eq(&compiled, &tables.table_for(fewer)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_over_one_table_keep_their_own_hook_state() {
    let dir = workdir();
    let mut options = ServeOptions::new(Secret::generate().unwrap());
    options.adapter = AdapterOptions::default().cwd(dir.path());
    let server = Server::new(options);
    let ran = |session: &str| {
        let mut body = input(
            "PostToolUse",
            dir.path(),
            json!({
                "tool_name": "Read",
                "tool_input": {"file_path": "/p/a.txt"},
                "tool_response": {"type": "text", "file": {"filePath": "/p/a.txt", "content": "x"}},
            }),
        );
        let text = String::from_utf8(body.clone()).unwrap();
        body = text.replace("abc123", session).into_bytes();
        body
    };
    let mut status = Vec::new();
    for session in ["a", "a", "b", "a", "b"] {
        let outcome = server
            .answer(Agent::Claude, "PostToolUse", &ran(session))
            .await;
        assert_eq!(outcome.code, 0, "{outcome:?}");
        let answer: serde_json::Value = serde_json::from_str(&outcome.stdout).unwrap();
        let message = answer["systemMessage"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let count = message
            .split("tools run: ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .map(str::to_owned);
        status.push((session, count));
    }
    let want = |n: &str| Some(n.to_owned());
    assert_eq!(
        status,
        [
            ("a", want("1")),
            ("a", want("2")),
            ("b", want("1")),
            ("a", want("3")),
            ("b", want("2")),
        ],
        "each session counts its own tools (the examples' status line, in the runner's state)"
    );
    server.sessions().shutdown_all().await;
}
