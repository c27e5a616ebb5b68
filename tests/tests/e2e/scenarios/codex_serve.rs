//! Codex 0.169.0 with `hooks serve` running (`hooks serve --detach` in the sandbox): the
//! installed `hooks codex EVENT` commands hand their calls to the server over its unix
//! socket, so one Codex session keeps one runner and its count across tool calls.

use super::bundle;
use crate::agent::codex::Codex;
use crate::agent::{self, Sandbox, StopServer};
use crate::model::{ModelServer, Script, Step};

/// The server's log (`serve-<BINARY>.log` in the sandbox's runtime directory).
fn server_log(sb: &Sandbox) -> String {
    let Ok(dirs) = std::fs::read_dir(sb.root()) else {
        return String::new();
    };
    dirs.filter_map(Result::ok)
        .map(|d| d.path())
        .filter(|d| {
            d.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("hooks-"))
        })
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flatten()
        .filter_map(Result::ok)
        .map(|f| f.path())
        .filter(|f| f.extension().is_some_and(|x| x == "log"))
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .collect()
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn with_a_server_running_a_codex_session_keeps_its_count_across_tool_calls_and_the_gate_blocks() {
    let server = ModelServer::start(Script::new(vec![
        Step::Shell("echo one".into()),
        Step::Shell("rm -rf victim".into()),
        Step::Shell("echo two".into()),
        Step::Shell("echo three".into()),
        Step::Text("done".into()),
    ]));
    let (codex, sb) = agent::installed::<Codex>("codex-serve", &server);
    Codex::trust_hooks(&sb);
    let _stop = StopServer(&sb);
    sb.serve(&["--detach"]);
    assert!(
        sb.serve(&["--status"]).starts_with("running"),
        "{}",
        server_log(&sb)
    );
    sb.write("victim/keep.txt", "precious\n");
    let turn = codex.app_server_turn(&sb, "tidy up");
    let evidence = format!("{}\nserver log:\n{}", turn.evidence(), server_log(&sb));
    // The gate, served by the server.
    assert!(
        sb.project.join("victim/keep.txt").exists(),
        "rm -rf ran:\n{evidence}"
    );
    bundle::assert_the_model_got_the_guard_s_reason(&server, &evidence);
    // One count for the session, kept across the three calls that ran (the blocked one
    // never ran): in a process per call each would say `tools run: 1`.
    let warnings = turn.entries("postToolUse", "warning");
    for n in 1..=3 {
        assert!(
            warnings
                .iter()
                .any(|w| w.contains(&format!("status: tools run: {n} "))),
            "no `tools run: {n}`: {warnings:?}\n{evidence}"
        );
    }
    let stopped = sb.serve(&["--stop"]);
    assert!(stopped.starts_with("stopped"), "{stopped}");
    let log = server_log(&sb);
    assert!(
        log.contains("session codex/") && log.contains(" ended (shutdown)"),
        "the server served no Codex session:\n{log}"
    );
    for needle in ["tools run:", "[debug]"] {
        assert_eq!(server.received(needle), Vec::<String>::new(), "{needle}");
    }
    let times = turn.hook_times();
    crate::report(&format!(
        "codex hook time handed to hooks serve (unix socket): preToolUse {}, postToolUse {}",
        times.median("preToolUse", |_| true),
        times.median("postToolUse", |_| true),
    ));
}
