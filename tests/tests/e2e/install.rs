//! The pinned agent CLIs, installed from the npm registry into a cache outside the checkout.
//!
//! Each package goes to `CACHE/<scope>+<name>@<version>/` (`CACHE` is `$HOOKS_E2E_CACHE`, else
//! `$HOME/.cache/hooks-e2e`), installed with `npm install --prefix` into a temporary directory
//! beside it that is renamed into place once the binary inside answers `--version` with the
//! pinned version: a directory under its final name is always a complete install, and an
//! interrupted one leaves only a `.tmp-*` directory that the next install removes.
//!
//! Whether a suite installs, requires or may skip an agent is [`Mode`], from `HOOKS_E2E`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::process;

/// An agent CLI at a pinned version.
#[derive(Debug)]
pub(crate) struct Package {
    /// What the suites call it.
    pub(crate) agent: &'static str,
    /// The npm package.
    pub(crate) name: &'static str,
    /// The pinned version.
    pub(crate) version: &'static str,
    /// The native binary (or the script `runtime` runs), relative to the install prefix.
    pub(crate) binary: &'static str,
    /// Packages installed into the same prefix beside it, as `name@version` (the runtime of a
    /// CLI that npm does not bring itself).
    pub(crate) companions: &'static [&'static str],
    /// The interpreter that runs `binary`, relative to the install prefix; `None` when the
    /// binary runs by itself.
    pub(crate) runtime: Option<&'static str>,
    /// Serialises installs of this package within one test process.
    lock: Mutex<()>,
}

/// Claude Code. npm does not run its postinstall here, so `.bin/claude` is a stub: the native
/// binary of the platform package is used directly.
pub(crate) static CLAUDE: Package = Package {
    agent: "Claude Code",
    name: "@anthropic-ai/claude-code",
    version: "2.1.328",
    binary: "node_modules/@anthropic-ai/claude-code-linux-x64/claude",
    companions: &[],
    runtime: None,
    lock: Mutex::new(()),
};

/// Codex.
pub(crate) static CODEX: Package = Package {
    agent: "Codex",
    name: "@openai/codex",
    version: "0.169.0",
    binary: "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
    companions: &[],
    runtime: None,
    lock: Mutex::new(()),
};

/// pi, a node script (its `#!/usr/bin/env node` line runs it with the `node` on `PATH`).
pub(crate) static PI: Package = Package {
    agent: "pi",
    name: "@mariozechner/pi-coding-agent",
    version: "0.73.1",
    binary: "node_modules/@mariozechner/pi-coding-agent/dist/cli.js",
    companions: &[],
    runtime: None,
    lock: Mutex::new(()),
};

/// oh-my-pi, a bun script, with the bun of the npm package `@oven/bun-linux-x64` (which has
/// no `bin` entry, so it is run by path). 18.2.3 is the newest version that installs: the
/// `@oh-my-pi/*` dependencies of 18.2.9 and 18.3.4 at their own versions are missing from the
/// registry.
pub(crate) static OMP: Package = Package {
    agent: "oh-my-pi",
    name: "@oh-my-pi/pi-coding-agent",
    version: "18.2.3",
    binary: "node_modules/@oh-my-pi/pi-coding-agent/dist/cli.js",
    companions: &["@oven/bun-linux-x64@1.4.5"],
    runtime: Some("node_modules/@oven/bun-linux-x64/bin/bun"),
    lock: Mutex::new(()),
};

/// Gemini CLI. Its binary is the bundled JavaScript entry point (`#!/usr/bin/env node`).
pub(crate) static GEMINI: Package = Package {
    agent: "Gemini CLI",
    name: "@google/gemini-cli",
    version: "0.61.0",
    binary: "node_modules/.bin/gemini",
    lock: Mutex::new(()),
    companions: &[],
    runtime: None,
};

/// Copilot CLI. The native binary of the platform package; on its first run it unpacks its
/// runtime (about 235 MB) under `$XDG_CACHE_HOME/copilot/pkg`, which is why the install's
/// version check points `XDG_CACHE_HOME` into the install ([`Package::xdg_cache_in`]).
pub(crate) static COPILOT: Package = Package {
    agent: "Copilot CLI",
    name: "@github/copilot",
    version: "1.0.102",
    binary: "node_modules/@github/copilot-linux-x64/copilot",
    lock: Mutex::new(()),
    companions: &[],
    runtime: None,
};

