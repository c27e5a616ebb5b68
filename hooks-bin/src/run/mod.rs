//! `hooks run SCRIPT.jsonl`: drives one agent session through the loaded hooks, without a model.
//!
//! The script is parsed and checked whole before anything runs ([`script`]); the session is
//! then driven action by action ([`driver`]: prompts and tool calls in an agent run,
//! [`agent`], the session actions between runs, [`session`]) with the real tools
//! ([`crate::run::tools`]), persisted with [`hookwright::JsonlSessionStore`] and shown as a
//! transcript ([`transcript`]). What the host functions given to the runner share is `host`'s.
//!
//! Exit codes: `0` every action ran (blocked tools and cancelled session changes are normal
//! outcomes); `1` an action could not be carried out (a session file could not be written, an
//! entry to branch from does not exist, ...); `2` the command line or the script is invalid,
//! or the session directory cannot be used (nothing ran); `130` interrupted by Ctrl-C (see [`interrupt`]: a first Ctrl-C while a tool
//! runs only cancels that call and does not change the status).

pub mod agent;
mod agent_run;
pub mod driver;
mod host;
pub mod interrupt;
mod recorded;
pub mod script;
pub mod session;
mod session_dir;
mod tool_call;
pub mod tools;
pub mod transcript;
pub mod ui;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use hookwright::{HookRunner, JsonlSessionStore, SessionManager};

use crate::call::load;
use crate::run::tools::Workspace;
use crate::run::ui::HostUi;
use crate::trust::TrustMode;
use driver::Driver;
use host::Shared;
use script::ScriptError;
use session::CurrentSession;
use transcript::{StartInfo, Transcript};

/// The session directory used when `--session-dir` is not given, relative to `--cwd`.
pub const DEFAULT_SESSION_DIR: &str = ".hooks/sessions";

/// Options of `hooks run`.
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// The session script: one JSON action per line (see `hooks run --help`).
    pub script: PathBuf,
    /// Where session files are written [default: .hooks/sessions under the working directory, git-ignored].
    #[arg(long, value_name = "DIR")]
    pub session_dir: Option<PathBuf>,
    /// The working directory of the session; tools cannot touch files outside it
    /// [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Print one JSON object per event and result instead of the readable transcript.
    #[arg(long)]
    pub json: bool,
    /// Never prompt: hooks see `has_ui() == false` and the no-op answers.
    #[arg(long)]
    pub no_ui: bool,
    /// Also load this hook (a compiled-in hook id or a hook file); repeatable.
    #[arg(long = "hook", value_name = "PATH")]
    pub hooks: Vec<String>,
}

