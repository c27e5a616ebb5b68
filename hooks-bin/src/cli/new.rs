//! `hooks new NAME`: scaffolds a bundle crate with its host binary, one guard, its tests (with
//! the test kit), a README and a CI workflow; `cargo test` inside it passes at once.
//!
//! The crate depends on the framework by path when `--path` names a checkout of it (or when
//! this binary was built from a git checkout that is still there), else by version from the
//! registry. It is written into a temporary directory beside its place and moved there whole:
//! an existing directory is never touched, and a failure leaves nothing behind.

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Options of `hooks new`.
#[derive(Debug, Clone, clap::Args)]
pub struct NewArgs {
    /// The crate's name (letters, digits, `-` and `_`, starting with a letter); also its
    /// directory's and its binary's.
    pub name: String,
    /// A checkout of this framework to depend on by path (offline, or to try unreleased
    /// changes) [default: the checkout this binary was built from, when it is a git checkout
    /// that is still there; else the registry].
    #[arg(long, value_name = "DIR")]
    pub path: Option<PathBuf>,
    /// The directory to create [default: NAME, in the current directory].
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// Exit status and files of `hooks new`, for `--help`.
pub const NEW_HELP: &str = "Creates NAME/ with Cargo.toml, src/lib.rs (one guard: a forced git \
push is blocked), src/main.rs (the host binary: every hooks command for this crate's hooks), \
tests/guard.rs (the guard through hookwright::testing and as Claude Code's call), README.md, \
.gitignore and .github/workflows/test.yml. Then: cd NAME && cargo test.

Exit status: 0 created; 1 the directory exists or cannot be written (nothing is left behind); \
2 invalid usage (a name cargo would refuse, a --path that is not a checkout of this framework).";

/// The framework's packages as the new crate names them.
struct Framework {
    core: hookwright::Package,
    bin: hookwright::Package,
    /// The checkout to depend on by path; `None`: the registry.
    checkout: Option<PathBuf>,
}

impl Framework {
    /// The dependency on `package` (`features`: its features) as a TOML inline table.
    fn dependency(&self, package: hookwright::Package, folder: &str, features: &[&str]) -> String {
        let mut table = match &self.checkout {
            Some(dir) => format!("{{ path = {}", toml_string(&dir.join(folder))),
            None => format!("{{ version = \"{}\"", package.version),
        };
        if !features.is_empty() {
            let quoted: Vec<String> = features.iter().map(|f| format!("\"{f}\"")).collect();
            let _ = write!(table, ", features = [{}]", quoted.join(", "));
        }
        table + " }"
    }
}

/// `path` as a TOML basic string.
fn toml_string(path: &Path) -> String {
    let text = path.to_string_lossy();
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out + "\""
}

/// This framework's packages, as the crate being written depends on them.
fn framework(path: Option<&Path>) -> Result<Framework, String> {
    let bin = hookwright::Package {
        name: env!("CARGO_PKG_NAME"),
        lib: env!("CARGO_CRATE_NAME"),
        version: env!("CARGO_PKG_VERSION"),
    };
    let core = hookwright::PACKAGE;
    let checkout = match path {
        Some(dir) => {
            let dir =
                std::fs::canonicalize(dir).map_err(|e| format!("--path {}: {e}", dir.display()))?;
            if !is_checkout(&dir) {
                return Err(format!(
                    "--path {}: not a checkout of this framework (no hooks-core/Cargo.toml and \
                     hooks-bin/Cargo.toml in it)",
                    dir.display()
                ));
            }
            Some(dir)
        }
        None => built_from().filter(|dir| dir.join(".git").exists()),
    };
    Ok(Framework {
        core,
        bin,
        checkout,
    })
}

/// Whether `dir` holds this framework's packages.
fn is_checkout(dir: &Path) -> bool {
    dir.join("hooks-core/Cargo.toml").is_file() && dir.join("hooks-bin/Cargo.toml").is_file()
}

/// The checkout this binary was built from, when it is still there.
fn built_from() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?;
    is_checkout(dir).then(|| dir.to_path_buf())
}

/// Why `name` cannot be a crate's name, if it cannot.
fn invalid_name(name: &str) -> Option<String> {
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move",
        "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait",
        "true", "type", "unsafe", "use", "where", "while", "test", "core", "std", "alloc",
    ];
    let first = name.chars().next();
    if !first.is_some_and(|c| c.is_ascii_alphabetic()) {
        return Some("it must start with a letter".to_owned());
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
    {
        return Some(format!("{c:?} is not a letter, a digit, `-` or `_`"));
    }
    let lib = name.replace('-', "_");
    if KEYWORDS.contains(&lib.as_str()) {
        return Some("it is a Rust keyword or a name of the standard library".to_owned());
    }
    let core = hookwright::PACKAGE;
    if [
        core.name,
        core.lib,
        env!("CARGO_PKG_NAME"),
        env!("CARGO_CRATE_NAME"),
    ]
    .contains(&name)
    {
        return Some("it is the name of one of the framework's own packages".to_owned());
    }
    None
}

