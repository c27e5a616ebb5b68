//! What the Claude Code and Codex adapters (`hooks claude EVENT`, `hooks codex EVENT`) do
//! with the same calls, table-driven: each test runs its case for both agents ([`AGENTS`]),
//! with the agent's own input and, where the two differ, the agent's own expected answer.
//! Called in process with hooks built by the `HookApi` builder, and through the built binary.
//! What only one of them does is in `adapter_claude` and `adapter_codex`.

use crate::common;

use std::path::Path;

use serde_json::{Value, json};

use common::{
    Broken, Call, blocking_options, call, canonical_options, claude_bash, codex_input,
    failing_options, session_recorder_options, talking_options, workdir,
};
use hookwright_cli::agents::Protocol;
use hookwright_cli::agents::claude::Claude;
use hookwright_cli::agents::codex::Codex;
use hookwright_cli::call::{AdapterOptions, answer};
use hookwright_cli::json::MAX_INPUT_BYTES;
use hookwright_cli::transport::command;

/// One of the two agents: its adapter and how it spells an input.
struct Agent {
    protocol: &'static dyn Protocol,
    /// An input of `event` in `cwd` with the common fields (and the agent's own) and `extra`.
    input: fn(&str, &Path, Value) -> Vec<u8>,
}

const CLAUDE: Agent = Agent {
    protocol: &Claude,
    input: common::input,
};

const CODEX: Agent = Agent {
    protocol: &Codex,
    input: codex_input,
};

/// Both agents.
const AGENTS: [&Agent; 2] = [&CLAUDE, &CODEX];

impl Agent {
    fn name(&self) -> &'static str {
        self.protocol.name()
    }

    /// One in-process call of the adapter.
    fn call(&self, event: &str, bytes: &[u8], opts: &AdapterOptions) -> Call {
        call(self.protocol, event, bytes, opts)
    }

    /// An input of `event` ([`Agent::input`]).
    fn input(&self, event: &str, cwd: &Path, extra: Value) -> Vec<u8> {
        (self.input)(event, cwd, extra)
    }

    /// A `PreToolUse` of `Bash` running `command`.
    fn bash(&self, cwd: &Path, command: &str) -> Vec<u8> {
        self.input(
            "PreToolUse",
            cwd,
            json!({"tool_name": "Bash", "tool_input": {"command": command}}),
        )
    }

    /// Calls `event` with `bytes`, asserts that it failed closed ([`Agent::assert_fail_closed`])
    /// and that stderr holds each of `said`; returns the call.
    fn fails_closed_saying(
        &self,
        event: &str,
        bytes: &[u8],
        opts: &AdapterOptions,
        said: &[&str],
    ) -> Call {
        let c = self.call(event, bytes, opts);
        self.assert_fail_closed(&c);
        for text in said {
            assert!(
                c.stderr.contains(text),
                "{}: {text}: {}",
                self.name(),
                c.stderr
            );
        }
        c
    }

    /// Asserts that `c` failed closed ([`Call::assert_fail_closed`]).
    fn assert_fail_closed(&self, c: &Call) {
        c.assert_fail_closed(self.name());
    }
}

/// Claude Code's `result.reason || DEFAULT`: a reason of only whitespace is a reason. Codex
/// ignores a deny without a non-blank reason and runs the tool, so a blank one is never sent.
#[test]
fn a_deny_without_a_reason_gets_the_default_reason() {
    let dir = workdir();
    const DEFAULT: &str = "Tool execution was blocked by a hook";
    // The reason the hook gave, and the one the agent is sent.
    type Cases = &'static [(Option<&'static str>, &'static str)];
    let rows: [(&Agent, Vec<u8>, Cases); 2] = [
        (
            &CLAUDE,
            claude_bash(dir.path(), "ls"),
            &[(None, DEFAULT), (Some(""), DEFAULT), (Some("  "), "  ")],
        ),
        (
            &CODEX,
            CODEX.bash(dir.path(), "rm -rf ~"),
            &[
                (None, DEFAULT),
                (Some(""), DEFAULT),
                (Some("  "), DEFAULT),
                (Some("\n\t"), DEFAULT),
            ],
        ),
    ];
    for (agent, bytes, cases) in rows {
        for (reason, expected) in cases {
            let c = agent.call("PreToolUse", &bytes, &blocking_options(*reason));
            assert_eq!(c.code, 0, "{} {reason:?}: {c:?}", agent.name());
            assert_eq!(
                c.json()["hookSpecificOutput"]["permissionDecisionReason"],
                *expected,
                "{} {reason:?}",
                agent.name()
            );
        }
    }
}

