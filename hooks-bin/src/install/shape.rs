//! The entries of an agent's settings file: the one added for an event, in the form of the
//! agent's [`InstallShape`](crate::agents::InstallShape), and how an entry is recognised as one this tool installed.

use std::ffi::OsStr;
use std::path::Path;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Value, json};

use super::Target;
use super::command::Command;
use crate::agents::{AgentEvent, FailClosed, FailValue, Form};

/// The entries of `hooks install claude --http`: HTTP hooks to the server of `hooks serve`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpHooks {
    /// The server's base URL: `http://127.0.0.1:PORT`.
    pub url: String,
    /// The secret every request carries (`Authorization: Bearer SECRET`).
    pub secret: String,
}

/// The `timeout` of an HTTP hook entry, in seconds: above the server's call timeout (50 s),
/// so that a call that takes too long is answered by the server (blocked, with the reason).
pub const HTTP_TIMEOUT_SECS: u64 = 60;

/// The flag of a command entry that hands its call to the running server (starting it when
/// it does not run): `hooks claude SessionStart --via-server`.
pub const VIA_SERVER: &str = "--via-server";

/// The key of the query every HTTP entry's URL carries: `?if-unreachable=run+BINARY+serve+--detach`.
/// When Claude Code cannot reach the server (it died, or was killed) it blocks a gating call and
/// tells the model and the user `[URL]: failed; blocking because onFailure is "block"`, naming
/// the entry by its whole URL (2.1.328, measured): the query is how they learn how to bring the
/// server back. The server ignores it.
pub const UNREACHABLE_QUERY: &str = "if-unreachable";

/// What a path may hold unencoded in [`UNREACHABLE_QUERY`]'s value (a query keeps `/` as
/// is): the unreserved characters and `/`.
const PATH_IN_QUERY: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'/')
    .remove(b'.')
    .remove(b'_')
    .remove(b'-')
    .remove(b'~');

impl HttpHooks {
    /// Whether `event` is sent over HTTP: every event but `SessionStart`, which Claude Code
    /// does not send to HTTP hooks (a command entry with [`VIA_SERVER`] instead).
    #[must_use]
    pub fn over_http(event: AgentEvent) -> bool {
        event.mapping != crate::agents::Mapping::SessionStart
    }

    /// The URL of `event`'s route: `http://127.0.0.1:PORT/claude/EVENT`.
    #[must_use]
    pub fn event_url(&self, target: Target, event: AgentEvent) -> String {
        format!("{}/{}/{}", self.url, target.as_str(), event.as_str())
    }

    /// The URL of the entry for `event` that runs `binary`'s server: the route
    /// ([`HttpHooks::event_url`]) with the [`UNREACHABLE_QUERY`] naming the command that
    /// starts the server, `?if-unreachable=run+/usr/bin/hooks+serve+--detach`.
    #[must_use]
    pub fn entry_url(&self, target: Target, binary: &str, event: AgentEvent) -> String {
        let binary = utf8_percent_encode(binary, PATH_IN_QUERY);
        format!(
            "{}?{UNREACHABLE_QUERY}=run+{binary}+serve+--detach",
            self.event_url(target, event)
        )
    }

    /// Whether `url` is `event`'s route on this server, with any query or none (an entry
    /// written before the [`UNREACHABLE_QUERY`] has none).
    fn routes(&self, url: &str, target: Target, event: AgentEvent) -> bool {
        url.split_once('?').map_or(url, |(route, _)| route) == self.event_url(target, event)
    }

    /// The entry for `event`: an HTTP hook (`"onFailure": "block"` on a gating event), or for
    /// `SessionStart` a command entry running `binary` with [`VIA_SERVER`].
    fn entry(&self, target: Target, binary: &str, event: AgentEvent) -> Value {
        if !HttpHooks::over_http(event) {
            return json!({
                "type": "command",
                "command": binary,
                "args": [target.as_str(), event.as_str(), VIA_SERVER],
            });
        }
        // The session's own switches travel with each call: Claude Code fills `$VAR` from the
        // agent's environment for the names in `allowedEnvVars` (empty when unset), and the
        // server decides the call in that mode (`serve::call_headers`), not in its own.
        let mut entry = json!({
            "type": "http",
            "url": self.entry_url(target, binary, event),
            "headers": {
                "Authorization": format!("Bearer {}", self.secret),
                "X-Hooks-Mode": "$HOOKS_MODE",
                "X-Hooks-Disable": "$HOOKS_DISABLE",
            },
            "allowedEnvVars": ["HOOKS_MODE", "HOOKS_DISABLE"],
            "timeout": HTTP_TIMEOUT_SECS,
        });
        if event.mapping.is_gating() {
            entry["onFailure"] = json!("block");
        }
        entry
    }
}

