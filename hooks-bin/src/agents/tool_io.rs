//! Tool inputs and outputs between an agent CLI's wire form and ours, and how tool names
//! map.
//!
//! # Names
//!
//! Each agent's protocol has one two-way table ([`ToolNames`](hookwright::tool_names::ToolNames)):
//! Claude Code's is the loader's
//! [`CLAUDE_TOOL_NAMES`](hookwright::loader::claude::CLAUDE_TOOL_NAMES), Codex's
//! [`CODEX_TOOL_NAMES`](super::codex::CODEX_TOOL_NAMES).
//!
//! | Claude Code | Codex | ours |
//! | --- | --- | --- |
//! | `Bash` | `Bash`, `exec_command`, `shell`, `local_shell` | `bash` |
//! | `Read` | | `read` |
//! | `Write` | | `write` |
//! | `Edit` | | `edit` |
//! | `Grep` | | `grep` |
//! | `Glob` | | `find` |
//! | | `apply_patch` | `apply_patch` (its input is a patch, not an `edit` input) |
//! | anything else | anything else | lower-cased as is (`WebFetch` → `webfetch`, `mcp__fs__read` → `mcp__fs__read`) |
//!
//! # Inputs
//!
//! `tool_input` becomes the event's `input` unchanged, plus our spelling of a few Claude fields
//! when it is absent: `file_path` → `path`, `old_string` → `oldText`, `new_string` → `newText`,
//! `-i` → `ignoreCase`. A handler written against our tools (`event.input_str("path")`) and one
//! written against Claude's (`"file_path"`) both work.
//!
//! A `bash` call always has its command line as the string `command`, the way a guard reads it
//! (`event.input_str("command")`), whatever shape the agent sent: Codex's `exec_command` sends
//! it as `cmd`, and its `shell` tools as an argument vector (`["bash", "-lc", "rm -rf /"]`);
//! either field may hold either shape. An argument vector that runs a shell with `-c` (or
//! `-lc`, ...) gives that script; any other gives the arguments joined as a shell would read
//! them. The vector itself stays, as `argv`.
//!
//! # Outputs
//!
//! `tool_response` becomes the event's `content` (and, whole, its `details`), and new content
//! is written back in the agent's shape or, where that shape cannot carry it, the output is
//! withheld: [`output`] has the shapes of each agent's tools.

pub mod output;

pub use output::{ToolOutputView, Unfit, join_text};

use serde_json::{Map, Value};

use hookwright::events::ToolInput;

/// Field names of Claude's tool inputs that we spell differently.
const INPUT_ALIASES: &[(&str, &str)] = &[
    ("file_path", "path"),
    ("old_string", "oldText"),
    ("new_string", "newText"),
    ("-i", "ignoreCase"),
];

/// The event `input` for an input of our tool `tool`: the same object plus our spelling of the
/// fields in the [module table](self#inputs) when ours is absent, and a `bash` command line as
/// the string `command`.
#[must_use]
pub fn canonical_input(tool: &str, tool_input: Map<String, Value>) -> ToolInput {
    let mut input = tool_input;
    for (theirs, ours) in INPUT_ALIASES {
        if !input.contains_key(*ours)
            && let Some(v) = input.get(*theirs).cloned()
        {
            input.insert((*ours).to_owned(), v);
        }
    }
    if tool == "bash" {
        command_as_string(&mut input);
    }
    input.into()
}

/// Shells whose `-c` argument is the script a `bash` call runs.
const SHELLS: &[&str] = &["bash", "sh", "zsh", "dash", "ksh"];

/// Makes `command` the command line as a string: taken from `cmd` (a string or an argument
/// vector) when `command` is absent, and from an argument vector (kept as `argv`) when it is
/// one.
fn command_as_string(input: &mut Map<String, Value>) {
    if !input.contains_key("command")
        && let Some(cmd @ (Value::String(_) | Value::Array(_))) = input.get("cmd").cloned()
    {
        input.insert("command".to_owned(), cmd);
    }
    let argv: Option<Vec<String>> = match input.get("command") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned))
            .collect(),
        _ => None,
    };
    if let Some(argv) = argv {
        let line = shell_script(&argv).map_or_else(
            || {
                argv.iter()
                    .map(|arg| crate::text::shell_quote(arg))
                    .collect::<Vec<_>>()
                    .join(" ")
            },
            str::to_owned,
        );
        let vector = input.insert("command".to_owned(), Value::String(line));
        if let Some(vector) = vector {
            input.entry("argv").or_insert(vector);
        }
    }
}

/// The script of an argument vector that runs a shell on one: `[SHELL, ..., -c, SCRIPT]`,
/// where the flag is `-c` or a cluster that ends in `c` (`-lc`, `-ic`).
fn shell_script(argv: &[String]) -> Option<&str> {
    let [shell, .., flag, script] = argv else {
        return None;
    };
    let name = shell.rsplit('/').next().unwrap_or(shell);
    let runs_script = flag.len() > 1
        && flag.starts_with('-')
        && flag.ends_with('c')
        && flag[1..].chars().all(|c| c.is_ascii_alphabetic());
    (SHELLS.contains(&name) && runs_script).then_some(script.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn aliases_do_not_overwrite() {
        let input = json!({"file_path": "/a", "path": "/b", "old_string": "x"});
        let out = canonical_input("edit", input.as_object().unwrap().clone());
        assert_eq!(out["path"], "/b");
        assert_eq!(out["oldText"], "x");
    }

    fn bash_command(input: Value) -> ToolInput {
        canonical_input("bash", input.as_object().unwrap().clone())
    }

    #[test]
    fn bash_command_is_a_string_whatever_shape_the_agent_sent() {
        // Codex's shell tools: an argument vector running a shell on a script.
        let out = bash_command(json!({"command": ["bash", "-lc", "rm -rf /"]}));
        assert_eq!(out["command"], "rm -rf /");
        assert_eq!(out["argv"], json!(["bash", "-lc", "rm -rf /"]));
        let out = bash_command(json!({"command": ["/bin/sh", "-c", "ls | wc"]}));
        assert_eq!(out["command"], "ls | wc");
        // Any other vector: the arguments as a shell reads them.
        let out = bash_command(json!({"command": ["rm", "-rf", "my dir"]}));
        assert_eq!(out["command"], "rm -rf 'my dir'");
        let out = bash_command(json!({"command": ["python3", "-c", "print(1)"]}));
        assert_eq!(out["command"], "python3 -c 'print(1)'");
        // Codex's exec_command: `cmd`.
        let out = bash_command(json!({"cmd": "rm -rf /", "workdir": "/p"}));
        assert_eq!(out["command"], "rm -rf /");
        assert_eq!(out["cmd"], "rm -rf /");
        // A string command is left alone, and so are other tools.
        let out = bash_command(json!({"command": "ls", "cmd": "other"}));
        assert_eq!(out["command"], "ls");
        assert!(out.get("argv").is_none());
        let out = canonical_input(
            "read",
            json!({"command": ["a"]}).as_object().unwrap().clone(),
        );
        assert_eq!(out["command"], json!(["a"]));
    }
}
