//! Each example hook, called the way the runner calls it, and the bundle as a whole through
//! the test kit (`hookwright::testing`).

use std::path::Path;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use hookwright::context::{NewSessionOptions, SessionActionResult};
use hookwright::prelude::*;
use hookwright::testing::{Asked, ScriptedUi, TestSession};
use hookwright::{HookRunner, Host, JsonlSessionStore, SessionActions, SessionManager};
use hookwright_examples::{
    block_rm, compaction_guard, debug_notes, filter_context, handoff, redact, status_line,
};
use serde_json::{Value, json};

/// A session over no hooks (the examples are called directly), in `cwd`, with `ui` when given.
fn session(cwd: &Path, ui: Option<ScriptedUi>) -> TestSession {
    let builder = TestSession::builder().cwd(cwd);
    match ui {
        Some(ui) => builder.ui(ui),
        None => builder.without_ui(),
    }
    .build()
}

fn bash(command: &str) -> ToolCallEvent {
    ToolCallEvent {
        tool_name: "bash".into(),
        tool_call_id: "c1".into(),
        input: json!({ "command": command })
            .as_object()
            .cloned()
            .expect("object")
            .into(),
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// The registered guard, or the port line by line.
async fn block_rm(
    upstream: bool,
    event: &ToolCallEvent,
    ctx: &HookContext,
) -> Option<ToolCallEventResult> {
    if upstream {
        block_rm::block_rm_rf_upstream(event, ctx).await
    } else {
        block_rm::block_rm_rf(event, ctx).await
    }
}

#[test]
fn block_rm_rf_without_ui_blocks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = session(dir.path(), None);
    let ctx = session.runner().create_context();
    for upstream in [false, true] {
        rt().block_on(async {
            let result = block_rm(upstream, &bash("rm -rf /tmp/x"), &ctx).await;
            assert_eq!(
                result,
                Some(ToolCallEventResult::block("rm -rf blocked (no UI)"))
            );
            assert_eq!(block_rm(upstream, &bash("ls -la"), &ctx).await, None);
            let mut read = bash("rm -rf x");
            read.tool_name = "read".into();
            assert_eq!(block_rm(upstream, &read, &ctx).await, None);
        });
    }
}

#[test]
fn block_rm_rf_with_ui_asks() {
    let dir = tempfile::tempdir().expect("tempdir");
    for upstream in [false, true] {
        for (answer, expected) in [
            (
                false,
                Some(ToolCallEventResult::block("user denied command")),
            ),
            (true, None),
        ] {
            let session = session(dir.path(), Some(ScriptedUi::confirming(answer)));
            let ctx = session.runner().create_context();
            let result = rt().block_on(block_rm(upstream, &bash("sudo rm -rf build"), &ctx));
            assert_eq!(result, expected);
            let asked = Asked::Confirm {
                title: "Dangerous command".to_owned(),
                message: "Allow: sudo rm -rf build".to_owned(),
            };
            assert_eq!(session.ui().expect("a UI").asked(), [asked]);
        }
    }
}

/// What is typed into an interactive shell later is not known yet, so the user is not asked.
#[test]
fn an_interactive_shell_is_blocked_without_asking_even_with_a_ui() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = session(dir.path(), Some(ScriptedUi::confirming(true)));
    let ctx = session.runner().create_context();
    for command in ["bash", "sudo -i", "env python3"] {
        assert_eq!(
            rt().block_on(block_rm::block_rm_rf(&bash(command), &ctx)),
            Some(ToolCallEventResult::block(
                block_rm::INTERACTIVE_SHELL_BLOCKED
            )),
            "{command}"
        );
    }
    assert!(session.ui().expect("a UI").asked().is_empty());
    // The upstream port is left as upstream wrote it.
    assert_eq!(
        rt().block_on(block_rm::block_rm_rf_upstream(&bash("bash"), &ctx)),
        None
    );
}

