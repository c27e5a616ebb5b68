//! The docs check: README.md, every file of docs/ and the packages' READMEs stay true to the tree
//! and the binary. Their Rust blocks are doctests (`tests/src/lib.rs`); here: every relative link resolves (file and
//! heading), every `hooks` command line in a shell block parses with the real command line,
//! every JSON block parses, and no path of an author's machine is left in them.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is inside the workspace")
        .to_path_buf()
}

/// README.md, docs/*.md and the published packages' READMEs (their crates.io pages): path and
/// text.
fn docs() -> Vec<(PathBuf, String)> {
    let root = root();
    let mut files = vec![root.join("README.md")];
    for package in [
        "hooks-core",
        "hooks-macros",
        "hooks-bin",
        "examples",
        "hooks-guards",
    ] {
        files.push(root.join(package).join("README.md"));
    }
    if let Ok(dir) = std::fs::read_dir(root.join("docs")) {
        let mut more: Vec<PathBuf> = dir
            .map(|e| e.expect("a docs entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        more.sort();
        files.extend(more);
    }
    files
        .into_iter()
        .map(|p| {
            let text =
                std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, text)
        })
        .collect()
}

/// A fenced block: its info string, first line number (1-based, of its first content line) and
/// lines.
struct Block<'a> {
    info: &'a str,
    line: usize,
    lines: Vec<&'a str>,
}

fn blocks(text: &str) -> Vec<Block<'_>> {
    let mut out = Vec::new();
    let mut open: Option<Block<'_>> = None;
    for (i, line) in text.lines().enumerate() {
        if let Some(info) = line.strip_prefix("```") {
            match open.take() {
                Some(block) => out.push(block),
                None => {
                    open = Some(Block {
                        info: info.trim(),
                        line: i + 2,
                        lines: Vec::new(),
                    });
                }
            }
        } else if let Some(block) = open.as_mut() {
            block.lines.push(line);
        }
    }
    out
}

/// The text outside fenced blocks and inline code spans.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            out.push('\n');
            continue;
        }
        if !fenced {
            let mut inline = false;
            for c in line.chars() {
                if c == '`' {
                    inline = !inline;
                } else if !inline {
                    out.push(c);
                }
            }
        }
        out.push('\n');
    }
    out
}

/// GitHub's anchor of a heading.
fn slug(title: &str) -> String {
    title
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == ' ' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            let title = line.trim_start_matches('#');
            if title.starts_with(' ') {
                out.push(slug(title));
            }
        }
    }
    out
}

#[test]
fn every_relative_link_in_the_docs_resolves_to_a_file_and_heading() {
    let link = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let mut broken = Vec::new();
    for (path, text) in docs() {
        for m in link.captures_iter(&prose(&text)) {
            let target = &m[1];
            if target.starts_with("http://")
                || target.starts_with("https://")
                || target.starts_with("mailto:")
            {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            let file = if file.is_empty() {
                path.clone()
            } else {
                path.parent().unwrap().join(file)
            };
            if !file.exists() {
                broken.push(format!("{}: {target}: no such file", path.display()));
                continue;
            }
            if !anchor.is_empty() {
                let text = std::fs::read_to_string(&file).unwrap_or_default();
                if !anchors(&text).iter().any(|a| a == anchor) {
                    broken.push(format!("{}: {target}: no such heading", path.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_docs_name_no_path_of_an_authors_machine() {
    let machine = regex::Regex::new(r#"(^|[\s"'(=:])/(work|root|Users)/"#).unwrap();
    let mut found = Vec::new();
    for (path, text) in docs() {
        for (i, line) in text.lines().enumerate() {
            if machine.is_match(line) {
                found.push(format!("{}:{}: {line}", path.display(), i + 1));
            }
        }
    }
    assert!(found.is_empty(), "machine paths:\n{}", found.join("\n"));
}

/// The arguments of a `hooks` command line in a shell block (`hooks ...`, `target/*/hooks ...`,
/// `cargo run -p hookwright-cli -- ...`, after a `$ ` prompt in a console block), without comment,
/// redirection or what follows a pipe; `None` for other lines.
fn hooks_args(line: &str, console: bool) -> Option<Vec<String>> {
    let line = if console {
        line.strip_prefix("$ ")?
    } else {
        line
    };
    let line = line.split(" #").next()?.trim();
    let cut = line
        .split(['|', '<', '>', ';'])
        .next()?
        .split("&&")
        .next()?
        .trim();
    let words = shlex::split(cut)?;
    let rest = match words.first()?.as_str() {
        "hooks" => &words[1..],
        w if w.ends_with("/hooks") => &words[1..],
        "cargo" => {
            let dash = words.iter().position(|w| w == "--")?;
            if !words.windows(2).any(|p| p == ["-p", "hookwright-cli"]) || words.get(1)? != "run" {
                return None;
            }
            &words[dash + 1..]
        }
        _ => return None,
    };
    Some(rest.to_vec())
}

#[test]
fn every_hooks_command_line_in_the_docs_parses() {
    let mut bad = Vec::new();
    let mut seen = 0;
    for (path, text) in docs() {
        for block in blocks(&text) {
            let console = block.info == "console";
            if !matches!(block.info, "sh" | "bash" | "console") {
                continue;
            }
            for (i, line) in block.lines.iter().enumerate() {
                let Some(args) = hooks_args(line, console) else {
                    continue;
                };
                seen += 1;
                let argv = std::iter::once("hooks".to_owned()).chain(args);
                if let Err(e) = hookwright_cli::command().try_get_matches_from(argv)
                    && e.kind() != clap::error::ErrorKind::DisplayHelp
                    && e.kind() != clap::error::ErrorKind::DisplayVersion
                {
                    let first = e.to_string().lines().next().unwrap_or_default().to_owned();
                    let at = block.line + i;
                    bad.push(format!("{}:{at}: {line}: {first}", path.display()));
                }
            }
        }
    }
    assert!(
        seen > 10,
        "only {seen} hooks command lines found: is the parser broken?"
    );
    assert!(
        bad.is_empty(),
        "command lines that do not parse:\n{}",
        bad.join("\n")
    );
}

#[test]
fn every_json_block_in_the_docs_parses() {
    let mut bad = Vec::new();
    for (path, text) in docs() {
        for block in blocks(&text) {
            let body = block.lines.join("\n");
            let parsed: Result<(), String> = match block.info {
                "json" => serde_json::from_str::<serde_json::Value>(&body)
                    .map(drop)
                    .map_err(|e| e.to_string()),
                "jsonl" => block
                    .lines
                    .iter()
                    .filter(|l| !l.trim().is_empty())
                    .try_for_each(|l| serde_json::from_str::<serde_json::Value>(l).map(drop))
                    .map_err(|e| e.to_string()),
                _ => Ok(()),
            };
            if let Err(e) = parsed {
                bad.push(format!("{}:{}: {e}", path.display(), block.line));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "JSON blocks that do not parse:\n{}",
        bad.join("\n")
    );
}