/// The long help of `hooks run`.
pub const RUN_HELP: &str = "\
Script actions, one JSON value per line (blank lines and lines starting with # are skipped):
  {\"prompt\": \"text\", \"reply\": \"...\"}     a user prompt: one agent run (or just \"text\")
  {\"tool\": \"bash\", \"input\": {...}}        a tool call in the current run
  {\"command\": \"/handoff some args\"}        a slash command (a prompt \"/name ...\" runs it too)
  {\"compact\": {\"summary\": \"...\"}}         a compaction
  {\"switch\": {\"reason\": \"new\"}}           a session switch (new, resume + \"session\", fork)
  {\"branch\": {\"entry\": -2}}               branch into a new session file before an entry
  {\"tree\": {\"target\": -2, \"summarize\": true}}  move the session's leaf back to an entry
Entries are named by id or by position in the session file (0 first, -1 last, all branches).
After a tree navigation, later entries continue from the target and the model sees only the
current branch.
Tools: bash {command, timeout?}, read {path, offset?, limit?}, write {path, content},
  edit {path, oldText, newText}, ls {path?, limit?}, grep {pattern, path?, glob?, ignoreCase?,
  literal?, context?, limit?}, find {pattern, path?, limit?}; bash starts in --cwd, the
  file tools are confined to it.

Ctrl-C cancels the running tool call (the script goes on) or, when none runs, stops the script
after the current action; a second Ctrl-C exits at once. The session file stays intact.

Exit status: 0 the script ran; 1 an action could not be carried out; 2 invalid script or options,
  or an unusable session directory; 130 interrupted by Ctrl-C.";

/// Runs `hooks run`, checking project hook files as `trust` says.
#[must_use]
pub fn run(args: &RunArgs, trust: &TrustMode) -> ExitCode {
    match prepare(args, trust) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("hooks run: {message}");
            ExitCode::from(2)
        }
    }
}

fn prepare(args: &RunArgs, trust: &TrustMode) -> Result<ExitCode, String> {
    let cwd = match &args.cwd {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().map_err(|e| format!("no current directory: {e}"))?,
    };
    let workspace = Workspace::new(&cwd)
        .map_err(|e| format!("cannot use {} as the working directory: {e}", cwd.display()))?;
    let cwd = workspace.root().to_path_buf();
    let loaded = load::load(&cwd, &args.hooks, trust);
    let commands: Vec<String> = loaded
        .hooks
        .iter()
        .flat_map(|h| h.commands.keys().cloned())
        .collect();
    let script = script::load(&args.script, &commands).map_err(|errors| errors_text(&errors))?;

    let session_dir = session_dir::prepare(args.session_dir.as_deref(), &cwd)?;
    let store = JsonlSessionStore::create(&session_dir, &cwd, None).map_err(|e| e.to_string())?;

    let interactive =
        !args.no_ui && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let color = std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let script_name = script.path.file_name().map_or_else(
        || script.path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let out = Arc::new(Transcript::new(
        Box::new(std::io::stdout()),
        args.json,
        color,
        script_name,
        &cwd,
    ));

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let outcome = runtime.block_on(async {
        let session = Arc::new(CurrentSession::new(store));
        let runner = Arc::new(HookRunner::new(
            loaded.hooks,
            &cwd,
            Arc::clone(&session) as Arc<dyn SessionManager>,
        ));
        out.start(&StartInfo {
            script: args.script.display().to_string(),
            cwd: cwd.display().to_string(),
            session_dir: session_dir.display().to_string(),
            session_file: session.file_string().unwrap_or_default(),
            session_id: session.session_id(),
            hooks: runner
                .hook_paths()
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
            has_ui: interactive,
        });
        for error in &loaded.errors {
            out.load_error(&error.path, &error.error);
        }
        for warning in &loaded.warnings {
            out.warning(warning);
        }
        let shared = Shared::new(
            Arc::clone(&session),
            Arc::clone(&out),
            session_dir,
            cwd.clone(),
        );
        let interrupts = Arc::clone(&shared.interrupts);
        if let Err(e) = interrupt::listen(Arc::clone(&interrupts), Arc::clone(&out)) {
            out.warning(&format!("Ctrl-C cannot be handled: {e}"));
        }
        let ui = Arc::new(HostUi::new(interactive, Arc::clone(&out)));
        let mut driver = Driver::new(runner, shared, ui, Arc::new(workspace));
        // A second Ctrl-C abandons the action in progress: dropping the driver's future drops
        // any running tool, whose process group is then killed.
        let outcome = tokio::select! {
            biased;
            () = interrupts.exit_requested() => None,
            failed = driver.drive(&script) => Some(failed),
        };
        let interrupted = interrupts.stop_requested();
        if outcome.is_none() {
            let file = session.file_string().unwrap_or_default();
            out.interrupt(
                "exit",
                &format!("Ctrl-C again: exiting now; session file {file}"),
            );
        }
        (outcome, interrupted)
    });
    // Do not wait for a prompt thread still blocked on the terminal.
    runtime.shutdown_background();
    Ok(match outcome {
        (None, _) | (Some(_), true) => ExitCode::from(interrupt::EXIT_INTERRUPTED),
        (Some(failed), false) if failed > 0 => ExitCode::FAILURE,
        (Some(_), false) => ExitCode::SUCCESS,
    })
}

/// Prints each error on its own `FILE:LINE:COLUMN: message` line (stderr) and returns the
/// summary.
fn errors_text(errors: &[ScriptError]) -> String {
    for e in errors {
        eprintln!("{e}");
    }
    let n = errors.len();
    let s = if n == 1 { "" } else { "s" };
    format!("invalid script ({n} error{s}); nothing was run")
}