/// The files of the new crate `name`: path under its directory, content.
fn files(name: &str, fw: &Framework) -> Vec<(&'static str, String)> {
    let lib = name.replace('-', "_");
    let fill = |template: &str| {
        template
            .replace("{{name}}", name)
            .replace("{{crate}}", &lib)
            .replace("{{core}}", fw.core.name)
            .replace("{{core_lib}}", fw.core.lib)
            .replace("{{bin}}", fw.bin.name)
            .replace("{{bin_lib}}", fw.bin.lib)
            .replace("{{core_dep}}", &fw.dependency(fw.core, "hooks-core", &[]))
            .replace(
                "{{core_dev_dep}}",
                &fw.dependency(fw.core, "hooks-core", &["testing"]),
            )
            .replace("{{bin_dep}}", &fw.dependency(fw.bin, "hooks-bin", &[]))
    };
    vec![
        (
            "Cargo.toml",
            fill(include_str!("../../templates/new/Cargo.toml.tmpl")),
        ),
        (
            "src/lib.rs",
            fill(include_str!("../../templates/new/lib.rs.tmpl")),
        ),
        (
            "src/main.rs",
            fill(include_str!("../../templates/new/main.rs.tmpl")),
        ),
        (
            "tests/guard.rs",
            fill(include_str!("../../templates/new/test.rs.tmpl")),
        ),
        (
            "README.md",
            fill(include_str!("../../templates/new/README.md.tmpl")),
        ),
        (
            ".gitignore",
            fill(include_str!("../../templates/new/gitignore.tmpl")),
        ),
        (
            ".github/workflows/test.yml",
            fill(include_str!("../../templates/new/ci.yml.tmpl")),
        ),
    ]
}

/// Writes `files` into a new directory `dir`, whole or not at all.
fn write_new(dir: &Path, files: &[(&str, String)]) -> io::Result<()> {
    if std::fs::symlink_metadata(dir).is_ok() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "it exists; nothing was written",
        ));
    }
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let staging = tempfile::Builder::new()
        .prefix(".hooks-new-")
        .tempdir_in(&parent)?;
    for (rel, content) in files {
        let path = staging.path().join(rel);
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder)?;
        }
        std::fs::write(&path, content)?;
    }
    // The staging directory is the user's own (0700): the crate gets the usual mode.
    set_dir_mode(staging.path())?;
    // A rename onto an existing directory fails unless it is empty: checked above, and the
    // rename does not replace a directory made in between that holds anything.
    std::fs::rename(staging.path(), dir)?;
    // Renamed away: nothing for the temporary directory to delete.
    let _ = staging.keep();
    Ok(())
}

/// Gives `dir` the mode a new directory gets under the process's umask.
fn set_dir_mode(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let fresh = dir.join(".mode");
    std::fs::create_dir(&fresh)?;
    let mode = std::fs::metadata(&fresh)?.permissions().mode();
    std::fs::remove_dir(&fresh)?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode))
}

/// `hooks new`.
#[must_use]
pub fn run(args: &NewArgs) -> ExitCode {
    if let Some(why) = invalid_name(&args.name) {
        eprintln!("hooks new: {:?} cannot be a crate's name: {why}", args.name);
        return ExitCode::from(2);
    }
    let fw = match framework(args.path.as_deref()) {
        Ok(fw) => fw,
        Err(e) => {
            eprintln!("hooks new: {e}");
            return ExitCode::from(2);
        }
    };
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(&args.name));
    if let Err(e) = write_new(&dir, &files(&args.name, &fw)) {
        eprintln!("hooks new: {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    let from = match &fw.checkout {
        Some(checkout) => format!("by path, from the checkout {}", checkout.display()),
        None => format!(
            "from the registry: {} {} and {} {}",
            fw.core.name, fw.core.version, fw.bin.name, fw.bin.version
        ),
    };
    println!("Created {} (the framework {from}).", dir.display());
    println!("Next: cd {} && cargo test", dir.display());
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cargo_would_refuse_are_refused_with_the_reason() {
        assert_eq!(invalid_name("my-hooks"), None);
        assert_eq!(invalid_name("guards_2"), None);
        assert!(invalid_name("").is_some());
        assert!(invalid_name("2fast").unwrap().contains("letter"));
        assert!(invalid_name("a b").unwrap().contains("' '"));
        assert!(invalid_name("async").unwrap().contains("keyword"));
        assert!(
            invalid_name(hookwright::PACKAGE.name)
                .unwrap()
                .contains("framework")
        );
    }

    #[test]
    fn a_path_in_toml_is_quoted_and_escaped() {
        assert_eq!(toml_string(Path::new("/a \"b\"\\c")), r#""/a \"b\"\\c""#);
    }

    #[test]
    fn the_scaffold_fills_every_placeholder() {
        let fw = Framework {
            core: hookwright::PACKAGE,
            bin: hookwright::PACKAGE,
            checkout: None,
        };
        for (rel, content) in files("demo-hooks", &fw) {
            assert!(!content.contains("{{"), "{rel}: {content}");
        }
    }
}