#[test]
fn pre_tool_use_allow_prints_nothing_never_allow() {
    let dir = workdir();
    let rows = [
        (&CLAUDE, claude_bash(dir.path(), "ls -la"), "toolu_01ABC123"),
        (
            &CODEX,
            CODEX.input(
                "PreToolUse",
                dir.path(),
                json!({"tool_name": "Bash", "tool_input": {"command": "cargo test"}, "tool_use_id": "c1"}),
            ),
            "c1",
        ),
    ];
    for (agent, bytes, id) in rows {
        let (opts, log) = canonical_options();
        let c = agent.call("PreToolUse", &bytes, &opts);
        assert_eq!(
            (c.code, c.stdout.as_str(), c.stderr.as_str()),
            (0, "", ""),
            "{}",
            agent.name()
        );
        let seen = log.lock().unwrap();
        assert_eq!(
            seen.tool_calls.len(),
            1,
            "{}: the handler ran",
            agent.name()
        );
        assert_eq!(seen.tool_calls[0].tool_name, "bash");
        assert_eq!(seen.tool_calls[0].tool_call_id, id);
        assert_eq!(seen.cwds[0], dir.path(), "cwd comes from the input");
    }
}

#[test]
fn pre_tool_use_deny_prints_deny_json() {
    let dir = workdir();
    let rows = [
        (&CLAUDE, claude_bash(dir.path(), "rm -rf /")),
        (&CODEX, CODEX.bash(dir.path(), "rm -rf ~")),
    ];
    for (agent, bytes) in rows {
        let (opts, _log) = canonical_options();
        let c = agent.call("PreToolUse", &bytes, &opts);
        assert_eq!(c.code, 0, "{}: {c:?}", agent.name());
        assert_eq!(
            c.json(),
            json!({"hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "rm -rf blocked (no UI)",
            }}),
            "{}",
            agent.name()
        );
        assert!(c.stdout.ends_with('\n') && c.stdout.matches('\n').count() == 1);
    }
}

#[test]
fn pre_tool_use_with_unknown_fields_still_decides() {
    let dir = workdir();
    for agent in AGENTS {
        let (opts, _log) = canonical_options();
        let bytes = agent.input(
            "PreToolUse",
            dir.path(),
            json!({
                "tool_name": "Bash",
                "tool_input": {"command": "rm -rf build", "brand_new_flag": {"x": [1, 2, {"y": null}]}},
                "permission_mode": "someFutureMode",
                "effort": {"level": "xhigh"},
                "prompt_id": "550e8400-e29b-41d4-a716-446655440000",
                "agent_id": "a1", "agent_type": "Explore",
                "scratchpad_dir": "/tmp/s",
                "session_id": 12345,
            }),
        );
        let c = agent.call("PreToolUse", &bytes, &opts);
        assert_eq!(c.code, 0, "{}: {c:?}", agent.name());
        assert_eq!(c.json()["hookSpecificOutput"]["permissionDecision"], "deny");
    }
}

#[test]
fn cwd_option_overrides_the_input() {
    let dir = workdir();
    let other = workdir();
    for agent in AGENTS {
        let (opts, log) = canonical_options();
        let opts = opts.cwd(other.path());
        let c = agent.call("PreToolUse", &agent.bash(dir.path(), "ls"), &opts);
        assert_eq!(c.code, 0, "{}: {c:?}", agent.name());
        assert_eq!(
            log.lock().unwrap().cwds[0],
            other.path(),
            "{}",
            agent.name()
        );
    }
}

