//! `hooks list`: the hooks that load for a working directory, in dispatch order.
//!
//! # JSON (`--json`, `"version": 1`)
//!
//! One object. Keys and their order are stable; new keys may be added in a later version.
//!
//! ```json
//! {
//!   "version": 1,
//!   "cwd": "/abs/project",
//!   "hooks": [
//!     {"index": 1, "path": "examples::block_rm", "resolvedPath": "examples::block_rm",
//!      "kind": "compiled",
//!      "handlers": [{"event": "tool_call", "name": "block_rm",
//!                    "location": "examples/src/block_rm.rs:18", "file": "examples/src/block_rm.rs",
//!                    "line": 18, "column": 1}],
//!      "customEvents": [],
//!      "commands": [{"name": "handoff", "description": "...", "location": "...", "shadowed": false}],
//!      "renderers": [{"customType": "debug-only", "shadowed": false}]}
//!   ],
//!   "events": [
//!     {"event": "tool_call", "handlers": [{"hook": "examples::block_rm", "name": "block_rm",
//!                                          "location": "examples/src/block_rm.rs:18"}]}
//!   ],
//!   "commands": [{"name": "handoff", "hook": "examples::handoff", "description": "...",
//!                 "location": "...", "shadowed": false, "shadowedBy": null}],
//!   "renderers": [{"customType": "debug-only", "hook": "...", "shadowed": false, "shadowedBy": null}],
//!   "discovered": [{"name": "bash.sh", "path": "/abs/.xcsh/hooks/pre/bash.sh", "type": "pre",
//!                   "tool": "bash", "level": "project", "provider": "native",
//!                   "providerName": "OMP", "key": "pre:bash:bash.sh", "shadowed": false,
//!                   "refused": false}],
//!   "errors": [{"path": "/abs/x.ts", "error": "..."}],
//!   "warnings": ["..."]
//! }
//! ```
//!
//! - `hooks`: load order, which is dispatch order (compiled-in hooks sorted by id, then
//!   discovered files, then `--hook` paths). `kind` is `compiled` or `file`. A hook's `handlers`
//!   are grouped by event (events in the order of SPEC.md section 3), each group in registration
//!   (source) order. `location` is `file:line` (`null` when unknown).
//! - `events`: for each event with handlers (same event order), every handler in dispatch
//!   order across hooks.
//! - `commands` / `renderers`: every registration, hooks in order; `shadowed` is true when an
//!   earlier hook registered the same name (`getCommand` / `getMessageRenderer` return the
//!   first), and `shadowedBy` names that hook.
//! - `discovered`: every item the capability providers found, in provider-priority order;
//!   `shadowed` items lost to a higher-priority item with the same `key` and are not loaded;
//!   `refused` items were refused by the trust check (their load error is in `errors`): they
//!   do not load and shadow nothing.
//! - `errors`: entries that failed to load; `warnings`: discovery warnings.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use hooks_core::LoadedHook;
use hooks_core::events::EventKind;
use hooks_core::handler::SourceLocation;
use serde_json::{Value, json};

use crate::load::{self, Loaded};
use crate::sanitize::clean;
use crate::trust::TrustMode;

/// The version of the JSON output.
pub const LIST_JSON_VERSION: u32 = 1;

/// Options of `hooks list`.
#[derive(Debug, Clone, clap::Args)]
pub struct ListArgs {
    /// Print one stable JSON object (documented in `hooks list --help`).
    #[arg(long)]
    pub json: bool,
    /// The working directory hooks are discovered for [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Also load this hook (a compiled-in hook id or a hook file); repeatable.
    #[arg(long = "hook", value_name = "PATH")]
    pub hooks: Vec<String>,
}

/// The long help of `hooks list`.
pub const LIST_HELP: &str = "\
JSON output (--json): {\"version\": 1, \"cwd\", \"hooks\": [{\"index\", \"path\", \"resolvedPath\", \"kind\",
\"handlers\": [{\"event\", \"name\", \"location\", \"file\", \"line\", \"column\"}], \"customEvents\",
\"commands\": [{\"name\", \"description\", \"location\", \"shadowed\"}], \"renderers\": [{\"customType\",
\"shadowed\"}]}], \"events\": [{\"event\", \"handlers\": [{\"hook\", \"name\", \"location\"}]}],
\"commands\": [{\"name\", \"hook\", \"description\", \"location\", \"shadowed\", \"shadowedBy\"}],
\"renderers\": [{\"customType\", \"hook\", \"shadowed\", \"shadowedBy\"}], \"discovered\": [{\"name\",
\"path\", \"type\", \"tool\", \"level\", \"provider\", \"providerName\", \"key\", \"shadowed\",
\"refused\"}],
\"errors\": [{\"path\", \"error\"}], \"warnings\": [...]}
Hooks and handlers are listed in dispatch order.

Exit status: 0 every hook loaded; 1 at least one hook failed to load (listed under errors);
2 invalid usage.";