#[test]
fn the_guard_blocks_rm_rf_however_it_is_spelled_where_the_upstream_port_does_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = session(dir.path(), None);
    let ctx = session.runner().create_context();
    let blocked = Some(ToolCallEventResult::block("rm -rf blocked (no UI)"));
    rt().block_on(async {
        for command in [
            "rm -fr x",
            "rm -r -f x",
            "ls && rm${IFS}-Rf x",
            "bash -c 'rm --recursive --force x'",
        ] {
            assert_eq!(
                block_rm::block_rm_rf(&bash(command), &ctx).await,
                blocked,
                "{command}"
            );
            assert_eq!(
                block_rm::block_rm_rf_upstream(&bash(command), &ctx).await,
                None,
                "{command}"
            );
        }
        // Words, not a substring: rm -rf here is echo's argument.
        assert_eq!(
            block_rm::block_rm_rf(&bash("echo 'rm -rf'"), &ctx).await,
            None
        );
        assert_eq!(
            block_rm::block_rm_rf_upstream(&bash("echo 'rm -rf'"), &ctx).await,
            blocked
        );
    });
}

#[test]
fn the_guard_reads_the_argument_vector_beside_the_command() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = session(dir.path(), None);
    let ctx = session.runner().create_context();
    let with_argv = |command: &str, argv: Value| ToolCallEvent {
        input: json!({ "command": command, "argv": argv })
            .as_object()
            .cloned()
            .expect("object")
            .into(),
        ..bash(command)
    };
    rt().block_on(async {
        // The Codex adapter's shape: `command` joined from the vector, the vector as `argv`.
        let codex = with_argv("rm -r -f x", json!(["rm", "-r", "-f", "x"]));
        assert_eq!(
            block_rm::block_rm_rf(&codex, &ctx).await,
            Some(ToolCallEventResult::block("rm -rf blocked (no UI)"))
        );
        // The vector is read on its own, word by word, even where `command` says less.
        let apart = with_argv("x", json!(["/usr/bin/env", "rm", "-Rf", "x"]));
        assert_eq!(
            block_rm::block_rm_rf(&apart, &ctx).await,
            Some(ToolCallEventResult::block("rm -rf blocked (no UI)"))
        );
        let harmless = with_argv("echo 'rm -rf'", json!(["echo", "rm -rf"]));
        assert_eq!(block_rm::block_rm_rf(&harmless, &ctx).await, None);
    });
}

fn read_result(text: &str, is_error: bool) -> ToolResultEvent {
    ToolResultEvent {
        tool_name: "read".into(),
        tool_call_id: "c2".into(),
        input: serde_json::Map::new().into(),
        content: vec![
            Content::text(text),
            Content::Other(json!({"type": "thinking"})),
        ],
        details: None,
        is_error: Some(is_error),
        is_warning: None,
    }
}

#[test]
fn redact_replaces_every_secret_in_text_chunks() {
    let result = redact::redact_tool_output(&read_result(
        "API_KEY=abc123 x\napi_key = é!x {\"MY_API_KEY\": \"zz\"}",
        false,
    ))
    .expect("a read result is redacted");
    let content = result.content.expect("content");
    assert_eq!(
        content[0].as_text(),
        Some("API_KEY=[REDACTED] x\napi_key = [REDACTED] {\"MY_API_KEY\": \"[REDACTED]\"}")
    );
    assert_eq!(
        redact::redact_tool_output(&read_result("API_KEY=a", true)),
        None
    );
}

#[test]
fn the_example_redactor_covers_shell_and_grep_output_too() {
    for tool in ["bash", "grep"] {
        let mut result = read_result("API_KEY=sk-1", false);
        result.tool_name = tool.into();
        let content = redact::redact_tool_output(&result)
            .and_then(|r| r.content)
            .unwrap_or_else(|| panic!("{tool} output is redacted"));
        assert_eq!(content[0].as_text(), Some("API_KEY=[REDACTED]"), "{tool}");
    }
    let mut edit = read_result("API_KEY=sk-1", false);
    edit.tool_name = "edit".into();
    assert_eq!(
        redact::redact_tool_output(&edit),
        None,
        "edit shows no file"
    );
}

#[test]
fn a_tool_whose_output_passes_no_hook_is_blocked_by_the_redactor() {
    let mut monitor = bash("cat secret.env");
    monitor.tool_name = "monitor".into();
    let blocked = redact::block_unhooked_output(&monitor).expect("monitor is blocked");
    assert!(blocked.is_block());
    assert_eq!(
        blocked.reason.as_deref(),
        Some(redact::UNHOOKED_OUTPUT_REASON)
    );
    assert_eq!(
        redact::block_unhooked_output(&bash("cat secret.env")),
        None,
        "bash output passes redact_tool_output"
    );
}