/// Hooks loaded for a directory that does not exist would lack its hook files: a gating event
/// fails closed (exit 2), an observational one reports it (exit 1).
#[test]
fn missing_working_directory_fails_closed() {
    let gone = workdir().path().join("gone");
    for agent in AGENTS {
        let (opts, log) = canonical_options();
        let c = agent.call("PreToolUse", &agent.bash(&gone, "ls"), &opts);
        agent.assert_fail_closed(&c);
        assert!(c.stderr.contains("is not a directory"), "{}", c.stderr);
        assert!(c.stderr.contains("gone"), "{}", c.stderr);
        let c = agent.call(
            "SessionEnd",
            &agent.input("SessionEnd", &gone, json!({"reason": "other"})),
            &opts,
        );
        assert_eq!(c.code, 1, "{}: {c:?}", agent.name());
        assert!(log.lock().unwrap().cwds.is_empty(), "no hooks were loaded");
    }
}

#[test]
fn post_tool_use_unchanged_output_prints_nothing() {
    let dir = workdir();
    let rows = [
        (&CLAUDE, json!({"stdout": "a b", "stderr": ""})),
        (&CODEX, json!("a\nb")),
    ];
    for (agent, response) in rows {
        let (opts, _log) = canonical_options();
        let bytes = agent.input(
            "PostToolUse",
            dir.path(),
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": response}),
        );
        let c = agent.call("PostToolUse", &bytes, &opts);
        assert_eq!((c.code, c.stdout.as_str()), (0, ""), "{}", agent.name());
    }
}

/// A prompt that is a registered command is answered by it (Claude Code: without echoing the
/// prompt); an unknown `/name` is a prompt like any other; a `before_agent_start` message is
/// the prompt's context.
#[test]
fn user_prompt_submit_runs_a_registered_command_and_injects_context() {
    let dir = workdir();
    let context = json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "remember the style guide"}});
    let rows = [
        (
            &CLAUDE,
            "/handoff finish the parser",
            json!({"decision": "block", "reason": "handoff: finish the parser",
                   "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "suppressOriginalPrompt": true}}),
        ),
        (
            &CODEX,
            "/handoff",
            json!({"decision": "block", "reason": "handoff:"}),
        ),
    ];
    for (agent, command, answered) in rows {
        for (prompt, expected) in [
            (command, Some(answered.clone())),
            ("/compact now", None),
            ("context please, then fix it", Some(context.clone())),
        ] {
            let (opts, _log) = canonical_options();
            let bytes = agent.input("UserPromptSubmit", dir.path(), json!({"prompt": prompt}));
            let c = agent.call("UserPromptSubmit", &bytes, &opts);
            assert_eq!(c.code, 0, "{} {prompt}: {c:?}", agent.name());
            let answer = (!c.stdout.is_empty()).then(|| c.json());
            assert_eq!(answer, expected, "{} {prompt}", agent.name());
        }
    }
}

/// Claude Code shows `systemMessage` to the user, Codex's TUI and app as a hook warning
/// (`codex exec` shows none); neither sends it to the model.
#[test]
fn what_hooks_say_to_the_user_is_a_system_message_and_never_context() {
    let dir = workdir();
    let opts = talking_options();
    let rows = [
        (
            &CLAUDE,
            json!({"stdout": "a\n", "stderr": "", "interrupted": false, "isImage": false}),
        ),
        (&CODEX, json!("a\n")),
    ];
    for (agent, response) in rows {
        let pre = agent.input(
            "PreToolUse",
            dir.path(),
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "c1"}),
        );
        let c = agent.call("PreToolUse", &pre, &opts);
        assert_eq!(c.code, 0, "{}: {c:?}", agent.name());
        assert_eq!(
            c.json(),
            json!({"systemMessage": "careful: bash\nstatus: tools: 1"}),
            "{}: a notification and the status line, and no decision",
            agent.name()
        );
        let post = agent.input(
            "PostToolUse",
            dir.path(),
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": response}),
        );
        assert_eq!(
            agent.call("PostToolUse", &post, &opts).json(),
            json!({"systemMessage": "[fancy] shown note"}),
            "{}: a displayed message with its renderer; a hidden one is not shown",
            agent.name()
        );
        let start = agent.input("SessionStart", dir.path(), json!({"source": "startup"}));
        assert_eq!(
            agent.call("SessionStart", &start, &opts).json(),
            json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "welcome\n\ncontext only"},
                   "systemMessage": "welcome"}),
            "{}: every message is context; the displayed one is also shown",
            agent.name()
        );
        let end = agent.input("SessionEnd", dir.path(), json!({"reason": "other"}));
        let c = agent.call("SessionEnd", &end, &opts);
        assert_eq!(
            (c.code, c.stdout.as_str()),
            (0, ""),
            "{}: nothing is shown on SessionEnd (Codex: it has no output schema)",
            agent.name()
        );
    }
}

