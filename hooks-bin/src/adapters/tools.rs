//! Tool inputs and outputs between an agent CLI's wire form and ours, and how tool names
//! map.
//!
//! # Names
//!
//! Each agent's protocol has one two-way table ([`ToolNames`](hooks_core::tool_names::ToolNames)):
//! Claude Code's is the loader's
//! [`CLAUDE_TOOL_NAMES`](hooks_core::loader::claude::CLAUDE_TOOL_NAMES), Codex's
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
//! `tool_response` becomes the event's `content` (and, whole, its `details`), by its shape:
//!
//! | shape | content | rewritten as |
//! | --- | --- | --- |
//! | a string | one text chunk | a string |
//! | an array of content blocks (`[{"type": "text", ...}]`) | the blocks | the new blocks |
//! | an object with string `stdout` (Claude's Bash) | `stdout`, then `stderr` when not empty | the object with `stdout`/`stderr` replaced, other keys kept |
//! | an object with `file.content` (Claude's Read) | `file.content` | the object with `file.content` replaced |
//! | an object with a content-block array `content` (an MCP result) | the blocks | the object with `content` replaced |
//! | an object with string `output` or `content` | that string | the object with it replaced |
//! | anything else | the compact JSON text | no shape-preserving form |

use serde_json::{Map, Value};

use hooks_core::events::{Content, ToolInput};

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

/// How a tool's output was shaped, so that a rewrite can keep the shape.
#[derive(Debug, Clone, PartialEq)]
enum Shape {
    Text,
    Blocks,
    Stdio { had_stderr: bool },
    File,
    BlocksField,
    StringField(&'static str),
    Opaque,
}

/// A tool's output (`tool_response`) seen as content chunks, with what is needed to write a
/// replacement in the same shape.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutputView {
    original: Value,
    shape: Shape,
    content: Vec<Content>,
}

impl ToolOutputView {
    /// Reads `response` (see the [module table](self#outputs)).
    #[must_use]
    pub fn new(response: Value) -> Self {
        let (shape, content) = read_shape(&response);
        ToolOutputView {
            original: response,
            shape,
            content,
        }
    }

    /// The output as content chunks (what `tool_result` handlers see as `content`).
    #[must_use]
    pub fn content(&self) -> &[Content] {
        &self.content
    }

    /// The output as received.
    #[must_use]
    pub fn original(&self) -> &Value {
        &self.original
    }

    /// Whether a rewrite can keep the output's shape ([`ToolOutputView::rewrite`] is `Some`).
    #[must_use]
    pub fn has_known_shape(&self) -> bool {
        self.shape != Shape::Opaque
    }

    /// The output with its content replaced by `content`, in the original shape; `None` when
    /// the shape is not known.
    #[must_use]
    pub fn rewrite(&self, content: &[Content]) -> Option<Value> {
        let joined = join_text(content);
        let mut out = self.original.clone();
        match &self.shape {
            Shape::Text => Some(Value::String(joined)),
            Shape::Blocks => Some(blocks(content)),
            Shape::Stdio { had_stderr } => {
                let texts: Vec<&str> = content.iter().filter_map(Content::as_text).collect();
                let expected = if *had_stderr { 2 } else { 1 };
                let (stdout, stderr) = if texts.len() == expected && *had_stderr {
                    (texts[0].to_owned(), texts[1].to_owned())
                } else {
                    (joined, String::new())
                };
                let obj = out.as_object_mut()?;
                obj.insert("stdout".to_owned(), Value::String(stdout));
                if obj.contains_key("stderr") || !stderr.is_empty() {
                    obj.insert("stderr".to_owned(), Value::String(stderr));
                }
                Some(out)
            }
            Shape::File => {
                let file = out.get_mut("file")?.as_object_mut()?;
                file.insert("content".to_owned(), Value::String(joined));
                Some(out)
            }
            Shape::BlocksField => {
                out.as_object_mut()?
                    .insert("content".to_owned(), blocks(content));
                Some(out)
            }
            Shape::StringField(key) => {
                out.as_object_mut()?
                    .insert((*key).to_owned(), Value::String(joined));
                Some(out)
            }
            Shape::Opaque => None,
        }
    }
}

