//! The guards' configuration through the binary, as an agent calls it: `hooks claude
//! PreToolUse` and `hooks explain claude PreToolUse`, with `HOME` and `XDG_CONFIG_HOME`
//! in a temporary directory (never the real user's config).

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// A home with a config directory and a project, in a temporary directory.
struct Machine {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
}

impl Machine {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        std::fs::create_dir_all(home.join(".config/hooks")).expect("mkdir");
        std::fs::create_dir_all(project.join(".hooks")).expect("mkdir");
        Machine {
            _dir: dir,
            home,
            project,
        }
    }

    fn user_file(&self) -> PathBuf {
        self.home.join(".config/hooks/guards.toml")
    }

    /// `hooks ARGS` with Claude Code's `Bash` call of `command` on stdin.
    fn run(&self, args: &[&str], command: &str) -> Output {
        let input = serde_json::json!({
            "session_id": "config",
            "transcript_path": self.project.join("transcript.jsonl"),
            "cwd": self.project,
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_use_id": "toolu_config",
        });
        let mut child = Command::new(env!("CARGO_BIN_EXE_hooks"))
            .args(args)
            .current_dir(&self.project)
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env_remove("HOOKS_CONFIG_DIR")
            .env_remove("HOOKS_MODE")
            .env_remove("CLAUDE_PROJECT_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start hooks");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(&serde_json::to_vec(&input).expect("json"))
            .expect("write stdin");
        child.wait_with_output().expect("hooks")
    }

    /// The reason Claude Code is given for denying `command`, or `None` when it may run.
    fn denied(&self, command: &str) -> Option<String> {
        let out = self.run(&["claude", "PreToolUse"], command);
        assert!(out.status.success(), "{out:?}");
        let answer: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
        let output = answer.get("hookSpecificOutput")?;
        (output.get("permissionDecision")? == "deny").then(|| {
            output["permissionDecisionReason"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
    }

    fn explain(&self, command: &str) -> String {
        let out = self.run(&["explain", "claude", "PreToolUse"], command);
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).expect("utf-8")
    }
}

#[test]
fn a_disabled_rule_lets_its_command_through_the_binary_and_explain_names_the_entry() {
    let m = Machine::new();
    assert!(
        m.denied("git branch -D topic")
            .is_some_and(|r| r.contains("[core.git:branch-force-delete]")),
        "no file: every rule on"
    );
    std::fs::write(
        m.user_file(),
        "[rules]\ndisable = [\"core.git:branch-force-delete\"]\n",
    )
    .expect("write");
    assert_eq!(m.denied("git branch -D topic"), None);
    let reason = m.denied("git reset --hard").expect("still blocked");
    assert!(reason.contains("[core.git:reset-hard]"), "{reason}");

    let explained = m.explain("git branch -D topic");
    let said = format!(
        "[core.git:branch-force-delete] would block, allowed by rules.disable at {}:2:12",
        m.user_file().display()
    );
    assert!(explained.contains(&said), "{explained}");
    assert!(explained.contains("destructive_commands"), "{explained}");
    let explained = m.explain("git reset --hard");
    assert!(
        explained.contains("[core.git:reset-hard]") && explained.contains("exit 0"),
        "{explained}"
    );
}

#[test]
fn a_malformed_or_loosening_file_blocks_every_bash_call_naming_its_line_and_column() {
    let m = Machine::new();
    std::fs::write(m.user_file(), "[packs]\ndisable = [\"core.gti\"]\n").expect("write");
    let reason = m.denied("ls").expect("blocked: the file cannot be applied");
    let at = format!("{}:2:12", m.user_file().display());
    assert!(
        reason.contains("[guard:config]")
            && reason.contains(&at)
            && reason.contains("unknown pack `core.gti`"),
        "{reason}"
    );
    std::fs::remove_file(m.user_file()).expect("rm");
    assert_eq!(m.denied("ls"), None, "a removed file is no configuration");

    let project_file = m.project.join(".hooks/guards.toml");
    std::fs::write(&project_file, "[allow]\nprograms = [\"git\"]\n").expect("write");
    let reason = m.denied("ls").expect("blocked: the project file loosens");
    assert!(
        reason.contains(&format!("{}:1:1", project_file.display()))
            && reason.contains("`allow` would loosen the guard"),
        "{reason}"
    );
    std::fs::write(
        &project_file,
        "[rules]\nenable = [\"core.git:reset-hard\"]\n",
    )
    .expect("write");
    assert_eq!(
        m.denied("ls"),
        None,
        "a project file that only tightens is fine"
    );
}