#[test]
fn session_start_sends_messages_as_context_and_session_end_and_stop_run() {
    let dir = workdir();
    for agent in AGENTS {
        let (opts, log) = canonical_options();
        let start = agent.input(
            "SessionStart",
            dir.path(),
            json!({"source": "startup", "model": "claude-x"}),
        );
        let c = agent.call("SessionStart", &start, &opts);
        assert_eq!(c.code, 0, "{}: {c:?}", agent.name());
        assert_eq!(
            c.json()["hookSpecificOutput"],
            json!({"hookEventName": "SessionStart", "additionalContext": "session notes: be careful"}),
            "{}",
            agent.name()
        );
        let end = agent.input("SessionEnd", dir.path(), json!({"reason": "other"}));
        let c = agent.call("SessionEnd", &end, &opts);
        assert_eq!((c.code, c.stdout.as_str()), (0, ""), "{}", agent.name());
        let stop = agent.input(
            "Stop",
            dir.path(),
            json!({"stop_hook_active": false, "last_assistant_message": "done"}),
        );
        let c = agent.call("Stop", &stop, &opts);
        assert_eq!((c.code, c.stdout.as_str()), (0, ""), "{}", agent.name());
        assert_eq!(
            log.lock().unwrap().events,
            ["session_start", "session_shutdown", "agent_end:1"],
            "{}",
            agent.name()
        );
    }
}

/// `SessionStart`'s `source` says which of our events it is: a new session, a switch (with
/// its reason), or, after a compaction, none; a source the adapter does not know is a new
/// session. What the hook sent on it is the answer's context.
#[test]
fn session_start_source_picks_the_upstream_event() {
    let dir = workdir();
    let started = (Some("session_start"), Some("started"));
    let switched = |reason: &'static str| (Some(reason), Some("switched"));
    type Case = (Option<Value>, (Option<&'static str>, Option<&'static str>));
    let rows: [(&Agent, Vec<Case>); 2] = [
        (
            &CLAUDE,
            vec![
                (Some(json!("startup")), started),
                (
                    Some(json!("resume")),
                    switched("session_switch:resume:none"),
                ),
                (Some(json!("clear")), switched("session_switch:new:none")),
                (Some(json!("compact")), (None, None)),
                (None, started),
            ],
        ),
        (
            &CODEX,
            vec![
                (Some(json!("startup")), started),
                (
                    Some(json!("resume")),
                    switched("session_switch:resume:none"),
                ),
                (Some(json!("clear")), switched("session_switch:new:none")),
                (Some(json!("fork")), switched("session_switch:fork:none")),
                (Some(json!("compact")), (None, None)),
                (Some(json!("a-future-source")), started),
                (Some(json!(7)), started),
            ],
        ),
    ];
    for (agent, cases) in rows {
        for (source, (event, context)) in cases {
            let (opts, log) = session_recorder_options();
            let extra = source.clone().map_or(json!({}), |s| json!({"source": s}));
            let c = agent.call(
                "SessionStart",
                &agent.input("SessionStart", dir.path(), extra),
                &opts,
            );
            let case = format!("{} {source:?}", agent.name());
            assert_eq!(c.code, 0, "{case}: {c:?}");
            let events = log.lock().unwrap().events.clone();
            assert_eq!(events, event.into_iter().collect::<Vec<_>>(), "{case}");
            assert_eq!(c.stdout.is_empty(), event.is_none(), "{case}: {c:?}");
            let answer = (!c.stdout.is_empty()).then(|| c.json());
            assert_eq!(
                answer
                    .as_ref()
                    .and_then(|a| a["hookSpecificOutput"]["additionalContext"].as_str()),
                context,
                "{case}: {c:?}"
            );
        }
    }
}

