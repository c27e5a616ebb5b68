//! Runners for the real agent CLIs, each in a scratch [`Sandbox`]: one driver per agent, and
//! the [`Agent`] trait the scenarios that several agents share are written against.

pub(crate) mod claude;
pub(crate) mod codex;
pub(crate) mod copilot;
pub(crate) mod droid;
pub(crate) mod gemini;
pub(crate) mod pi;
pub(crate) mod qwen;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use serde_json::Value;
use tempfile::TempDir;

use crate::fixtures::Recorder;
use crate::host_binary;
use crate::model::ModelServer;
use crate::process::{self, Finished};

/// How long one agent run may take before it is killed.
pub(crate) const RUN_LIMIT: Duration = Duration::from_secs(90);

/// One agent CLI as a scenario drives it: how it is pointed at the scripted model server, how
/// its hooks are installed, how a prompt runs, and what a run left to read ([`AgentRun`]).
pub(crate) trait Agent: Sized {
    /// Its name for `hooks install NAME` and `hooks NAME EVENT`.
    const NAME: &'static str;
    /// What one run left.
    type Run: AgentRun;

    /// The installed agent (see [`crate::install::Package::for_suite`]).
    fn for_suite() -> Self;

    /// Writes what an offline run against `server` needs into the sandbox (what is not given
    /// on the command line or in the environment of each run).
    fn configure(sandbox: &Sandbox, server: &ModelServer);

    /// `hooks install NAME` at the scope its scenarios use (the project's, Codex's user scope).
    fn install_hooks(&self, sandbox: &Sandbox) -> Finished;

    /// The hook settings file [`Agent::install_hooks`] writes.
    fn installed_hooks(sandbox: &Sandbox) -> PathBuf;

    /// One run of `prompt` against `server` (configured by [`Agent::configure`]), in a
    /// trusted folder where the agent asks, with no other arguments.
    fn run(&self, sandbox: &Sandbox, server: &ModelServer, prompt: &str) -> Self::Run;
}

/// What one run of an [`Agent`] left.
pub(crate) trait AgentRun {
    /// The process's exit and output.
    fn finished(&self) -> &Finished;

    /// The final answer the agent printed, if any.
    fn answer(&self) -> Option<String>;

    /// A summary for assertion messages.
    fn evidence(&self) -> String;
}

/// A run of an agent that reports its hooks' failures where a scenario can read them.
pub(crate) trait HookFailures {
    /// Where the agent said that a hook failed (or complained about one), one line each: empty
    /// when none did.
    fn hook_failures(&self) -> Vec<String>;
}

/// An agent whose own hook protocol the recorder scenarios pin: a [`Recorder`] (or another
/// command) as its hook, no hooks adapter.
pub(crate) trait Recorded: Agent {
    /// The event before a tool call, which can block it.
    const GATE: &'static str;

    /// The user's hook settings file.
    fn user_hooks(sandbox: &Sandbox) -> PathBuf;

    /// The project's hook settings file (the recorder's, beside what `hooks install` writes).
    fn project_hooks(sandbox: &Sandbox) -> PathBuf;

    /// Adds `handler` (in the agent's own form) to `event` in the hook settings file `path`,
    /// creating it when missing.
    fn add_hook(path: &Path, event: &str, handler: Value);

    /// The handler that runs `recorder` for `event`, in the agent's own form.
    fn recorder_handler(recorder: &Recorder, event: &str) -> Value;

    /// A run of a recorder scenario, whose hooks are the user's: [`Agent::run`] unless the
    /// agent runs user hooks in a folder nobody trusted (then untrusted, as a user's first run
    /// in a new folder).
    fn run_recorded(&self, sandbox: &Sandbox, server: &ModelServer, prompt: &str) -> Self::Run {
        self.run(sandbox, server, prompt)
    }

    /// Installs `recorder` on `events` in the hook settings file `path`.
    fn record(path: &Path, recorder: &Recorder, events: &[&str]) {
        for event in events {
            Self::add_hook(path, event, Self::recorder_handler(recorder, event));
        }
    }
}

/// Asserts that no hook failed in `run`.
pub(crate) fn assert_no_hook_failure(run: &(impl AgentRun + HookFailures)) {
    let failures = run.hook_failures();
    assert!(
        failures.is_empty(),
        "hook failures: {failures:#?}\n{}",
        run.evidence()
    );
}

/// The agent in a fresh sandbox named `name`, configured for `server`.
pub(crate) fn setup<A: Agent>(name: &str, server: &ModelServer) -> (A, Sandbox) {
    let agent = A::for_suite();
    let sandbox = Sandbox::new(name);
    A::configure(&sandbox, server);
    (agent, sandbox)
}

/// [`setup`] with the agent's hooks installed ([`Agent::install_hooks`]).
pub(crate) fn installed<A: Agent>(name: &str, server: &ModelServer) -> (A, Sandbox) {
    let (agent, sandbox) = setup::<A>(name, server);
    agent.install_hooks(&sandbox);
    (agent, sandbox)
}

/// Whether a run trusts the project folder (Gemini CLI and Copilot CLI ask).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Folder {
    /// Trusted for this run (the project's hooks load).
    Trusted,
    /// Left to the agent's folder trust, as on a user's first run in a new folder.
    Untrusted,
}

/// `PATH` with the directories of `binaries` first (for `hooks install` and `hooks doctor`,
/// which ask the agents on `PATH` for their versions).
pub(crate) fn path_with(binaries: &[&Path]) -> PathBuf {
    let dirs = binaries
        .iter()
        .map(|b| b.parent().expect("the binary's directory").to_path_buf());
    let rest =
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).collect::<Vec<_>>();
    PathBuf::from(std::env::join_paths(dirs.chain(rest)).expect("PATH"))
}