/// The text chunks of `content` joined with newlines (other chunks dropped).
#[must_use]
pub fn join_text(content: &[Content]) -> String {
    content
        .iter()
        .filter_map(Content::as_text)
        .collect::<Vec<_>>()
        .join("\n")
}

fn blocks(content: &[Content]) -> Value {
    serde_json::to_value(content).unwrap_or_else(|_| Value::Array(Vec::new()))
}

fn is_block_array(items: &[Value]) -> bool {
    items
        .iter()
        .all(|v| v.get("type").is_some_and(Value::is_string))
}

fn parse_blocks(items: &[Value]) -> Vec<Content> {
    items
        .iter()
        .map(|v| serde_json::from_value(v.clone()).unwrap_or_else(|_| Content::Other(v.clone())))
        .collect()
}

fn read_shape(response: &Value) -> (Shape, Vec<Content>) {
    match response {
        Value::String(s) => (Shape::Text, vec![Content::text(s.clone())]),
        Value::Array(items) if is_block_array(items) => (Shape::Blocks, parse_blocks(items)),
        Value::Object(obj) => {
            if let Some(stdout) = obj.get("stdout").and_then(Value::as_str) {
                let stderr = obj.get("stderr").and_then(Value::as_str).unwrap_or("");
                let mut content = vec![Content::text(stdout)];
                if !stderr.is_empty() {
                    content.push(Content::text(stderr));
                }
                return (
                    Shape::Stdio {
                        had_stderr: !stderr.is_empty(),
                    },
                    content,
                );
            }
            if let Some(text) = obj
                .get("file")
                .and_then(|f| f.get("content"))
                .and_then(Value::as_str)
            {
                return (Shape::File, vec![Content::text(text)]);
            }
            if let Some(Value::Array(items)) = obj.get("content")
                && is_block_array(items)
            {
                return (Shape::BlocksField, parse_blocks(items));
            }
            for key in ["output", "content"] {
                if let Some(text) = obj.get(key).and_then(Value::as_str) {
                    return (Shape::StringField(key), vec![Content::text(text)]);
                }
            }
            (Shape::Opaque, vec![Content::text(response.to_string())])
        }
        Value::Null => (Shape::Opaque, Vec::new()),
        other => (Shape::Opaque, vec![Content::text(other.to_string())]),
    }
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

    #[test]
    fn bash_shape_round_trips() {
        let view = ToolOutputView::new(
            json!({"stdout": "a", "stderr": "b", "interrupted": false, "isImage": false}),
        );
        assert_eq!(view.content().len(), 2);
        let out = view
            .rewrite(&[Content::text("A"), Content::text("B")])
            .unwrap();
        assert_eq!(
            out,
            json!({"stdout": "A", "stderr": "B", "interrupted": false, "isImage": false})
        );
        let out = view.rewrite(&[Content::text("all")]).unwrap();
        assert_eq!(out["stdout"], "all");
        assert_eq!(out["stderr"], "");
    }

    #[test]
    fn read_and_mcp_shapes() {
        let view = ToolOutputView::new(
            json!({"type": "text", "file": {"filePath": "/x", "content": "k=1"}}),
        );
        assert_eq!(join_text(view.content()), "k=1");
        assert_eq!(
            view.rewrite(&[Content::text("k=2")]).unwrap()["file"]["content"],
            "k=2"
        );
        let view = ToolOutputView::new(json!([{"type": "text", "text": "t"}]));
        assert_eq!(
            view.rewrite(&[Content::text("u")]).unwrap(),
            json!([{"type": "text", "text": "u"}])
        );
        let view = ToolOutputView::new(json!({"weird": 1}));
        assert!(!view.has_known_shape());
        assert_eq!(view.rewrite(&[]), None);
    }
}