/// A cancelled compaction in each agent's form: Claude Code holds it on `decision: "block"`,
/// Codex only on `continue: false`; a compaction the hooks leave alone gets no answer.
#[test]
fn pre_compact_cancel_holds_the_compaction_in_the_agent_s_form() {
    let dir = workdir();
    let rows = [
        (&CLAUDE, "/decision", json!("block")),
        (
            &CODEX,
            "",
            json!({"continue": false, "stopReason": "Compaction cancelled by a hook"}),
        ),
    ];
    for (agent, pointer, expected) in rows {
        let (opts, _log) = canonical_options();
        let manual = agent.input(
            "PreCompact",
            dir.path(),
            json!({"trigger": "manual", "custom_instructions": "no compact"}),
        );
        let c = agent.call("PreCompact", &manual, &opts);
        assert_eq!(c.code, 0, "{}: {c:?}", agent.name());
        assert_eq!(
            c.json().pointer(pointer),
            Some(&expected),
            "{}",
            agent.name()
        );
        let auto = agent.input(
            "PreCompact",
            dir.path(),
            json!({"trigger": "auto", "custom_instructions": ""}),
        );
        assert_eq!(
            agent.call("PreCompact", &auto, &opts).stdout,
            "",
            "{}",
            agent.name()
        );
    }
}

#[test]
fn the_command_transport_writes_exactly_the_outcome_of_answer() {
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let cases: [(&str, Vec<u8>); 4] = [
        ("PreToolUse", claude_bash(dir.path(), "rm -rf /")),
        ("PreToolUse", claude_bash(dir.path(), "ls")),
        ("PreToolUse", b"{".to_vec()),
        ("NoSuchEvent", claude_bash(dir.path(), "ls")),
    ];
    for protocol in [&Claude as &dyn Protocol, &Codex] {
        for (event, bytes) in &cases {
            let outcome = answer(protocol, event, bytes, &opts);
            let c = call(protocol, event, bytes, &opts);
            let case = format!("{} {event}", protocol.name());
            assert_eq!(c.code, outcome.code, "{case}");
            assert_eq!(c.stdout, outcome.stdout, "{case}");
            assert_eq!(c.stderr, outcome.stderr, "{case}");
        }
    }
}

#[test]
fn bash_command_is_the_string_command_whatever_shape_the_agent_sent() {
    // Every shell tool of both agents, with the command line in every shape an agent sends:
    // the hooks see tool `bash` with the line as the string `command` (a vector kept as
    // `argv`), so the guard blocks each.
    let script = "rm -rf build";
    let argv = json!(["bash", "-lc", script]);
    let shapes = [
        ("command string", json!({"command": script}), None),
        ("command argv", json!({"command": argv}), Some(&argv)),
        ("cmd string", json!({"cmd": script, "workdir": "/p"}), None),
        (
            "cmd argv",
            json!({"cmd": argv, "workdir": "/p"}),
            Some(&argv),
        ),
    ];
    let tools = [
        ("codex", "exec_command"),
        ("codex", "shell"),
        ("codex", "local_shell"),
        ("claude", "Bash"),
    ];
    let dir = workdir();
    for (agent, tool) in tools {
        for (shape, tool_input, kept_argv) in &shapes {
            let (opts, log) = canonical_options();
            let extra = json!({"tool_name": tool, "tool_input": tool_input});
            let c = match agent {
                "codex" => call(
                    &Codex,
                    "PreToolUse",
                    &codex_input("PreToolUse", dir.path(), extra),
                    &opts,
                ),
                _ => call(
                    &Claude,
                    "PreToolUse",
                    &common::input("PreToolUse", dir.path(), extra),
                    &opts,
                ),
            };
            let case = format!("{agent} {tool}, {shape}");
            let seen = log.lock().unwrap();
            let event = &seen.tool_calls[0];
            assert_eq!(event.tool_name, "bash", "{case}");
            assert_eq!(event.input_str("command"), Some(script), "{case}");
            assert_eq!(event.input.get("argv"), *kept_argv, "{case}");
            assert_eq!(c.code, 0, "{case}: {c:?}");
            assert_eq!(
                c.json()["hookSpecificOutput"]["permissionDecision"],
                "deny",
                "{case}: {c:?}"
            );
        }
    }
}