/// The handler entry that `ours` adds for `event`, in the agent's form, with the fail-closed
/// key when `ours` writes it and the event gates; with `--http`, [`HttpHooks`]'s entry.
pub(super) fn handler(ours: &Ours<'_>, event: AgentEvent) -> Value {
    let (target, binary) = (ours.target, ours.binary);
    if let Some(http) = ours.http {
        return http.entry(target, binary, event);
    }
    let mut entry = match target.protocol().install().form {
        Form::Exec => json!({
            "type": "command",
            "command": ours.command.word(target, Form::Exec),
            "args": [target.as_str(), event.as_str()],
        }),
        Form::Shell => {
            let mut entry = json!({ "type": "command" });
            entry[ours.command_key()] = Value::String(shell_command(target, &ours.command, event));
            entry
        }
    };
    if let Some((key, value)) = ours.fail_closed_key(event) {
        entry[key] = value.json();
    }
    entry
}

/// The shell command line of an entry that runs `command` for `event`: `WORD TARGET EVENT`.
pub(super) fn shell_command(target: Target, command: &Command, event: AgentEvent) -> String {
    format!(
        "{} {} {}",
        command.word(target, Form::Shell),
        target.as_str(),
        event.as_str()
    )
}

/// What makes a handler this tool's (see the [module docs](super#which-entries-are-this-tools)).
pub(super) struct Ours<'a> {
    pub(super) target: Target,
    /// This binary's path (what `--http`'s entries name).
    pub(super) binary: &'a str,
    /// The command a command entry written now runs ([`super::command::choose`]).
    pub(super) command: Command,
    /// Further commands an entry of ours may run and still be up to date (they lead to this
    /// binary here, and are as portable as [`Ours::command`]).
    also: Vec<Command>,
    /// This binary's file name.
    file_name: &'a OsStr,
    /// The fail-closed key written on gating entries, when it is.
    fail_closed: Option<FailClosed>,
    /// `--http`: the server's entries are the ones written.
    pub(super) http: Option<&'a HttpHooks>,
    /// The server whose entries (its routes, the [`VIA_SERVER`] command) are this tool's
    /// too, for an agent that [takes `--http`](super::takes_http): `--http`'s, else this
    /// binary's own (the URL `hooks serve` and `install --http` derive from its path).
    server: Option<HttpHooks>,
}

impl<'a> Ours<'a> {
    /// The entries of `target` that run `binary`, a path.
    pub(super) fn new(target: Target, binary: &'a str) -> Self {
        let server = super::takes_http(target).then(|| HttpHooks {
            url: crate::serve::Endpoint::default_url(Path::new(binary)),
            secret: String::new(),
        });
        Ours {
            target,
            binary,
            command: Command::Path(binary.into()),
            also: Vec::new(),
            file_name: Path::new(binary).file_name().unwrap_or_default(),
            fail_closed: None,
            http: None,
            server,
        }
    }

    /// These entries, running `command` (and counting an entry that runs one of `also` as up
    /// to date).
    pub(super) fn with_command(mut self, command: Command, also: Vec<Command>) -> Self {
        self.command = command;
        self.also = also;
        self
    }

    /// These entries, for `--http` (and `http`'s server the one whose entries are ours).
    pub(super) fn with_http(mut self, http: Option<&'a HttpHooks>) -> Self {
        self.http = http;
        if let Some(http) = http {
            self.server = Some(http.clone());
        }
        self
    }

    /// These entries, with the agent's fail-closed key ([`FailClosed`]) on every gating one
    /// when `on_failure_block` (and the agent has such a key).
    pub(super) fn with_fail_closed(mut self, on_failure_block: bool) -> Self {
        self.fail_closed = self
            .target
            .protocol()
            .install()
            .fail_closed
            .filter(|_| on_failure_block);
        self
    }