#[test]
fn the_example_redactor_withholds_what_it_cannot_read_and_keeps_images() {
    let mut result = read_result("API_KEY=sk-1", false);
    let image = Content::Image(ImageContent {
        data: "iVBORw0KGgo=".into(),
        mime_type: "image/png".into(),
        extra: Default::default(),
    });
    result.content[1] = Content::Other(json!({"type": "document", "source": {"data": "JVBERi0="}}));
    result.content.push(image.clone());
    let content = redact::redact_tool_output(&result)
        .and_then(|r| r.content)
        .expect("redacted");
    assert_eq!(
        content,
        [
            Content::text("API_KEY=[REDACTED]"),
            Content::text(redact::WITHHELD_DOCUMENT),
            image,
        ]
    );
}

#[test]
fn filter_drops_only_debug_only_custom_messages() {
    let mut note = CustomMessage::new("debug-only", "x");
    note.display = false;
    let kept = CustomMessage::new("other", "y");
    let event = ContextEvent {
        messages: vec![
            Message::user("a"),
            Message::Custom(note),
            Message::Custom(kept.clone()),
            Message::user("b"),
        ],
    };
    let result = filter_context::drop_debug_only(&event);
    assert_eq!(
        result.messages.expect("messages"),
        vec![
            Message::user("a"),
            Message::Custom(kept),
            Message::user("b")
        ]
    );
}

#[test]
fn handoff_starts_a_child_session_with_the_setup_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Arc::new(JsonlSessionStore::create(dir.path(), dir.path(), None).expect("store"));
    let parent = store.session_file().expect("file");
    let hooks = hookwright::registry::compiled_hooks(dir.path()).expect("registry");
    let runner = HookRunner::new(
        hooks,
        dir.path(),
        Arc::clone(&store) as Arc<dyn SessionManager>,
    );
    // The new session's parent and messages, as the host saw them.
    type Child = Option<(Option<String>, Vec<Value>)>;
    let child: Arc<Mutex<Child>> = Arc::default();
    let seen = Arc::clone(&child);
    /// A host whose `new_session` creates the child session on disk and runs its setup.
    struct Sessions {
        dir: std::path::PathBuf,
        seen: Arc<Mutex<Child>>,
    }
    #[async_trait]
    impl Host for Sessions {
        async fn new_session(&self, o: NewSessionOptions) -> SessionActionResult {
            let new = JsonlSessionStore::create(&self.dir, &self.dir, o.parent_session.clone())
                .expect("child");
            if let Some(setup) = o.setup {
                setup(&new).await.expect("setup");
            }
            let messages = new
                .entries()
                .iter()
                .map(|e| e.extra["message"].clone())
                .collect();
            *self.seen.lock().expect("lock") = Some((o.parent_session, messages));
            SessionActionResult::default()
        }
        fn session_actions(&self) -> SessionActions {
            SessionActions {
                new_session: true,
                ..SessionActions::NONE
            }
        }
    }
    runner.initialize(Sessions {
        dir: dir.path().to_path_buf(),
        seen,
    });
    let description = runner
        .get_command("handoff")
        .and_then(|c| c.description.clone());
    assert_eq!(
        description.as_deref(),
        Some("Create a new session with setup message")
    );
    rt().block_on(runner.run_command("handoff", ""))
        .expect("registered")
        .expect("ran");
    let (parent_session, messages) = child.lock().expect("lock").clone().expect("new session");
    assert_eq!(parent_session, Some(parent.to_string_lossy().into_owned()));
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["role"], "user");
    assert_eq!(
        messages[0]["content"],
        json!([{"type": "text", "text": handoff::SETUP_MESSAGE}])
    );
    assert!(messages[0]["timestamp"].is_i64());
}

#[test]
fn compaction_is_held_while_the_marker_exists() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = session(dir.path(), Some(ScriptedUi::new()));
    let ctx = session.runner().create_context();
    let ui = session.ui().expect("a UI");
    let event: SessionBeforeCompactEvent = serde_json::from_value(json!({
        "preparation": {"firstKeptEntryId": "e1"}
    }))
    .expect("event");
    assert_eq!(compaction_guard::hold_compaction(&event, &ctx), None);
    std::fs::create_dir_all(dir.path().join(".hooks")).expect("mkdir");
    std::fs::write(dir.path().join(compaction_guard::MARKER), "").expect("marker");
    let result = compaction_guard::hold_compaction(&event, &ctx).expect("cancels");
    assert_eq!(result.cancel, Some(true));
    let note = "compaction held: remove .hooks/hold-compaction to allow it";
    assert_eq!(ui.notifications(), [(note.to_owned(), NotifyKind::Warning)]);
}