#[test]
fn a_cancelled_compaction_says_what_the_hooks_notified() {
    let dir = workdir();
    let opts = AdapterOptions::with_hooks(|cwd| {
        let mut api = hookwright::HookApi::new("test-hold", cwd);
        api.on(
            |_e: &hookwright::events::SessionBeforeCompactEvent, ctx: &hookwright::HookContext| {
                ctx.ui().notify(
                    "held: remove the marker",
                    hookwright::ui::NotifyKind::Warning,
                );
                Some(hookwright::events::SessionBeforeCompactResult {
                    cancel: Some(true),
                    compaction: None,
                })
            },
        );
        vec![api.finish()]
    });
    let c = call(
        &Claude,
        "PreCompact",
        &common::input("PreCompact", dir.path(), json!({"trigger": "manual"})),
        &opts,
    );
    assert_eq!(
        c.json(),
        json!({"decision": "block", "reason": "Compaction cancelled by a hook: held: remove the marker"})
    );
    let c = call(
        &Codex,
        "PreCompact",
        &common::input("PreCompact", dir.path(), json!({"trigger": "manual"})),
        &opts,
    );
    assert_eq!(
        c.json()["stopReason"],
        "Compaction cancelled by a hook: held: remove the marker"
    );
}

// Input the adapter cannot read, and hooks that fail: a gating event fails closed, saying why.

/// Input that is no JSON object of the event's shape fails closed, saying why (and where).
#[test]
fn unreadable_input_fails_closed_saying_why() {
    let mut oversized = br#"{"tool_name":"Bash","tool_input":{"command":""#.to_vec();
    oversized.resize(MAX_INPUT_BYTES + 1, b'a');
    let depth = 100_000;
    let nested = format!(
        r#"{{"tool_name":"Bash","tool_input":{{"x":{}{}}}}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let cases: [(&[u8], &[&str]); 11] = [
        (
            br#"{"tool_name": "Bash", "tool_input": {"command": "rm -rf /""#,
            &["stdin:1:"],
        ),
        (
            b"{\"tool_name\": \"Bash\",\n  \"tool_input\": {,}}",
            &["stdin:2:"],
        ),
        (b"", &["empty"]),
        (b"   \n", &["empty"]),
        (b"{\"tool_name\": \"B\xffash\"}", &["UTF-8", "stdin:1:17"]),
        (&oversized, &["too large"]),
        (nested.as_bytes(), &["nested deeper"]),
        (b"{\"tool_name\":", &[]),
        (b"\xfe\xff", &[]),
        (b"null", &[]),
        (b"[1, 2]", &[]),
    ];
    for agent in AGENTS {
        let (opts, _log) = canonical_options();
        for (bytes, said) in cases {
            agent.fails_closed_saying("PreToolUse", bytes, &opts, said);
        }
    }
}