/// Qwen Code. Its binary is the bundled JavaScript entry point (`#!/usr/bin/env node`).
pub(crate) static QWEN: Package = Package {
    agent: "Qwen Code",
    name: "@qwen-code/qwen-code",
    version: "0.24.4",
    binary: "node_modules/.bin/qwen",
    lock: Mutex::new(()),
    companions: &[],
    runtime: None,
};

/// Factory Droid. The registry's only `@factory/cli` is 0.225.1, whose platform packages
/// (0.225.1) are missing, so it installs no binary; the platform package itself is there at
/// 0.225.2 and holds the whole native binary, so that is what is installed.
pub(crate) static DROID: Package = Package {
    agent: "Factory Droid",
    name: "@factory/cli-linux-x64",
    version: "0.225.2",
    binary: "node_modules/@factory/cli-linux-x64/bin/droid",
    lock: Mutex::new(()),
    companions: &[],
    runtime: None,
};

/// TypeScript, the compiler that checks the pi / oh-my-pi bridge (`hooks-bin/bridges`), with the
/// node types it is checked against (node 20's, the runtime pi runs it under). Not an agent, but
/// pinned and installed the same way. `bin/tsc` is a node script (`#!/usr/bin/env node`).
pub(crate) static TYPESCRIPT: Package = Package {
    agent: "TypeScript",
    name: "typescript",
    version: "6.0.3",
    binary: "node_modules/typescript/bin/tsc",
    companions: &["@types/node@20.19.43"],
    runtime: None,
    lock: Mutex::new(()),
};

/// What to do when an agent is not in the cache (`HOOKS_E2E`). A scenario never skips: every
/// scenario that needs an agent is `#[ignore]`d, so that a plain `cargo test` counts it as
/// ignored, and runs with `--ignored` (what `.ci/run` does), where a missing agent fails it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Unset or `require`: a missing agent is a failure.
    Require,
    /// `install`: install it, and fail if that fails.
    Install,
}

/// The environment variable that selects the [`Mode`].
pub(crate) const MODE_ENV: &str = "HOOKS_E2E";

impl Mode {
    /// The mode `HOOKS_E2E` selects; any other value is an error naming the valid ones.
    pub(crate) fn from_env() -> Mode {
        match std::env::var(MODE_ENV).as_deref() {
            Err(_) | Ok("" | "require") => Mode::Require,
            Ok("install") => Mode::Install,
            Ok(other) => panic!(
                "{MODE_ENV}={other:?} is not a mode: use `require` (a missing agent fails), \
                 `install` (install missing agents from npm); unset is `require`"
            ),
        }
    }
}

/// The cache directory.
pub(crate) fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("HOOKS_E2E_CACHE").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME").expect("HOME (or HOOKS_E2E_CACHE) must be set");
    PathBuf::from(home).join(".cache").join("hooks-e2e")
}

impl Package {
    /// `@scope+name@version`: the package's directory name in the cache.
    fn dir_name(&self) -> String {
        format!("{}@{}", self.name.replace('/', "+"), self.version)
    }

    /// `name@version`.
    pub(crate) fn spec(&self) -> String {
        format!("{}@{}", self.name, self.version)
    }

    /// The install's own cache directory (`XDG_CACHE_HOME` of its version check), in `cache`.
    pub(crate) fn xdg_cache_in(&self, cache: &Path) -> PathBuf {
        cache.join(self.dir_name()).join("xdg-cache")
    }

    /// The binary, if the package is installed in `cache`.
    pub(crate) fn installed_in(&self, cache: &Path) -> Option<PathBuf> {
        let prefix = cache.join(self.dir_name());
        let binary = prefix.join(self.binary);
        let runtime_there = self.runtime.is_none_or(|r| prefix.join(r).is_file());
        (binary.is_file() && runtime_there).then_some(binary)
    }

    /// The interpreter that runs `binary` (a path [`Package::installed_in`] returned), if the
    /// package has one.
    pub(crate) fn runtime_for(&self, binary: &Path) -> Option<PathBuf> {
        let prefix = binary
            .ancestors()
            .nth(Path::new(self.binary).components().count())?;
        self.runtime.map(|r| prefix.join(r))
    }