/// Runs `hooks list`, checking project hook files as `trust` says.
#[must_use]
pub fn run(args: &ListArgs, trust: &TrustMode) -> ExitCode {
    let cwd = match args.cwd.clone().map_or_else(std::env::current_dir, Ok) {
        Ok(cwd) => cwd,
        Err(e) => {
            eprintln!("hooks list: no current directory: {e}");
            return ExitCode::from(2);
        }
    };
    let cwd = match cwd.canonicalize() {
        Ok(cwd) => cwd,
        Err(e) => {
            eprintln!(
                "hooks list: cannot use {} as the working directory: {e}",
                cwd.display()
            );
            return ExitCode::from(2);
        }
    };
    let loaded = load::load(&cwd, &args.hooks, trust);
    let listing = listing(&cwd, &loaded);
    let mut out = std::io::stdout().lock();
    let written = if args.json {
        serde_json::to_writer_pretty(&mut out, &listing)
            .map_err(std::io::Error::other)
            .and_then(|()| writeln!(out))
    } else {
        out.write_all(human(&listing).as_bytes())
    };
    if let Err(e) = written.and_then(|()| out.flush()) {
        eprintln!("hooks list: cannot write output: {e}");
        return ExitCode::FAILURE;
    }
    if loaded.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn location_json(location: Option<SourceLocation>) -> (Value, Value, Value, Value) {
    match location {
        Some(l) => (
            Value::from(l.to_string()),
            Value::from(l.file),
            Value::from(l.line),
            Value::from(l.column),
        ),
        None => (Value::Null, Value::Null, Value::Null, Value::Null),
    }
}

fn hook_kind(hook: &LoadedHook, compiled: &[&str]) -> &'static str {
    if compiled.contains(&hook.path.as_str()) {
        "compiled"
    } else {
        "file"
    }
}

