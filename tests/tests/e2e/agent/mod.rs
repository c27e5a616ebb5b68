//! Runners for the real agent CLIs, each in a scratch [`Sandbox`].

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
use std::time::Duration;

use tempfile::TempDir;

use crate::hooks_bin;
use crate::process::{self, Finished};

/// How long one agent run may take before it is killed.
pub(crate) const RUN_LIMIT: Duration = Duration::from_secs(90);

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
        self.hooks_of(hooks_bin::path(), args, env)
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
        let done = Command::new(hooks_bin::path())
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
