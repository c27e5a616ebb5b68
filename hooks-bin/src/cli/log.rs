//! `hooks log`: what the decision log recorded ([`crate::call::audit`]), summarized per agent,
//! event and tool (calls) and per handler (runs): how many, how many blocked, rewrote, would
//! have blocked or rewritten in audit mode, failed, and how long they took; filtered
//! (`--since`, `--agent`, `--session`, `--denied`) and followed (`-f`), as a table or as JSON.
//!
//! The log is the file the decision log is written to (`[log] path` in `config.toml`, else
//! `<state dir>/hooks/decisions.jsonl`), or `--file`; its rotated files (`PATH.N` .. `PATH.1`)
//! are read first, oldest first. A line that is not a decision log line is reported with its
//! file and line number and left out; the summary goes on.
//!
//! What a call did is read from its handlers' results, in our terms (the same for every
//! agent): a handler blocked when its result has `block: true` or `cancel: true`, rewrote
//! when it has `content`, `details`, `messages`, `text` or `images` (a tool's new output, the
//! messages the model is sent, a prompt's new text), failed when its outcome is `error`. A
//! call blocked (rewrote) when one of its handlers did; in audit mode it counts as would
//! have, since the agent got no opinion.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead as _, BufReader, Read as _, Seek as _, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::call::audit::Settings;
use crate::call::audit::config::{CONFIG_FILE, ConfigFile};

/// The help after `hooks log --help`.
pub const LOG_HELP: &str = "\
The log is the decision log's file: `[log] path` in config.toml, else \
<state dir>/hooks/decisions.jsonl (XDG_STATE_HOME, else ~/.local/state), with its rotated \
files PATH.N .. PATH.1 read first; --file names another. It is written in audit mode \
(HOOKS_MODE=audit, or mode = \"audit\" in config.toml) and with [log] enabled = true.

Per agent, event and tool (calls) and per handler (runs): how many; how many blocked (a \
handler's result has block or cancel true), rewrote (it has content, details, messages, text \
or images), would have blocked or rewritten (the same, in audit mode: the agent got no \
opinion), failed (a handler's error); the total and the longest time. --json prints the same as \
one JSON object: {log, files, lines, unreadable: [{file, line, error}], calls: [{agent, event, \
tool, calls, blocks, rewrites, would_block, would_rewrite, errors, total_us, max_us}], \
handlers: [{agent, event, tool, hook, handler, runs, blocks, rewrites, would_block, \
would_rewrite, errors, total_us, max_us}]}.