/// A JSON object with a field of the wrong type, a required one missing, or another event's
/// name fails closed, naming the field.
#[test]
fn wrong_types_missing_fields_and_another_event_s_name_exit_2() {
    let dir = workdir();
    for agent in AGENTS {
        let (opts, _log) = canonical_options();
        for (sent_as, extra, named) in [
            (
                "PreToolUse",
                json!({"tool_name": 7, "tool_input": {}}),
                "tool_name",
            ),
            (
                "PreToolUse",
                json!({"tool_name": "Bash", "tool_input": "rm -rf /"}),
                "tool_input",
            ),
            (
                "PreToolUse",
                json!({"tool_name": "Bash"}),
                "missing field `tool_input`",
            ),
            (
                "PostToolUse",
                json!({"tool_name": "Bash", "tool_input": {}}),
                "hook_event_name",
            ),
        ] {
            let bytes = agent.input(sent_as, dir.path(), extra);
            agent.fails_closed_saying("PreToolUse", &bytes, &opts, &[named]);
        }
    }
}

/// An event the agent does not send is refused, naming the events it knows, with no control
/// sequence of the name passed on.
#[test]
fn unknown_event_exits_2() {
    let dir = workdir();
    for (agent, event) in [(&CLAUDE, "PermissionRequest"), (&CODEX, "SubagentStart")] {
        let (opts, _log) = canonical_options();
        let unknown = format!("unknown event `{event}`");
        let bytes = agent.input(event, dir.path(), json!({}));
        // `PreToolUse`: the known events are listed.
        agent.fails_closed_saying(event, &bytes, &opts, &[&unknown, "PreToolUse"]);
        let c = agent.fails_closed_saying("pre\ntool\x1b[31m", b"{}", &opts, &[]);
        assert!(
            !c.stderr.contains('\x1b'),
            "no control sequences: {:?}",
            c.stderr
        );
    }
}

/// A hook on a gating event that panics, fails, cannot be loaded, or a command or prompt
/// handler that fails: the call fails closed, saying why.
#[test]
fn a_failing_hook_on_a_gating_event_fails_closed_saying_why() {
    let dir = workdir();
    let unloadable = AdapterOptions {
        hooks: Some(std::sync::Arc::new(|_cwd: &Path| {
            Err("hook.sh is not trusted; run `hooks trust hook.sh`".to_owned())
        })),
        ..AdapterOptions::default()
    };
    for agent in AGENTS {
        let bash = agent.bash(dir.path(), "ls");
        let command = agent.input(
            "UserPromptSubmit",
            dir.path(),
            json!({"prompt": "/boom now"}),
        );
        let prompt = agent.input("UserPromptSubmit", dir.path(), json!({"prompt": "hello"}));
        for (event, bytes, opts, said) in [
            (
                "PreToolUse",
                &bash,
                failing_options(true),
                "blocked: hook test-failing panicked: guard exploded",
            ),
            (
                "PreToolUse",
                &bash,
                failing_options(false),
                "policy service unreachable",
            ),
            (
                "PreToolUse",
                &bash,
                unloadable.clone(),
                "cannot load hooks: hook.sh is not trusted",
            ),
            (
                "UserPromptSubmit",
                &command,
                failing_options(true),
                "command /boom",
            ),
            (
                "UserPromptSubmit",
                &command,
                failing_options(false),
                "command /boom",
            ),
            (
                "UserPromptSubmit",
                &prompt,
                failing_options(true),
                "prompt exploded",
            ),
        ] {
            agent.fails_closed_saying(event, bytes, &opts, &[said]);
        }
    }
}

/// Exit 2 on `Stop` would make Claude Code continue; exit 1 is a failure both agents report
/// and go on from.
#[test]
fn failures_on_observational_events_exit_1() {
    let dir = workdir();
    for agent in AGENTS {
        let stop = agent.input(
            "Stop",
            dir.path(),
            json!({"stop_hook_active": false, "last_assistant_message": null}),
        );
        let c = agent.call("Stop", &stop, &failing_options(true));
        assert_eq!(c.code, 1, "{}: {c:?}", agent.name());
        assert_eq!(c.stdout, "");
        c.assert_one_line_stderr();
        assert!(c.stderr.contains("stop exploded"), "{}", c.stderr);
        let (opts, _log) = canonical_options();
        let c = agent.call("SessionStart", b"not json", &opts);
        assert_eq!(c.code, 1, "{}: {c:?}", agent.name());
        c.assert_one_line_stderr();
    }
}