#[test]
fn status_line_counts_tools() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = session(dir.path(), Some(ScriptedUi::new()));
    let ctx = session.runner().create_context();
    let ui = session.ui().expect("a UI");
    status_line::reset_tool_count(&SessionStartEvent {}, &ctx);
    assert_eq!(
        ui.status(status_line::STATUS_KEY).as_deref(),
        Some("tools run: 0")
    );
    status_line::count_tools(&read_result("x", false), &ctx);
    status_line::count_tools(&read_result("x", true), &ctx);
    assert_eq!(
        ui.status(status_line::STATUS_KEY).as_deref(),
        Some("tools run: 2 · last: read ✗")
    );
}

#[test]
fn debug_notes_are_sent_and_rendered() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = session(dir.path(), None);
    let ctx = session.runner().create_context();
    debug_notes::note_tool_output(&read_result("hello", false), &ctx).expect("sent");
    let sent: Vec<_> = session
        .sent()
        .into_iter()
        .map(|(message, _)| message)
        .collect();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].custom_type, "debug-only");
    assert_eq!(
        sent[0].content.to_text(),
        "read c2 returned 5 bytes of text"
    );
    let lines = debug_notes::render_debug_note(&sent[0], RenderOptions::default(), &Theme::plain());
    assert_eq!(
        lines,
        Some(vec!["[debug] read c2 returned 5 bytes of text".to_owned()])
    );
    let dark = debug_notes::render_debug_note(&sent[0], RenderOptions::default(), &Theme::dark())
        .expect("lines");
    assert!(dark[0].starts_with("\x1b[90m"));
}

#[test]
fn the_bundle_registers_every_example() {
    let ids = hookwright::registry::compiled_hook_ids();
    for id in [
        "hookwright_examples::block_rm",
        "hookwright_examples::compaction_guard",
        "hookwright_examples::debug_notes",
        "hookwright_examples::filter_context",
        "hookwright_examples::handoff",
        "hookwright_examples::redact",
        "hookwright_examples::status_line",
    ] {
        assert!(ids.contains(&id), "{id} is not registered: {ids:?}");
    }
    let names: Vec<(&str, &str)> = hookwright::registry::registrations()
        .iter()
        .filter(|r| r.hook().starts_with("hookwright_examples::"))
        .map(|r| (r.hook(), r.name()))
        .collect();
    assert_eq!(
        names,
        [
            ("hookwright_examples::block_rm", "block_rm_rf"),
            ("hookwright_examples::compaction_guard", "hold_compaction"),
            ("hookwright_examples::debug_notes", "note_tool_output"),
            ("hookwright_examples::debug_notes", "render_debug_note"),
            ("hookwright_examples::filter_context", "drop_debug_only"),
            ("hookwright_examples::handoff", "handoff"),
            ("hookwright_examples::redact", "redact_tool_output"),
            ("hookwright_examples::redact", "block_unhooked_output"),
            ("hookwright_examples::redact", "answer_secret_reads"),
            ("hookwright_examples::redact", "block_secret_edits"),
            ("hookwright_examples::status_line", "reset_tool_count"),
            ("hookwright_examples::status_line", "count_tools"),
        ]
    );
}

/// The bundle as a whole, through the linked hooks: what an agent's call meets.
#[test]
fn the_linked_bundle_blocks_rm_rf_without_a_ui_and_redacts_a_key_in_bash_output() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = TestSession::builder()
        .linked()
        .cwd(dir.path())
        .without_ui()
        .build();
    rt().block_on(async {
        let rm = json!({ "command": "rm -rf build" });
        let reason = session.block_reason("bash", rm).await;
        assert_eq!(reason.as_deref(), Some("rm -rf blocked (no UI)"));
        assert_eq!(
            session
                .block_reason("bash", json!({ "command": "ls" }))
                .await,
            None
        );
        let env = json!({ "command": "cat .env" });
        let seen = session.tool_output("bash", env, "API_KEY=sk-123\n").await;
        assert_eq!(seen, "API_KEY=[REDACTED]\n");
    });
}