-f prints the summary, then each new call as the log gets it (a row, or with --json one \
{\"entry\": {...}} line each), like tail -f, until interrupted; it follows the file across \
rotation and waits for a log that is not there yet.

A line that is not a decision log line is reported on stderr with its file and line number \
and left out of the summary.

Exit status: 0 the summary was printed; 1 no log where it looked (it says where), a log that \
cannot be read, or an invalid config.toml; 2 invalid usage (a --since that is neither a \
duration nor an RFC 3339 time).

Examples:
  hooks log                          # everything the log holds
  hooks log --since 1h --denied      # what was blocked (or would have been) in the last hour
  hooks log --agent claude --json    # Claude Code's calls, as JSON
  hooks log -f                       # follow it";

/// The options of `hooks log`.
#[derive(Debug, Clone, clap::Args)]
pub struct LogArgs {
    /// Only the calls since WHEN: a duration back from now (`90s`, `15m`, `1h`, `2d`) or an
    /// RFC 3339 time (`2026-12-01T14:00:00Z`).
    #[arg(long, value_name = "WHEN", value_parser = parse_since)]
    pub since: Option<SystemTime>,
    /// Only the calls of this agent (`claude`, `codex`, ..., `stdio` for `hooks serve --stdio`).
    #[arg(long, value_name = "AGENT")]
    pub agent: Option<String>,
    /// Only the calls of this session id.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Only the calls that were blocked, or would have been in audit mode.
    #[arg(long)]
    pub denied: bool,
    /// Follow the log: print each new call as it is written, until interrupted.
    #[arg(short = 'f', long)]
    pub follow: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// The log file to read, instead of the decision log's configured place.
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
}

/// `--since WHEN`: a duration back from now, or an RFC 3339 time.
fn parse_since(text: &str) -> Result<SystemTime, String> {
    if let Ok(back) = humantime::parse_duration(text) {
        return SystemTime::now()
            .checked_sub(back)
            .ok_or_else(|| format!("{text} goes back before 1970"));
    }
    humantime::parse_rfc3339_weak(text).map_err(|_| {
        format!(
            "`{text}` is neither a duration (90s, 15m, 1h, 2d) nor an RFC 3339 time \
             (2026-12-01T14:00:00Z)"
        )
    })
}

/// One line of the decision log, as read (the fields the summary uses).
#[derive(Debug, Clone, Deserialize)]
struct Line {
    time: String,
    agent: String,
    session: Option<String>,
    event: Event,
    tool: Option<String>,
    mode: String,
    handlers: Vec<HandlerLine>,
    duration_us: u64,
}

#[derive(Debug, Clone, Deserialize)]
struct Event {
    agent: String,
}

#[derive(Debug, Clone, Deserialize)]
struct HandlerLine {
    hook: String,
    handler: String,
    outcome: String,
    result: Option<Value>,
    micros: u64,
}

impl HandlerLine {
    fn blocked(&self) -> bool {
        self.result.as_ref().is_some_and(|r| {
            r.get("block") == Some(&Value::Bool(true))
                || r.get("cancel") == Some(&Value::Bool(true))
        })
    }

    fn rewrote(&self) -> bool {
        self.result.as_ref().is_some_and(|r| {
            ["content", "details", "messages", "text", "images"]
                .iter()
                .any(|k| r.get(k).is_some_and(|v| !v.is_null()))
        })
    }

    fn failed(&self) -> bool {
        self.outcome == "error"
    }
}

impl Line {
    fn audit(&self) -> bool {
        self.mode == "audit"
    }

    fn blocked(&self) -> bool {
        self.handlers.iter().any(HandlerLine::blocked)
    }

    fn rewrote(&self) -> bool {
        self.handlers.iter().any(HandlerLine::rewrote)
    }

    fn tool(&self) -> &str {
        self.tool.as_deref().unwrap_or("-")
    }

    /// What the call did, in a word: `blocked`, `would block`, `rewrote`, `would rewrite`,
    /// `failed` or `-`.
    fn verdict(&self) -> &'static str {
        match (self.blocked(), self.rewrote(), self.audit()) {
            (true, _, false) => "blocked",
            (true, _, true) => "would block",
            (false, true, false) => "rewrote",
            (false, true, true) => "would rewrite",
            _ if self.handlers.iter().any(HandlerLine::failed) => "failed",
            _ => "-",
        }
    }
}

/// What is kept of a call and of a line that cannot be read.
#[derive(Debug, Clone, Default)]
struct Filter {
    since: Option<SystemTime>,
    agent: Option<String>,
    session: Option<String>,
    denied: bool,
}

impl Filter {
    fn keeps(&self, line: &Line) -> bool {
        let recent = self.since.is_none_or(|since| {
            humantime::parse_rfc3339_weak(&line.time).is_ok_and(|time| time >= since)
        });
        recent
            && self.agent.as_ref().is_none_or(|a| *a == line.agent)
            && self
                .session
                .as_ref()
                .is_none_or(|s| line.session.as_ref() == Some(s))
            && (!self.denied || line.blocked())
    }
}

/// The counts of one row.
#[derive(Debug, Clone, Default, Serialize)]
struct Counts {
    blocks: u64,
    rewrites: u64,
    would_block: u64,
    would_rewrite: u64,
    errors: u64,
    total_us: u64,
    max_us: u64,
}

impl Counts {
    fn add(&mut self, (blocked, rewrote, failed, audit): (bool, bool, bool, bool), us: u64) {
        let (blocks, rewrites) = if audit {
            (&mut self.would_block, &mut self.would_rewrite)
        } else {
            (&mut self.blocks, &mut self.rewrites)
        };
        *blocks += u64::from(blocked);
        *rewrites += u64::from(rewrote);
        self.errors += u64::from(failed);
        self.total_us = self.total_us.saturating_add(us);
        self.max_us = self.max_us.max(us);
    }
}

/// A row of the calls: one agent, event and tool.
#[derive(Debug, Clone, Serialize)]
struct CallRow {
    agent: String,
    event: String,
    tool: String,
    calls: u64,
    #[serde(flatten)]
    counts: Counts,
}

/// A row of the handlers: one handler, on one agent, event and tool.
#[derive(Debug, Clone, Serialize)]
struct HandlerRow {
    agent: String,
    event: String,
    tool: String,
    hook: String,
    handler: String,
    runs: u64,
    #[serde(flatten)]
    counts: Counts,
}

/// A line that is not a decision log line.
#[derive(Debug, Clone, Serialize)]
struct Unreadable {
    file: PathBuf,
    line: u64,
    error: String,
}

/// A row's key: agent, event, tool.
type CallKey = (String, String, String);

/// A handler row's key: agent, event, tool, hook, handler.
type HandlerKey = (String, String, String, String, String);

/// The summary of the lines read.
#[derive(Debug, Default)]
struct Summary {
    files: Vec<PathBuf>,
    lines: u64,
    unreadable: Vec<Unreadable>,
    calls: BTreeMap<CallKey, (u64, Counts)>,
    handlers: BTreeMap<HandlerKey, (u64, Counts)>,
}

impl Summary {
    fn add(&mut self, line: &Line) {
        let key = (
            line.agent.clone(),
            line.event.agent.clone(),
            line.tool().to_owned(),
        );
        let failed = line.handlers.iter().any(HandlerLine::failed);
        let call = self.calls.entry(key.clone()).or_default();
        call.0 += 1;
        call.1.add(
            (line.blocked(), line.rewrote(), failed, line.audit()),
            line.duration_us,
        );
        for run in &line.handlers {
            let (agent, event, tool) = key.clone();
            let row = self
                .handlers
                .entry((agent, event, tool, run.hook.clone(), run.handler.clone()))
                .or_default();
            row.0 += 1;
            row.1.add(
                (run.blocked(), run.rewrote(), run.failed(), line.audit()),
                run.micros,
            );
        }
    }

    /// Reads `text` (the lines of `file` from line `first`), adding the kept lines; a line
    /// that cannot be read is reported on `err` and kept in [`Summary::unreadable`].
    fn read(&mut self, file: &Path, first: u64, text: &str, filter: &Filter, err: &mut dyn Write) {
        for (n, raw) in (first..).zip(text.lines()) {
            if raw.trim().is_empty() {
                continue;
            }
            self.lines += 1;
            match serde_json::from_str::<Line>(raw) {
                Ok(line) if filter.keeps(&line) => self.add(&line),
                Ok(_) => {}
                Err(e) => self.unreadable(file, n, &e.to_string(), err),
            }
        }
    }

    fn unreadable(&mut self, file: &Path, line: u64, error: &str, err: &mut dyn Write) {
        let _ = writeln!(
            err,
            "hooks log: {}:{line}: not a decision log line ({error}); left out",
            file.display()
        );
        self.unreadable.push(Unreadable {
            file: file.to_owned(),
            line,
            error: error.to_owned(),
        });
    }

    fn call_rows(&self) -> Vec<CallRow> {
        self.calls
            .iter()
            .map(|((agent, event, tool), (calls, counts))| CallRow {
                agent: agent.clone(),
                event: event.clone(),
                tool: tool.clone(),
                calls: *calls,
                counts: counts.clone(),
            })
            .collect()
    }

    fn handler_rows(&self) -> Vec<HandlerRow> {
        self.handlers
            .iter()
            .map(
                |((agent, event, tool, hook, handler), (runs, counts))| HandlerRow {
                    agent: agent.clone(),
                    event: event.clone(),
                    tool: tool.clone(),
                    hook: hook.clone(),
                    handler: handler.clone(),
                    runs: *runs,
                    counts: counts.clone(),
                },
            )
            .collect()
    }

    fn json(&self, log: &Path) -> Value {
        serde_json::json!({
            "log": log,
            "files": self.files,
            "lines": self.lines,
            "unreadable": self.unreadable,
            "calls": self.call_rows(),
            "handlers": self.handler_rows(),
        })
    }

    fn table(&self, log: &Path) -> String {
        let mut out = format!(
            "{}: {} lines in {} file{}",
            log.display(),
            self.lines,
            self.files.len(),
            if self.files.len() == 1 { "" } else { "s" }
        );
        if !self.unreadable.is_empty() {
            out.push_str(&format!(", {} unreadable", self.unreadable.len()));
        }
        out.push_str("\n\n");
        let ms = |us: u64| format!("{:.1}", Duration::from_micros(us).as_secs_f64() * 1e3);
        let counts = |c: &Counts| {
            [
                c.blocks.to_string(),
                c.rewrites.to_string(),
                c.would_block.to_string(),
                c.would_rewrite.to_string(),
                c.errors.to_string(),
                ms(c.total_us),
                ms(c.max_us),
            ]
        };
        const COUNTS: [&str; 7] = [
            "BLOCKS",
            "REWRITES",
            "WOULD-BLOCK",
            "WOULD-REWRITE",
            "ERRORS",
            "TOTAL-MS",
            "MAX-MS",
        ];
        let mut calls = vec![
            ["AGENT", "EVENT", "TOOL", "CALLS"]
                .iter()
                .chain(&COUNTS)
                .map(|s| (*s).to_owned())
                .collect::<Vec<_>>(),
        ];
        for row in self.call_rows() {
            let mut cells = vec![row.agent, row.event, row.tool, row.calls.to_string()];
            cells.extend(counts(&row.counts));
            calls.push(cells);
        }
        if calls.len() == 1 {
            out.push_str("no calls\n");
            return out;
        }
        out.push_str(&columns(&calls));
        let mut handlers = vec![
            ["AGENT", "EVENT", "TOOL", "HANDLER", "RUNS"]
                .iter()
                .chain(&COUNTS)
                .map(|s| (*s).to_owned())
                .collect::<Vec<_>>(),
        ];
        for row in self.handler_rows() {
            let mut cells = vec![
                row.agent,
                row.event,
                row.tool,
                format!("{} {}", row.hook, row.handler),
                row.runs.to_string(),
            ];
            cells.extend(counts(&row.counts));
            handlers.push(cells);
        }
        out.push('\n');
        if handlers.len() == 1 {
            out.push_str("no handler ran\n");
        } else {
            out.push_str(&columns(&handlers));
        }
        out
    }
}

/// `rows` as left-aligned columns two spaces apart.
fn columns(rows: &[Vec<String>]) -> String {
    let mut widths = Vec::new();
    for row in rows {
        widths.resize(widths.len().max(row.len()), 0);
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (cell, w) in row.iter().zip(&widths) {
            line.push_str(&format!("{cell:<w$}  "));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The log's place: `--file`, else the decision log's (config.toml's `[log] path`, else
/// `<state dir>/hooks/decisions.jsonl`).
fn place(args: &LogArgs) -> Result<PathBuf, String> {
    if let Some(file) = &args.file {
        return Ok(file.clone());
    }
    let file = match crate::trust::config_dir() {
        Ok(dir) => ConfigFile::read(&dir.join(CONFIG_FILE))?,
        Err(_) => ConfigFile::default(),
    };
    let settings = Settings::from_parts(&file, None, crate::home::state_dir())?;
    settings.place.map(|p| p.path).ok_or_else(|| {
        "no place for the decision log: no state directory (XDG_STATE_HOME and HOME unset) and \
         no [log] path in config.toml"
            .to_owned()
    })
}

/// `path`'s rotated files that exist, oldest first (`PATH.N` .. `PATH.1`).
fn rotated(path: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for k in 1.. {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".{k}"));
        let file = PathBuf::from(name);
        if !file.is_file() {
            break;
        }
        found.push(file);
    }
    found.reverse();
    found
}

/// Runs `hooks log`.
#[must_use]
pub fn run(args: &LogArgs) -> ExitCode {
    let log = match place(args) {
        Ok(log) => log,
        Err(e) => {
            eprintln!("hooks log: {e}");
            return ExitCode::FAILURE;
        }
    };
    let filter = Filter {
        since: args.since,
        agent: args.agent.clone(),
        session: args.session.clone(),
        denied: args.denied,
    };
    let stdout = io::stdout();
    let mut err = io::stderr();
    let mut summary = Summary::default();
    let mut held = None;
    for file in rotated(&log) {
        match std::fs::read(&file) {
            Ok(bytes) => {
                summary.read(
                    &file,
                    1,
                    &String::from_utf8_lossy(&bytes),
                    &filter,
                    &mut err,
                );
                summary.files.push(file);
            }
            Err(e) => {
                eprintln!("hooks log: cannot read {}: {e}", file.display());
                return ExitCode::FAILURE;
            }
        }
    }
    match File::open(&log) {
        Ok(mut file) => {
            let mut bytes = Vec::new();
            if let Err(e) = file.read_to_end(&mut bytes) {
                eprintln!("hooks log: cannot read {}: {e}", log.display());
                return ExitCode::FAILURE;
            }
            // Only whole lines: a writer may be in the middle of one.
            let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let text = String::from_utf8_lossy(&bytes[..whole]);
            let lines = u64::try_from(text.lines().count()).unwrap_or(u64::MAX);
            summary.read(&log, 1, &text, &filter, &mut err);
            summary.files.push(log.clone());
            held = Some(Followed {
                file,
                at: whole as u64,
                next_line: lines + 1,
            });
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound && summary.files.is_empty() => {
            eprintln!(
                "hooks log: no decision log at {} (it is written in audit mode, HOOKS_MODE=audit, \
                 or with [log] enabled = true in config.toml; --file names another file){}",
                log.display(),
                if args.follow { "; waiting for it" } else { "" }
            );
            if !args.follow {
                return ExitCode::FAILURE;
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => {
            eprintln!("hooks log: cannot read {}: {e}", log.display());
            return ExitCode::FAILURE;
        }
    }
    {
        let mut out = stdout.lock();
        let printed = if args.json {
            writeln!(out, "{}", summary.json(&log))
        } else {
            write!(out, "{}", summary.table(&log))
        };
        if printed.and_then(|()| out.flush()).is_err() {
            return ExitCode::FAILURE;
        }
    }
    if args.follow {
        follow(&log, held, &filter, args.json);
    }
    ExitCode::SUCCESS
}

/// The log file being followed, and how far it was read.
struct Followed {
    file: File,
    at: u64,
    next_line: u64,
}

/// How often a followed log is looked at.
const POLL: Duration = Duration::from_millis(100);

/// Prints each new line of `log` that `filter` keeps, from where `held` was read, until
/// stdout is closed; a log that is rotated or replaced is read from its start.
fn follow(log: &Path, mut held: Option<Followed>, filter: &Filter, json: bool) {
    let stdout = io::stdout();
    let mut err = io::stderr();
    let mut pending = Vec::new();
    if !json {
        let mut out = stdout.lock();
        let _ = writeln!(out, "\nfollowing {}", log.display());
        let _ = out.flush();
    }
    loop {
        if held.as_ref().is_none_or(|h| replaced(log, &h.file)) {
            // The file at `log` now is another (rotated, or new): read what is left of the
            // old one, then the new one from its start.
            if let Some(h) = held.as_mut()
                && !read_new(h, log, filter, json, &mut pending, &mut err)
            {
                return;
            }
            if let Ok(file) = File::open(log) {
                held = Some(Followed {
                    file,
                    at: 0,
                    next_line: 1,
                });
                pending.clear();
            }
        }
        if let Some(h) = held.as_mut()
            && !read_new(h, log, filter, json, &mut pending, &mut err)
        {
            return;
        }
        std::thread::sleep(POLL);
    }
}

/// Whether the file at `log` is no longer `file` (rotated away, removed, or replaced).
fn replaced(log: &Path, file: &File) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    match (std::fs::metadata(log), file.metadata()) {
        (Ok(now), Ok(held)) => now.ino() != held.ino() || now.dev() != held.dev(),
        _ => true,
    }
}

/// Reads and prints the whole lines written to `h` since it was last read (a cut last line
/// waits in `pending`); `false` when stdout is closed.
fn read_new(
    h: &mut Followed,
    log: &Path,
    filter: &Filter,
    json: bool,
    pending: &mut Vec<u8>,
    err: &mut dyn Write,
) -> bool {
    if h.file.seek(io::SeekFrom::Start(h.at)).is_err() {
        return true;
    }
    let mut reader = BufReader::new(&h.file);
    let mut out = io::stdout().lock();
    loop {
        let mut chunk = Vec::new();
        match reader.read_until(b'\n', &mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                h.at += n as u64;
                pending.extend_from_slice(&chunk);
                if !pending.ends_with(b"\n") {
                    continue;
                }
                let raw = String::from_utf8_lossy(pending).into_owned();
                pending.clear();
                let number = h.next_line;
                h.next_line += 1;
                if raw.trim().is_empty() {
                    continue;
                }
                let printed = match serde_json::from_str::<Line>(&raw) {
                    Ok(line) if filter.keeps(&line) => writeln!(out, "{}", entry(&line, json)),
                    Ok(_) => Ok(()),
                    Err(e) => {
                        let _ = writeln!(
                            err,
                            "hooks log: {}:{number}: not a decision log line ({e}); left out",
                            log.display()
                        );
                        Ok(())
                    }
                };
                if printed.and_then(|()| out.flush()).is_err() {
                    return false;
                }
            }
        }
    }
    true
}

/// One followed call: a row, or `{"entry": {...}}`.
fn entry(line: &Line, json: bool) -> String {
    let handlers: Vec<String> = line
        .handlers
        .iter()
        .map(|h| format!("{} {}", h.hook, h.handler))
        .collect();
    if json {
        serde_json::json!({"entry": {
            "time": line.time,
            "agent": line.agent,
            "session": line.session,
            "event": line.event.agent,
            "tool": line.tool,
            "mode": line.mode,
            "verdict": line.verdict(),
            "handlers": handlers,
            "duration_us": line.duration_us,
        }})
        .to_string()
    } else {
        format!(
            "{}  {}  {}  {}  {}  {}  {:.1} ms",
            line.time,
            line.agent,
            line.event.agent,
            line.tool(),
            line.verdict(),
            if handlers.is_empty() {
                "-".to_owned()
            } else {
                handlers.join(", ")
            },
            Duration::from_micros(line.duration_us).as_secs_f64() * 1e3
        )
    }
}