#[test]
fn unwritable_stdout_fails_closed() {
    let dir = workdir();
    for agent in AGENTS {
        let (opts, _log) = canonical_options();
        let mut err = Vec::new();
        let code = command::run(
            agent.protocol,
            "PreToolUse",
            &agent.bash(dir.path(), "rm -rf /"),
            &mut Broken,
            &mut err,
            &opts,
        );
        assert_eq!(code, 2, "{}", agent.name());
        assert!(
            String::from_utf8(err)
                .unwrap()
                .contains("cannot write the answer")
        );
    }
}

// End to end: the built `hooks-examples` binary (`hooks` with the example bundle linked) as each agent runs it.

mod binary {
    use serde_json::json;

    use super::{AGENTS, CLAUDE, CODEX};
    use crate::common::{hooks, workdir};

    #[test]
    fn pre_tool_use_deny_and_allow() {
        let (dir, home) = (workdir(), workdir());
        let rows = [
            (
                &CLAUDE,
                json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t2"}),
            ),
            (
                &CODEX,
                json!({"tool_name": "apply_patch", "tool_input": {"command": "*** Begin Patch"}}),
            ),
        ];
        for (agent, allowed) in rows {
            let deny = agent.input(
                "PreToolUse",
                dir.path(),
                json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}, "tool_use_id": "t1"}),
            );
            let r = hooks(&[agent.name(), "PreToolUse"], &deny, home.path());
            assert_eq!(r.code, Some(0), "{}: {r:?}", agent.name());
            assert_eq!(
                r.json(),
                json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "rm -rf blocked (no UI)"}})
            );
            let allow = agent.input("PreToolUse", dir.path(), allowed);
            let r = hooks(&[agent.name(), "PreToolUse"], &allow, home.path());
            assert_eq!(
                (r.code, r.stdout.as_str(), r.stderr.as_str()),
                (Some(0), "", ""),
                "{}: never `allow`",
                agent.name()
            );
        }
    }

    #[test]
    fn user_prompt_submit_command() {
        let (dir, home) = (workdir(), workdir());
        for (agent, prompt) in [(&CLAUDE, "/handoff"), (&CODEX, "/handoff x")] {
            let bytes = agent.input("UserPromptSubmit", dir.path(), json!({"prompt": prompt}));
            let r = hooks(&[agent.name(), "UserPromptSubmit"], &bytes, home.path());
            assert_eq!(r.code, Some(0), "{}: {r:?}", agent.name());
            assert_eq!(r.json()["decision"], "block");
        }
    }

    #[test]
    fn malformed_empty_and_oversized_stdin_exit_2_with_one_line() {
        let home = workdir();
        let mut big = br#"{"tool_name":"Bash","tool_input":{"command":""#.to_vec();
        big.resize(17 * 1024 * 1024, b'a');
        for agent in AGENTS {
            for bytes in [
                &b"{\"tool_name\": "[..],
                b"{\"tool_name\"",
                b"",
                b"\xff\xfe",
                &big[..],
            ] {
                let r = hooks(&[agent.name(), "PreToolUse"], bytes, home.path());
                assert_eq!(r.code, Some(2), "{}: {r:?}", agent.name());
                assert_eq!(r.stdout, "");
                r.assert_one_line_stderr();
                assert!(
                    r.stderr
                        .starts_with(&format!("hooks {} PreToolUse: ", agent.name())),
                    "{}",
                    r.stderr
                );
            }
        }
    }

    #[test]
    fn unknown_event_exits_2() {
        let home = workdir();
        for (agent, event) in [(&CLAUDE, "Notification"), (&CODEX, "PostToolUseFailure")] {
            let r = hooks(&[agent.name(), event], b"{}", home.path());
            assert_eq!(r.code, Some(2), "{}: {r:?}", agent.name());
            r.assert_one_line_stderr();
            assert!(
                r.stderr.contains(&format!("unknown event `{event}`")),
                "{}",
                r.stderr
            );
        }
    }
}
