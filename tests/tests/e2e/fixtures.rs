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
