//! Claude Code 2.1.328 on HTTP hooks: `hooks install claude --http --project`, the server
//! started by the session's `SessionStart` command (`--via-server`), and killed mid-session:
//! the next gating call blocks, saying how to start the server again.

use serde_json::json;

use super::bundle;
use crate::agent::claude::{Claude, read};
use crate::agent::{Agent, AgentRun, Sandbox, StopServer};
use crate::fixtures::{REDACTED, SECRET, secret_line};
use crate::model::{ModelServer, Script, Step};

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_session_on_http_hooks_gates_redacts_counts_and_blocks_once_the_server_is_killed() {
    let claude = Claude::for_suite();
    let sb = Sandbox::new("claude-http");
    let _stop = StopServer(&sb);
    let path = claude.path_with_binary();
    sb.hooks(
        &["install", "claude", "--http", "--project"],
        &[("PATH", path.as_path())],
    );
    assert!(
        !sb.project.join(".claude/settings.json").exists(),
        "the secret stays out of the committed settings"
    );
    // A command hook beside the HTTP one, for the agent's own cost of a command hook in the
    // same run.
    crate::fixtures::add_handler(
        &sb.project.join(".claude/settings.local.json"),
        "PreToolUse",
        json!({"type": "command", "command": "/bin/true"}),
    );
    sb.write("victim/keep.txt", "precious\n");
    sb.write("late/keep.txt", "precious too\n");
    let file = sb.write("config.txt", format!("name=demo\n{}\n", secret_line()));
    // The lock file holds the server's pid: the model's own shell call kills it.
    let kill = "kill -9 $(sed 's/.*\"pid\":\\([0-9]*\\).*/\\1/' \"$TMPDIR\"/hooks-*/serve-*.lock)";
    let server = ModelServer::start(Script::new(vec![
        Step::Shell("rm -rf victim".into()),
        read(&file),
        Step::Shell("echo one".into()),
        Step::Shell("echo two".into()),
        Step::Shell("echo three".into()),
        Step::Shell(kill.into()),
        Step::Shell("rm -rf late".into()),
        Step::Text("done".into()),
    ]));
    let run = claude.run(&sb, &server, "tidy up");
    let evidence = run.evidence();
    let results = server.tool_results();
    // Gate.
    assert!(
        sb.project.join("victim/keep.txt").exists(),
        "rm -rf ran:\n{evidence}"
    );
    bundle::assert_the_model_got_the_guard_s_reason(&server, &evidence);
    // Redaction: Claude Code's read of a file with a secret is answered by the redactor
    // itself (so the file is not shown again after a compaction), which the HTTP hook can do
    // only knowing it serves Claude Code.
    assert!(
        results.iter().any(|(_, t)| t.contains(REDACTED)
            && t.contains(hookwright_examples::redact::secret_files::READ_IN_PLACE)),
        "no redacted text reached the model: {results:?}\n{evidence}"
    );
    assert_eq!(server.received(SECRET), Vec::<String>::new(), "{evidence}");
    // A count kept across tool calls: the examples' status line, shown to the user.
    let counted: Vec<&str> = run.debug_lines("tools run: ");
    assert!(
        counted.iter().any(|l| l.contains("tools run: 3 ")),
        "the session's count did not reach 3: {counted:?}\n{evidence}"
    );
    // The server killed mid-session: the next gating call blocks.
    assert!(
        sb.project.join("late/keep.txt").exists(),
        "rm -rf ran with the server dead:\n{evidence}"
    );
    assert_eq!(sb.serve(&["--status"]), "not running\n", "{evidence}");
    // ... and what the model (and the user) got says how to bring it back: Claude Code names
    // the entry by its URL, whose query is the command; which works.
    let binary = crate::host_binary::path().canonicalize().unwrap();
    let hint = format!("?if-unreachable=run+{}+serve+--detach]", binary.display());
    let after_kill = results.last().map(|(_, t)| t.as_str()).unwrap_or_default();
    assert!(
        after_kill.contains("blocking because onFailure is \"block\"")
            && after_kill.contains(&hint),
        "the blocked call does not say how to recover ({hint}): {results:?}\n{evidence}"
    );
    sb.serve(&["--detach"]);
    assert!(
        sb.serve(&["--status"]).starts_with("running: pid "),
        "{evidence}"
    );
    let times = crate::timing::hook_times(&run.debug_log);
    let http = crate::timing::http_hook_times(&run.debug_log);
    assert!(http.count("PreToolUse", |_| true) >= 5, "{evidence}");

    // The HTTP hooks alone: Claude Code runs an event's hooks at once, and spawning the
    // command hook beside them holds its event loop, the HTTP hook's answer included.
    let local = sb.project.join(".claude/settings.local.json");
    crate::fixtures::remove_handlers(&local, "PreToolUse", |h| h["command"] == "/bin/true");
    let echoes = || {
        let steps = (0..6).map(|i| Step::Shell(format!("echo {i}")));
        Script::new(steps.chain([Step::Text("done".into())]).collect())
    };
    let pre_tool_use_times = |server: &ModelServer| {
        let run = claude.run(&sb, server, "echo");
        let http = crate::timing::http_hook_times(&run.debug_log);
        assert!(
            http.count("PreToolUse", |_| true) >= 5,
            "{}",
            run.evidence()
        );
        http.median_by(|t| t.event == "PreToolUse" && t.status == 0)
    };
    let alone = pre_tool_use_times(&ModelServer::start(echoes()));
    // The floor: the same entry sent to the scripted model server's `/hook/` route, which
    // answers `{}` at once.
    let floor = ModelServer::start(echoes());
    let floor_url = format!("{}/hook/PreToolUse", floor.url());
    crate::fixtures::edit_handlers(&local, |event, h| {
        if event == "PreToolUse" && h["type"] == "http" {
            h["url"] = floor_url.clone().into();
        }
    });
    let floor_time = pre_tool_use_times(&floor);
    crate::report(&format!(
        "claude hook time PreToolUse: HTTP (hooks serve) {} beside a command hook, {} alone, \
         {} to an empty answer (the floor); command /bin/true {}; HTTP with the server gone \
         (connection refused) {}; SessionStart (command, starting the server) {}",
        http.median_by(|t| t.event == "PreToolUse" && t.status == 0),
        alone,
        floor_time,
        times.median("PreToolUse", |c| c == "/bin/true"),
        http.median_by(|t| t.event == "PreToolUse" && t.status != 0),
        times.median("SessionStart", |_| true),
    ));
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_session_started_in_audit_mode_is_audited_and_the_next_session_is_not() {
    let claude = Claude::for_suite();
    let sb = Sandbox::new("claude-http-audit");
    let _stop = StopServer(&sb);
    let path = claude.path_with_binary();
    sb.hooks(
        &["install", "claude", "--http", "--project"],
        &[("PATH", path.as_path())],
    );
    sb.write("audited/keep.txt", "precious\n");
    sb.write("gated/keep.txt", "precious too\n");
    // The first session starts the server (its `SessionStart --via-server`) in audit mode.
    let audited = ModelServer::start(Script::new(vec![
        Step::Shell("rm -rf audited".into()),
        Step::Text("done".into()),
    ]));
    let run = claude.run_with_env(&sb, &audited, "tidy up", &[("HOOKS_MODE", "audit")]);
    assert!(
        !sb.project.join("audited/keep.txt").exists(),
        "the audited session was gated:\n{}",
        run.evidence()
    );
    // The server outlives the session that started it, with none of that session's
    // environment (the harness kills every process that inherited its run's).
    let status = sb.serve(&["--status"]);
    let pid = status
        .strip_prefix("running: pid ")
        .and_then(|rest| rest.split(',').next())
        .unwrap_or_else(|| panic!("{status}\n{}", run.evidence()));
    let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
    assert!(
        !String::from_utf8_lossy(&environ).contains("HOOKS_MODE"),
        "the server has the session's HOOKS_MODE"
    );
    // The next session, on the same server, brings no mode: it is gated.
    let gated = ModelServer::start(Script::new(vec![
        Step::Shell("rm -rf gated".into()),
        Step::Text("done".into()),
    ]));
    let run = claude.run(&sb, &gated, "tidy up");
    assert!(
        sb.project.join("gated/keep.txt").exists(),
        "rm -rf ran in a session without audit mode:\n{}",
        run.evidence()
    );
    bundle::assert_the_model_got_the_guard_s_reason(&gated, &run.evidence());
    assert!(
        sb.serve(&["--status"])
            .starts_with(&format!("running: pid {pid},")),
        "the same server served both sessions"
    );
}