/// The JSON listing (see the module docs).
#[must_use]
pub fn listing(cwd: &std::path::Path, loaded: &Loaded) -> Value {
    let compiled = hooks_core::registry::compiled_hook_ids();
    let mut hooks = Vec::new();
    let mut events: Vec<Value> = Vec::new();
    for kind in EventKind::ALL {
        let handlers: Vec<Value> = loaded
            .hooks
            .iter()
            .flat_map(|hook| {
                hook.handlers.infos(*kind).into_iter().map(|info| {
                    json!({
                        "hook": hook.path,
                        "name": info.name,
                        "location": info.location.map(|l| l.to_string()),
                    })
                })
            })
            .collect();
        if !handlers.is_empty() {
            events.push(json!({"event": kind.as_str(), "handlers": handlers}));
        }
    }
    let mut first_command: HashMap<&str, &str> = HashMap::new();
    let mut first_renderer: HashMap<&str, &str> = HashMap::new();
    let mut commands = Vec::new();
    let mut renderers = Vec::new();
    for (index, hook) in loaded.hooks.iter().enumerate() {
        let mut handlers = Vec::new();
        for kind in EventKind::ALL {
            for info in hook.handlers.infos(*kind) {
                let (location, file, line, column) = location_json(info.location);
                handlers.push(json!({
                    "event": kind.as_str(),
                    "name": info.name,
                    "location": location,
                    "file": file,
                    "line": line,
                    "column": column,
                }));
            }
        }
        let mut hook_commands = Vec::new();
        for command in hook.commands.values() {
            let by = first_command.get(command.name.as_str()).copied();
            if by.is_none() {
                first_command.insert(&command.name, &hook.path);
            }
            let location = command.location.map(|l| l.to_string());
            hook_commands.push(json!({
                "name": command.name,
                "description": command.description,
                "location": location,
                "shadowed": by.is_some(),
            }));
            commands.push(json!({
                "name": command.name,
                "hook": hook.path,
                "description": command.description,
                "location": location,
                "shadowed": by.is_some(),
                "shadowedBy": by,
            }));
        }
        let mut hook_renderers = Vec::new();
        for custom_type in hook.renderers.keys() {
            let by = first_renderer.get(custom_type.as_str()).copied();
            if by.is_none() {
                first_renderer.insert(custom_type, &hook.path);
            }
            hook_renderers.push(json!({"customType": custom_type, "shadowed": by.is_some()}));
            renderers.push(json!({
                "customType": custom_type,
                "hook": hook.path,
                "shadowed": by.is_some(),
                "shadowedBy": by,
            }));
        }
        hooks.push(json!({
            "index": index + 1,
            "path": hook.path,
            "resolvedPath": hook.resolved_path.to_string_lossy(),
            "kind": hook_kind(hook, &compiled),
            "handlers": handlers,
            "customEvents": hook.handlers.custom_events().collect::<Vec<_>>(),
            "commands": hook_commands,
            "renderers": hook_renderers,
        }));
    }
    let discovered: Vec<Value> = loaded
        .discovery
        .as_ref()
        .map(|d| {
            d.all
                .iter()
                .map(|item| {
                    json!({
                        "name": item.name,
                        "path": item.path.to_string_lossy(),
                        "type": item.hook_type.as_str(),
                        "tool": item.tool,
                        "level": item.level,
                        "provider": item.source.provider,
                        "providerName": item.source.provider_name,
                        "key": item.key(),
                        "shadowed": item.shadowed,
                        "refused": d.is_refused(&item.path),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    json!({
        "version": LIST_JSON_VERSION,
        "cwd": cwd.to_string_lossy(),
        "hooks": hooks,
        "events": events,
        "commands": commands,
        "renderers": renderers,
        "discovered": discovered,
        "errors": loaded.errors,
        "warnings": loaded.warnings,
    })
}

/// Rows of cells as aligned text, each line indented by two spaces.
fn table(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::from(" ");
        for (c, cell) in row.iter().enumerate() {
            line.push(' ');
            line.push_str(cell);
            if c + 1 < row.len() {
                let pad = widths[c] - cell.chars().count() + 1;
                line.push_str(&" ".repeat(pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn text(value: &Value, key: &str) -> String {
    match value.get(key) {
        Some(Value::String(s)) => clean(s),
        Some(Value::Null) | None => String::new(),
        Some(other) => clean(&other.to_string()),
    }
}

/// The readable listing.
#[must_use]
pub fn human(listing: &Value) -> String {
    let list = |key: &str| {
        listing
            .get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let hooks = list("hooks");
    let mut out = format!(
        "Hooks for {} ({} loaded, in dispatch order)\n",
        text(listing, "cwd"),
        hooks.len()
    );
    if hooks.is_empty() {
        out.push_str("  (none)\n");
    } else {
        let rows: Vec<Vec<String>> = hooks
            .iter()
            .map(|h| {
                vec![
                    format!("{}.", text(h, "index")),
                    text(h, "path"),
                    text(h, "kind"),
                ]
            })
            .collect();
        out.push_str(&table(&rows));
    }
    out.push_str("\nHandlers by event (dispatch order)\n");
    let events = list("events");
    if events.is_empty() {
        out.push_str("  (none)\n");
    }
    for event in &events {
        out.push_str(&format!("  {}\n", text(event, "event")));
        let rows: Vec<Vec<String>> = event
            .get("handlers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, h)| {
                vec![
                    format!("  {}.", i + 1),
                    text(h, "hook"),
                    text(h, "name"),
                    text(h, "location"),
                ]
            })
            .collect();
        out.push_str(&table(&rows));
    }
    out.push_str("\nCommands\n");
    let commands = list("commands");
    if commands.is_empty() {
        out.push_str("  (none)\n");
    } else {
        let rows: Vec<Vec<String>> = commands
            .iter()
            .map(|c| {
                let mut row = vec![
                    format!("/{}", text(c, "name")),
                    text(c, "description"),
                    text(c, "hook"),
                    text(c, "location"),
                ];
                if c.get("shadowed") == Some(&Value::Bool(true)) {
                    row.push(format!("(shadowed by {})", text(c, "shadowedBy")));
                }
                row
            })
            .collect();
        out.push_str(&table(&rows));
    }
    out.push_str("\nRenderers\n");
    let renderers = list("renderers");
    if renderers.is_empty() {
        out.push_str("  (none)\n");
    } else {
        let rows: Vec<Vec<String>> = renderers
            .iter()
            .map(|r| {
                let mut row = vec![text(r, "customType"), text(r, "hook")];
                if r.get("shadowed") == Some(&Value::Bool(true)) {
                    row.push(format!("(shadowed by {})", text(r, "shadowedBy")));
                }
                row
            })
            .collect();
        out.push_str(&table(&rows));
    }
    out.push_str("\nDiscovered hook files\n");
    let discovered = list("discovered");
    if discovered.is_empty() {
        out.push_str("  (none)\n");
    } else {
        let rows: Vec<Vec<String>> = discovered
            .iter()
            .map(|d| {
                let mut row = vec![
                    text(d, "type"),
                    text(d, "tool"),
                    text(d, "path"),
                    format!("{} ({})", text(d, "provider"), text(d, "level")),
                ];
                if d.get("shadowed") == Some(&Value::Bool(true)) {
                    row.push("(shadowed)".to_owned());
                }
                if d.get("refused") == Some(&Value::Bool(true)) {
                    row.push("(refused: see Load errors)".to_owned());
                }
                row
            })
            .collect();
        out.push_str(&table(&rows));
    }
    let errors = list("errors");
    if !errors.is_empty() {
        out.push_str("\nLoad errors\n");
        for e in &errors {
            out.push_str(&format!("  {}: {}\n", text(e, "path"), text(e, "error")));
        }
    }
    let warnings = list("warnings");
    if !warnings.is_empty() {
        out.push_str("\nWarnings\n");
        for w in &warnings {
            out.push_str(&format!("  {}\n", clean(w.as_str().unwrap_or_default())));
        }
    }
    out
}