    /// The key of an entry that holds its command line (`command`; Copilot CLI: `bash`).
    pub(super) fn command_key(&self) -> &'static str {
        self.target.protocol().install().command_key
    }

    /// The key and value our entry for `event` carries to fail closed, if any: only gating
    /// events get it.
    pub(super) fn fail_closed_key(&self, event: AgentEvent) -> Option<(&'static str, FailValue)> {
        self.fail_closed
            .filter(|_| event.mapping.is_gating())
            .map(|f| (f.key, f.value))
    }

    /// Whether `entry` is the one this install writes for `event`: this binary, in exec or
    /// shell form; with `--http`, the server's entry ([`HttpHooks::entry_url`], or the
    /// [`VIA_SERVER`] command of this binary).
    pub(super) fn runs_us(&self, entry: &Value, event: AgentEvent) -> bool {
        let (target, binary) = (self.target, self.binary);
        if let Some(http) = self.http {
            return if HttpHooks::over_http(event) {
                // The headers too: an entry of an older install (without the session's
                // switches, or with another secret) is replaced.
                let wanted = http.entry(target, binary, event);
                entry.get("type").and_then(Value::as_str) == Some("http")
                    && entry.get("url") == wanted.get("url")
                    && entry.get("headers") == wanted.get("headers")
                    && entry.get("allowedEnvVars") == wanted.get("allowedEnvVars")
            } else {
                entry.get("command").and_then(Value::as_str) == Some(binary)
                    && self.via_server(entry, event).is_some()
            };
        }
        let Some(command) = entry.get(self.command_key()).and_then(Value::as_str) else {
            return false;
        };
        let args: Option<Vec<&str>> = entry
            .get("args")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect());
        let mut commands = std::iter::once(&self.command).chain(&self.also);
        match args {
            Some(args) => {
                args == [target.as_str(), event.as_str()]
                    && commands.any(|c| command == c.word(target, Form::Exec))
            }
            None => commands.any(|c| {
                command == shell_command(target, c, event)
                    || matches!(c, Command::Path(_))
                        && command
                            == format!(
                                "{} {} {}",
                                c.word(target, Form::Exec),
                                target.as_str(),
                                event.as_str()
                            )
            }),
        }
    }

    /// What `entry` runs when it is one of the server's entries for `event` (see
    /// [`Ours::server`]): `the server at URL` for an HTTP entry to its route (with any query,
    /// so entries of older installs count), the binary's path for a [`VIA_SERVER`] command of
    /// a binary with this one's file name, from any path.
    pub(super) fn server_entry(&self, entry: &Value, event: AgentEvent) -> Option<String> {
        let server = self.server.as_ref()?;
        match entry.get("type").and_then(Value::as_str)? {
            "http" => {
                let url = entry.get("url")?.as_str()?;
                server
                    .routes(url, self.target, event)
                    .then(|| format!("the server at {}", server.url))
            }
            "command" => self.via_server(entry, event),
            _ => None,
        }
    }

    /// The binary of `entry` when it is a [`VIA_SERVER`] command entry for `event` of a
    /// binary with this one's file name, at an absolute path.
    fn via_server(&self, entry: &Value, event: AgentEvent) -> Option<String> {
        let command = entry.get("command")?.as_str()?;
        let args = entry.get("args")?.as_array()?;
        let p = Path::new(command);
        (args
            .iter()
            .map(Value::as_str)
            .eq([self.target.as_str(), event.as_str(), VIA_SERVER].map(Some))
            && p.is_absolute()
            && p.file_name() == Some(self.file_name))
        .then(|| command.to_owned())
    }

    /// Whether `entry`, under `hooks.EVENT` for `event`, is one this tool installed, in any
    /// of the forms `install` writes (what `uninstall` removes): a command entry of this
    /// binary's name from any path ([`Ours::installed_by_us`]), or one of the server's
    /// entries ([`Ours::server_entry`]: its route for the event, the `--via-server` command).
    pub(super) fn is_ours(&self, entry: &Value, event: AgentEvent) -> bool {
        self.installed_by_us(entry, event).is_some() || self.server_entry(entry, event).is_some()
    }

    /// The command and form of `entry` when it is a handler this tool installed for `event`:
    /// one of the [`Command`]s install writes (a bare name, a path in the project through the
    /// agent's variable, an absolute path) with this binary's file name.
    pub(super) fn installed_by_us(
        &self,
        entry: &Value,
        event: AgentEvent,
    ) -> Option<(Command, Form)> {
        if entry.get("type").and_then(Value::as_str) != Some("command") {
            return None;
        }
        let command = entry.get(self.command_key())?.as_str()?;
        let (word, form) = match entry.get("args") {
            Some(args) => {
                let args = args.as_array()?;
                let expected = [self.target.as_str(), event.as_str()];
                let matches = args.len() == expected.len()
                    && args
                        .iter()
                        .zip(expected)
                        .all(|(a, e)| a.as_str() == Some(e));
                (matches.then_some(command)?, Form::Exec)
            }
            None => {
                let suffix = format!(" {} {}", self.target.as_str(), event.as_str());
                (command.strip_suffix(&suffix)?, Form::Shell)
            }
        };
        let parsed = Command::parse(self.target, form, word)?;
        (parsed.file_name() == Some(self.file_name)).then_some((parsed, form))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::agents::hook_json::PRE_TOOL_USE;
    use crate::install::command::shell_unquote;
    use crate::text::shell_quote;

    fn ours(binary: &str) -> Ours<'_> {
        Ours::new(Target::Claude, binary)
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("/usr/bin/hooks"), "/usr/bin/hooks");
        assert_eq!(shell_quote("/a b/it's"), r"'/a b/it'\''s'");
    }

    #[test]
    fn shell_unquote_undoes_exactly_our_quoting() {
        for s in ["/usr/bin/hooks", "/a b/it's", "/x/'q'", ""] {
            assert_eq!(shell_unquote(&shell_quote(s)).as_deref(), Some(s), "{s}");
        }
        assert_eq!(shell_unquote("/a b/hooks"), None, "unquoted space");
        assert_eq!(shell_unquote("\"/a b/hooks\""), None, "double quotes");
        assert_eq!(shell_unquote("'/usr/bin/hooks'"), None, "needless quotes");
    }

    #[test]
    fn only_exact_commands_of_a_binary_with_our_name_count_as_ours() {
        let o = ours("/new/hooks");
        let event = PRE_TOOL_USE;
        let ours_of = |entry: Value| o.installed_by_us(&entry, event).map(|(p, _)| p);
        let old = "/old/hooks";
        assert_eq!(
            ours_of(json!({"type": "command", "command": old, "args": ["claude", "PreToolUse"]})),
            Some(Command::Path(old.into()))
        );
        assert_eq!(
            ours_of(json!({"type": "command", "command": "'/o ld/hooks' claude PreToolUse"})),
            Some(Command::Path("/o ld/hooks".into()))
        );
        // The portable forms: the bare name, and a path in the project through the variable.
        assert_eq!(
            ours_of(
                json!({"type": "command", "command": "hooks", "args": ["claude", "PreToolUse"]})
            ),
            Some(Command::Name("hooks".into()))
        );
        assert_eq!(
            ours_of(
                json!({"type": "command", "command": "${CLAUDE_PROJECT_DIR}/bin/hooks", "args": ["claude", "PreToolUse"]})
            ),
            Some(Command::InProject("bin/hooks".into()))
        );
        for other in [
            json!({"type": "command", "command": old, "args": ["claude", "Stop"]}),
            json!({"type": "command", "command": old, "args": ["codex", "PreToolUse"]}),
            json!({"type": "command", "command": old, "args": ["claude", "PreToolUse", "-v"]}),
            json!({"type": "command", "command": "/old/other-hooks", "args": ["claude", "PreToolUse"]}),
            json!({"type": "command", "command": "other-hooks", "args": ["claude", "PreToolUse"]}),
            json!({"type": "command", "command": "$CLAUDE_PROJECT_DIR/bin/hooks", "args": ["claude", "PreToolUse"]}),
            json!({"type": "command", "command": "${CLAUDE_PROJECT_DIR}/../hooks", "args": ["claude", "PreToolUse"]}),
            json!({"type": "command", "command": "${HOME}/hooks", "args": ["claude", "PreToolUse"]}),
            json!({"type": "command", "command": "bin/hooks claude PreToolUse"}),
            json!({"type": "command", "command": "/old/hooks claude PreToolUse | tee log"}),
            json!({"type": "command", "command": "nice /old/hooks claude PreToolUse"}),
            json!({"type": "prompt", "command": old, "args": ["claude", "PreToolUse"]}),
        ] {
            assert_eq!(ours_of(other.clone()), None, "{other}");
        }
    }
}