/// A scratch home and project for one scenario, removed afterwards (kept, and its path
/// printed, when `HOOKS_E2E_KEEP` is set).
pub(crate) struct Sandbox {
    dir: Option<TempDir>,
    root: PathBuf,
    /// `$HOME` of the agent.
    pub(crate) home: PathBuf,
    /// The project the agent works in.
    pub(crate) project: PathBuf,
}

impl Sandbox {
    /// A fresh sandbox; `name` is part of its directory name.
    pub(crate) fn new(name: &str) -> Sandbox {
        let dir = tempfile::Builder::new()
            .prefix(&format!("e2e-{name}-"))
            .tempdir()
            .expect("scratch directory");
        let root = dir.path().to_path_buf();
        let home = root.join("home");
        let project = root.join("project");
        fs::create_dir_all(&home).expect("scratch home");
        fs::create_dir_all(&project).expect("scratch project");
        Sandbox {
            dir: Some(dir),
            root,
            home,
            project,
        }
    }

    /// The sandbox's own directory (logs go here).
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// Writes `contents` to `rel` under the project, creating directories; returns the path.
    pub(crate) fn write(&self, rel: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.project.join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("create parent directory");
        }
        fs::write(&path, contents).expect("write scenario file");
        path
    }

    /// `NAME/keep.txt` ("precious") for each victim directory `NAME` in the project, which a
    /// blocked `rm -rf NAME` must leave; returns their paths.
    pub(crate) fn victims(&self, names: &[&str]) -> Vec<PathBuf> {
        names
            .iter()
            .map(|n| self.write(&format!("{n}/keep.txt"), "precious\n"))
            .collect()
    }

    /// Runs the `hooks` binary with `args` in the project, with this sandbox's `HOME` and
    /// `env`; panics unless it succeeds.
    pub(crate) fn hooks(&self, args: &[&str], env: &[(&str, &Path)]) -> Finished {
        self.hooks_of(host_binary::path(), args, env)
    }

    /// [`Sandbox::hooks`] with the `hooks` binary `binary` (an author's own: `hooks-e2e`).
    pub(crate) fn hooks_of(&self, binary: &Path, args: &[&str], env: &[(&str, &Path)]) -> Finished {
        let mut cmd = Command::new(binary);
        cmd.args(args)
            .current_dir(&self.project)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            // The agents' own temp dir (see `base_command`): `hooks serve`'s runtime directory,
            // so its lock file and port, are the sandbox's.
            .env("TMPDIR", self.root());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let done = process::run_bounded(cmd, &self.root, "hooks", Duration::from_secs(30));
        assert!(
            done.success(),
            "hooks {args:?} failed ({:?}):\n{}\n{}",
            done.status,
            done.stdout,
            done.stderr
        );
        done
    }
}

impl Sandbox {
    /// `hooks serve ARGS` as the session's hooks see it (`TMPDIR` is the sandbox's, so the
    /// lock file and the socket are there): its stdout, whatever its exit status.
    pub(crate) fn serve(&self, args: &[&str]) -> String {
        let mut all = vec!["serve"];
        all.extend_from_slice(args);
        let done = Command::new(host_binary::path())
            .args(&all)
            .current_dir(&self.project)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("TMPDIR", self.root())
            .output()
            .expect("hooks serve runs");
        String::from_utf8_lossy(&done.stdout).into_owned()
    }
}

/// Stops the sandbox's `hooks serve` when the scenario ends, however it ends.
pub(crate) struct StopServer<'a>(pub(crate) &'a Sandbox);

impl Drop for StopServer<'_> {
    fn drop(&mut self) {
        let _ = self.0.serve(&["--stop"]);
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if std::env::var_os("HOOKS_E2E_KEEP").is_some()
            && let Some(dir) = self.dir.take()
        {
            crate::report(&format!("kept {}", dir.keep().display()));
        }
    }
}

/// A number for the next agent run of this test process: it names the run's files in its
/// sandbox.
pub(crate) fn next_run() -> u32 {
    static RUNS: AtomicU32 = AtomicU32::new(0);
    RUNS.fetch_add(1, Ordering::Relaxed)
}

/// Runs `cmd`, an agent's run against `server`, for at most `limit`, its output kept in the
/// sandbox as `LABEL.stdout|stderr` and the server's request log beside it; reports the
/// processes it left running (which are killed).
pub(crate) fn run_against(
    cmd: Command,
    sandbox: &Sandbox,
    server: &ModelServer,
    label: &str,
    limit: Duration,
) -> Finished {
    let finished = process::run_bounded(cmd, sandbox.root(), label, limit);
    server.save_log(sandbox.root());
    if !finished.leftovers.is_empty() {
        crate::report(&format!(
            "{label} left processes running, killed: {:?}",
            finished.leftovers
        ));
    }
    finished
}

/// The JSON values of `text`, one a line (lines that are not JSON left out).
pub(crate) fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The environment every agent run starts from: `PATH`, a locale, and the sandbox's `HOME`.
pub(crate) fn base_command(binary: &Path, sandbox: &Sandbox) -> Command {
    let mut cmd = Command::new(binary);
    cmd.current_dir(&sandbox.project)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &sandbox.home)
        .env("LANG", "C.UTF-8")
        .env("TERM", "dumb")
        .env("TMPDIR", sandbox.root());
    cmd
}
