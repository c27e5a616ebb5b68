//! Files the scenarios put in front of an agent, and edits to its hook settings.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// The secret value: it must reach no model request once the redactor has run.
pub(crate) const SECRET: &str = "sk-e2e-51f0c0ffee7e57ab1e";

/// A line the example redactor rewrites (`API_KEY=<non-space run>`).
pub(crate) fn secret_line() -> String {
    format!("API_KEY={SECRET}")
}

/// What the redactor leaves of [`secret_line`].
pub(crate) const REDACTED: &str = "API_KEY=[REDACTED]";

/// A Jupyter notebook with the secret in a code cell's source and in its output.
pub(crate) fn notebook() -> String {
    json!({
        "cells": [{
            "cell_type": "code", "execution_count": 1, "id": "c1", "metadata": {},
            "source": [format!("print('{}')\n", secret_line())],
            "outputs": [{"name": "stdout", "output_type": "stream", "text": [secret_line() + "\n"]}],
        }],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5,
    })
    .to_string()
}

/// A Jupyter notebook with the secret in a code cell's source and a PNG ([`png`]) as the
/// cell's output.
pub(crate) fn notebook_with_image() -> String {
    use base64::Engine as _;
    let png = base64::engine::general_purpose::STANDARD.encode(png());
    json!({
        "cells": [{
            "cell_type": "code", "execution_count": 1, "id": "c1", "metadata": {},
            "source": [format!("key = '{}'\n", secret_line())],
            "outputs": [{"output_type": "display_data", "metadata": {},
                         "data": {"image/png": png, "text/plain": ["<Figure size 8x8>"]}}],
        }],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5,
    })
    .to_string()
}

/// A one-page PDF whose (uncompressed) text is the secret line.
pub(crate) fn pdf() -> Vec<u8> {
    let text = format!("BT /F1 12 Tf 72 720 Td ({}) Tj ET", secret_line());
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_owned(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R \
         /Resources << /Font << /F1 5 0 R >> >> >>"
            .to_owned(),
        format!("<< /Length {} >>\nstream\n{text}\nendstream", text.len()),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_owned(),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// An 8x8 grey PNG.
pub(crate) fn png() -> Vec<u8> {
    let (width, height) = (8_u32, 8_u32);
    let mut raw = Vec::new();
    for _ in 0..height {
        raw.push(0); // filter: none
        raw.extend(std::iter::repeat_n(0x80, width as usize));
    }
    // zlib stream of one stored deflate block
    let len = u16::try_from(raw.len()).expect("small image");
    let mut zlib = vec![0x78, 0x01, 0x01];
    zlib.extend_from_slice(&len.to_le_bytes());
    zlib.extend_from_slice(&(!len).to_le_bytes());
    zlib.extend_from_slice(&raw);
    zlib.extend_from_slice(&adler32(&raw).to_be_bytes());
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 0, 0, 0, 0]); // 8-bit greyscale
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    for (kind, data) in [(b"IHDR", ihdr), (b"IDAT", zlib), (b"IEND", Vec::new())] {
        out.extend_from_slice(
            &u32::try_from(data.len())
                .expect("small chunk")
                .to_be_bytes(),
        );
        let mut crc_input = kind.to_vec();
        crc_input.extend_from_slice(&data);
        out.extend_from_slice(&crc_input);
        out.extend_from_slice(&crc32(&crc_input).to_be_bytes());
    }
    out
}

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1_u32, 0_u32);
    for byte in data {
        a = (a + u32::from(*byte)) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xffff_ffff_u32;
    for byte in data {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A stand-in for poppler's `pdftoppm` in `dir` (which Claude Code runs to read a PDF's pages
/// as images): `-v` answers a version, any other call writes one small JPEG page,
/// `PREFIX-1.jpg`, for the output prefix it is given last.
pub(crate) fn pdftoppm_stand_in(dir: &Path) -> PathBuf {
    fs::create_dir_all(dir).expect("stand-in directory");
    script(
        &dir.join("pdftoppm"),
        &format!(
            "if [ \"$1\" = -v ]; then echo 'pdftoppm version 22.12.0' >&2; exit 0; fi\n\
             for last; do :; done\n\
             echo '{JPEG}' | base64 -d > \"$last-1.jpg\""
        ),
    )
}

/// The page [`pdftoppm_stand_in`] writes: a 1x1 JPEG, base64.
pub(crate) const JPEG: &str = "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=";

/// Writes an executable `sh` script at `path`.
pub(crate) fn script(path: &Path, body: &str) -> PathBuf {
    fs::write(path, format!("#!/bin/sh\n{body}\n")).expect("write script");
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).expect("chmod script");
    path.to_path_buf()
}

/// A hook command that appends its input (one JSON line) to `log`: what the agent sent.
pub(crate) fn recorder(dir: &Path, log: &Path) -> PathBuf {
    script(
        &dir.join("record-hook-input.sh"),
        &format!("cat >> '{}'\necho >> '{}'", log.display(), log.display()),
    )
}

/// A hook command that runs the command given as its arguments with its own stdin, answers
/// what that answered (stdout, exit code), and records each call under `dir/tee/` ([`teed`]):
/// what the agent sent the real hook and what it answered.
pub(crate) fn tee(dir: &Path) -> PathBuf {
    let calls = dir.join("tee");
    fs::create_dir_all(&calls).expect("tee directory");
    script(
        &dir.join("tee-hook.sh"),
        &format!(
            r#"calls='{}'
n="$(date +%s%N)-$$"
cat > "$calls/$n.in"
"$@" < "$calls/$n.in" > "$calls/$n.out"
code=$?
echo "$code" > "$calls/$n.code"
cat "$calls/$n.out"
exit "$code""#,
            calls.display()
        ),
    )
}

/// The names, without `suffix`, of the files in `dir` that end with it, in order: the
/// stamps of the calls a hook script recorded there (each call's files are named by the
/// time it started).
fn stamps(dir: &Path, suffix: &str) -> Vec<String> {
    let mut stamps: Vec<String> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(suffix))
                .map(str::to_owned)
        })
        .collect();
    stamps.sort();
    stamps
}