    /// Installs the package into `cache` unless it is there; returns the binary.
    pub(crate) fn install_into(&self, cache: &Path) -> Result<PathBuf, String> {
        let _one_at_a_time = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(binary) = self.installed_in(cache) {
            return Ok(binary);
        }
        fs::create_dir_all(cache)
            .map_err(|e| format!("cannot create the cache {}: {e}", cache.display()))?;
        remove_stale_temporaries(cache, &self.dir_name());
        let tmp = cache.join(format!(".tmp-{}-{}", self.dir_name(), std::process::id()));
        let _ = fs::remove_dir_all(&tmp);
        let result = self.install_at(&tmp);
        if let Err(e) = result {
            let _ = fs::remove_dir_all(&tmp);
            return Err(e);
        }
        let dest = cache.join(self.dir_name());
        if let Err(e) = fs::rename(&tmp, &dest) {
            let _ = fs::remove_dir_all(&tmp);
            // Another process may have finished the same install first.
            if self.installed_in(cache).is_none() {
                return Err(format!(
                    "cannot move the install to {}: {e}",
                    dest.display()
                ));
            }
        }
        self.installed_in(cache)
            .ok_or_else(|| format!("{} has no {}", dest.display(), self.binary))
    }

    fn install_at(&self, prefix: &Path) -> Result<(), String> {
        fs::create_dir_all(prefix)
            .map_err(|e| format!("cannot create {}: {e}", prefix.display()))?;
        let started = Instant::now();
        let mut npm = Command::new("npm");
        npm.args(["install", "--no-audit", "--no-fund", "--ignore-scripts"])
            .arg("--prefix")
            .arg(prefix)
            .arg(self.spec())
            .args(self.companions);
        let npm_done = process::run_bounded(npm, prefix, "npm", Duration::from_secs(300));
        if !npm_done.success() {
            return Err(format!(
                "`npm install {}` failed ({:?}):\n{}\n{}",
                self.spec(),
                npm_done.status,
                npm_done.stdout,
                npm_done.stderr
            ));
        }
        let binary = prefix.join(self.binary);
        let mut version = match self.runtime {
            Some(runtime) => {
                let mut cmd = Command::new(prefix.join(runtime));
                cmd.arg(&binary);
                cmd
            }
            None => Command::new(&binary),
        };
        // HOME is the prefix, so that a runtime's caches (bun's) stay out of the user's home;
        // an agent that unpacks itself on its first run (Copilot CLI) does so inside the
        // install, not in the user's cache.
        let version = version
            .arg("--version")
            .env("HOME", prefix)
            .env("XDG_CACHE_HOME", prefix.join("xdg-cache"))
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run {} --version: {e}", binary.display()))?;
        // pi prints its version on stderr.
        let printed =
            String::from_utf8_lossy(&version.stdout) + String::from_utf8_lossy(&version.stderr);
        if !printed.contains(self.version) {
            return Err(format!(
                "{} --version printed {printed:?}, not version {}",
                binary.display(),
                self.version
            ));
        }
        for log in ["npm.stdout", "npm.stderr"] {
            let _ = fs::remove_file(prefix.join(log));
        }
        crate::report(&format!(
            "installed {} in {:.1} s",
            self.spec(),
            started.elapsed().as_secs_f64()
        ));
        Ok(())
    }

    /// The binary for a suite, by [`Mode`]: the one in the cache, or (`install`) the one
    /// installed now.
    ///
    /// # Panics
    ///
    /// When the agent is missing and not to be installed, or the install fails.
    pub(crate) fn for_suite(&self) -> PathBuf {
        let cache = cache_dir();
        match Mode::from_env() {
            Mode::Install => self
                .install_into(&cache)
                .unwrap_or_else(|e| panic!("installing {} failed: {e}", self.spec())),
            Mode::Require => self.installed_in(&cache).unwrap_or_else(|| {
                panic!(
                    "{} {} is not installed in {} ({MODE_ENV}=install installs it)",
                    self.agent,
                    self.version,
                    cache.display()
                )
            }),
        }
    }
}

/// Removes `.tmp-NAME-PID` directories of installs that did not finish (their process is
/// gone).
fn remove_stale_temporaries(cache: &Path, name: &str) {
    let prefix = format!(".tmp-{name}-");
    for entry in fs::read_dir(cache).into_iter().flatten().flatten() {
        let file_name = entry.file_name();
        let Some(pid) = file_name.to_str().and_then(|n| n.strip_prefix(&prefix)) else {
            continue;
        };
        if !Path::new("/proc").join(pid).exists() {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}