/// The calls a [`tee`] in `dir` recorded, in order: `(input, output, code)`.
pub(crate) fn teed(dir: &Path) -> Vec<(Value, String, i64)> {
    let calls = dir.join("tee");
    stamps(&calls, ".code")
        .into_iter()
        .map(|n| {
            let read = |ext: &str| {
                fs::read_to_string(calls.join(format!("{n}.{ext}"))).unwrap_or_default()
            };
            let input = read("in");
            (
                serde_json::from_str(&input).unwrap_or(Value::String(input)),
                read("out"),
                read("code").trim().parse().unwrap_or(-1),
            )
        })
        .collect()
}

/// The JSON lines a [`recorder`] wrote.
pub(crate) fn recorded(log: &Path) -> Vec<Value> {
    fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Reads a hook settings file (`{"hooks": {EVENT: [groups]}}`, Claude's settings.json and
/// Codex's hooks.json alike).
pub(crate) fn read_settings(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {}: {e}", path.display()))
}

/// Writes a hook settings file back.
pub(crate) fn write_settings(path: &Path, settings: &Value) {
    let text = serde_json::to_string_pretty(settings).expect("settings serialise");
    fs::write(path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

/// Adds a group with one handler to `event` in a hook settings file.
pub(crate) fn add_handler(path: &Path, event: &str, handler: Value) {
    let mut settings = read_settings(path);
    let groups = settings["hooks"][event]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut groups = groups;
    groups.push(json!({ "hooks": [handler] }));
    settings["hooks"][event] = Value::Array(groups);
    write_settings(path, &settings);
}

/// Removes the handler groups of `event` in a hook settings file that hold a handler `drop`
/// accepts.
pub(crate) fn remove_handlers(path: &Path, event: &str, drop: impl Fn(&Value) -> bool) {
    let mut settings = read_settings(path);
    if let Some(groups) = settings["hooks"][event].as_array_mut() {
        groups.retain(|group| {
            !group["hooks"]
                .as_array()
                .is_some_and(|handlers| handlers.iter().any(&drop))
        });
    }
    write_settings(path, &settings);
}

/// Applies `edit` to every handler of every event in a hook settings file.
pub(crate) fn edit_handlers(path: &Path, mut edit: impl FnMut(&str, &mut Value)) {
    let mut settings = read_settings(path);
    if let Some(events) = settings["hooks"].as_object_mut() {
        for (event, groups) in events.iter_mut() {
            for group in groups.as_array_mut().into_iter().flatten() {
                for handler in group["hooks"].as_array_mut().into_iter().flatten() {
                    edit(event, handler);
                }
            }
        }
    }
    write_settings(path, &settings);
}

/// Reads a JSON settings file, or `{}` when there is none yet.
pub(crate) fn read_settings_or_empty(path: &Path) -> Value {
    if path.exists() {
        read_settings(path)
    } else {
        json!({})
    }
}

/// Adds `group` (`{"matcher"?, "hooks": [handlers]}`) to `event` in a Claude-style hook
/// settings file (Gemini CLI, Qwen Code, Factory Droid, Copilot CLI's Claude format), creating
/// the file and its directory when missing.
pub(crate) fn add_group(path: &Path, event: &str, group: Value) {
    let mut settings = read_settings_or_empty(path);
    let mut groups = settings["hooks"][event]
        .as_array()
        .cloned()
        .unwrap_or_default();
    groups.push(group);
    settings["hooks"][event] = Value::Array(groups);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("settings directory");
    }
    write_settings(path, &settings);
}

/// Sets `pointer` (`/a/b`) to `value` in a JSON settings file, creating it when missing.
pub(crate) fn set_setting(path: &Path, pointer: &str, value: Value) {
    let mut settings = read_settings_or_empty(path);
    let mut at = &mut settings;
    for key in pointer.trim_start_matches('/').split('/') {
        if !at.is_object() {
            *at = json!({});
        }
        at = &mut at[key];
    }
    *at = value;
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("settings directory");
    }
    write_settings(path, &settings);
}

/// What a [`Recorder`] answers to one call.
#[derive(Debug, Clone, Default)]
pub(crate) struct Answer {
    /// Printed on stdout.
    pub(crate) stdout: String,
    /// Printed on stderr.
    pub(crate) stderr: String,
    /// The exit code.
    pub(crate) code: i32,
    /// Seconds to sleep first.
    pub(crate) sleep: Option<u32>,
}

impl Answer {
    /// Exit 0 with `json` on stdout.
    pub(crate) fn json(json: &Value) -> Answer {
        Answer {
            stdout: json.to_string(),
            ..Answer::default()
        }
    }

    /// Exit `code` with `stderr` on stderr and nothing on stdout.
    pub(crate) fn exit(code: i32, stderr: &str) -> Answer {
        Answer {
            stderr: stderr.to_owned(),
            code,
            ..Answer::default()
        }
    }

    /// Exit 0 with `text` on stdout.
    pub(crate) fn text(text: &str) -> Answer {
        Answer {
            stdout: text.to_owned(),
            ..Answer::default()
        }
    }
}

/// One call a [`Recorder`] received.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    /// Its arguments (the first is the event it was installed for).
    pub(crate) argv: Vec<String>,
    /// Its stdin as JSON (`Value::String` with the raw text when it is not JSON).
    pub(crate) input: Value,
}

impl Call {
    /// The event it was installed for (its first argument).
    pub(crate) fn event(&self) -> &str {
        self.argv.first().map_or("", String::as_str)
    }
}

/// A hook command (a `sh` script) that records every call, its argv and its stdin, under its
/// directory and answers what the scenario told it for that event: the answer for the N-th
/// call of an event if there is one ([`Recorder::answer_call`]), else the event's answer
/// ([`Recorder::answer`]), else nothing (exit 0, no output). No hooks adapter is involved: it
/// shows what the agent sends and what it does with an answer.
pub(crate) struct Recorder {
    dir: PathBuf,
    script: PathBuf,
}

impl Recorder {
    /// A recorder keeping its calls and answers under `dir`.
    pub(crate) fn new(dir: &Path) -> Recorder {
        fs::create_dir_all(dir.join("calls")).expect("recorder calls directory");
        fs::create_dir_all(dir.join("answer")).expect("recorder answer directory");
        let quoted = format!("'{}'", dir.display());
        let script = script(
            &dir.join("record-hook.sh"),
            &format!(
                r#"dir={quoted}
event="$1"
stamp="$(date +%s%N)-$$"
printf '%s\n' "$@" > "$dir/calls/$stamp.argv.tmp"
cat > "$dir/calls/$stamp.in"
mv "$dir/calls/$stamp.argv.tmp" "$dir/calls/$stamp.argv"
n=$(grep -lxF -- "$event" "$dir"/calls/*.argv | wc -l)
a="$dir/answer/$event.$n"
[ -d "$a" ] || a="$dir/answer/$event"
if [ -d "$a" ]; then
  [ -f "$a/sleep" ] && sleep "$(cat "$a/sleep")"
  [ -f "$a/stderr" ] && cat "$a/stderr" >&2
  [ -f "$a/stdout" ] && cat "$a/stdout"
  [ -f "$a/code" ] && exit "$(cat "$a/code")"
fi
exit 0"#
            ),
        );
        Recorder {
            dir: dir.to_path_buf(),
            script,
        }
    }

    /// The shell command line that runs the recorder for `event`.
    pub(crate) fn command(&self, event: &str) -> String {
        format!("'{}' {event}", self.script.display())
    }

    /// Answers every call of `event` (without an answer of its own) with `answer`.
    pub(crate) fn answer(&self, event: &str, answer: &Answer) {
        self.write_answer(&self.dir.join("answer").join(event), answer);
    }

    /// Answers the `n`-th call (from 1) of `event` with `answer`.
    pub(crate) fn answer_call(&self, event: &str, n: usize, answer: &Answer) {
        self.write_answer(
            &self.dir.join("answer").join(format!("{event}.{n}")),
            answer,
        );
    }

    fn write_answer(&self, dir: &Path, answer: &Answer) {
        let _ = fs::remove_dir_all(dir);
        fs::create_dir_all(dir).expect("answer directory");
        fs::write(dir.join("stdout"), &answer.stdout).expect("answer stdout");
        fs::write(dir.join("stderr"), &answer.stderr).expect("answer stderr");
        fs::write(dir.join("code"), answer.code.to_string()).expect("answer code");
        if let Some(secs) = answer.sleep {
            fs::write(dir.join("sleep"), secs.to_string()).expect("answer sleep");
        }
    }

    /// Every call so far, in the order they started.
    pub(crate) fn calls(&self) -> Vec<Call> {
        stamps(&self.dir.join("calls"), ".argv")
            .into_iter()
            .map(|stamp| {
                let calls = self.dir.join("calls");
                let argv = fs::read_to_string(calls.join(format!("{stamp}.argv")))
                    .unwrap_or_default()
                    .lines()
                    .map(str::to_owned)
                    .collect();
                let raw = fs::read_to_string(calls.join(format!("{stamp}.in"))).unwrap_or_default();
                let input = serde_json::from_str(&raw).unwrap_or(Value::String(raw));
                Call { argv, input }
            })
            .collect()
    }

    /// The inputs of the calls of `event`, in order.
    pub(crate) fn inputs(&self, event: &str) -> Vec<Value> {
        self.calls()
            .into_iter()
            .filter(|c| c.event() == event)
            .map(|c| c.input)
            .collect()
    }

    /// The events of the calls so far, in order.
    pub(crate) fn events(&self) -> Vec<String> {
        self.calls().iter().map(|c| c.event().to_owned()).collect()
    }
}

/// Where the recorded hook inputs of `agent` are kept for the adapters' unit tests
/// (`tests/fixtures/agents/<agent>/<Event>.json`).
pub(crate) fn agent_fixture_dir(agent: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join("agents")
        .join(agent)
}

/// The environment variable that makes [`check_agent_fixtures`] write the fixtures from the run
/// instead of comparing.
pub(crate) const WRITE_FIXTURES_ENV: &str = "HOOKS_E2E_WRITE_FIXTURES";

/// `input` with the sandbox's root replaced by `/e2e` (so `$HOME` is `/e2e/home` and the
/// project `/e2e/project`) in every string, also where an agent spells a path with dashes for
/// slashes (`-tmp-e2e-x-AbC123-project` in a session directory's name becomes `-e2e-project`).
pub(crate) fn scrub(input: &Value, root: &Path) -> Value {
    fn replace(value: &Value, root: &str) -> Value {
        match value {
            Value::String(s) => Value::String(
                s.replace(root, "/e2e")
                    .replace(&root.replace('/', "-"), "-e2e"),
            ),
            Value::Array(items) => Value::Array(items.iter().map(|v| replace(v, root)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), replace(v, root)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
    replace(input, &root.display().to_string())
}

/// The shape of a JSON value: each object's keys with the shapes of their values, an array as
/// the shape of its first item, any other value as its type name.
pub(crate) fn shape(value: &Value) -> Value {
    match value {
        Value::Null => json!("null"),
        Value::Bool(_) => json!("boolean"),
        Value::Number(_) => json!("number"),
        Value::String(_) => json!("string"),
        Value::Array(items) => json!([items.first().map_or(json!("empty"), shape)]),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), shape(v))).collect())
        }
    }
}

/// For each `(event, input)`: the input (scrubbed of the sandbox's `root`) has the shape of the
/// agent's fixture `<event>.json`; with [`WRITE_FIXTURES_ENV`] set the fixture is written
/// instead. Returns one line per difference (a missing fixture is one).
pub(crate) fn check_agent_fixtures(
    agent: &str,
    root: &Path,
    inputs: &[(&str, &Value)],
) -> Vec<String> {
    let dir = agent_fixture_dir(agent);
    let write = std::env::var_os(WRITE_FIXTURES_ENV).is_some();
    let mut differences = Vec::new();
    for (event, input) in inputs {
        let path = dir.join(format!("{event}.json"));
        let scrubbed = scrub(input, root);
        if write {
            fs::create_dir_all(&dir).expect("fixture directory");
            let text = serde_json::to_string_pretty(&scrubbed).expect("fixture serialises");
            fs::write(&path, text + "\n").expect("write fixture");
            continue;
        }
        let Ok(text) = fs::read_to_string(&path) else {
            differences.push(format!(
                "{}: missing ({WRITE_FIXTURES_ENV}=1 writes it)",
                path.display()
            ));
            continue;
        };
        let fixture: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{} is no JSON: {e}", path.display()));
        if shape(&fixture) != shape(&scrubbed) {
            differences.push(format!(
                "{event}: the agent sent {} but {} has {}",
                shape(&scrubbed),
                path.display(),
                shape(&fixture)
            ));
        }
    }
    differences
}
