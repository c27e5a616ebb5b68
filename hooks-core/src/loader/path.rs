//! Hook path resolution (SPEC-DETAILS section 7.2): the `@` prefix rule, Unicode spaces,
//! `file://` URLs, `~` expansion, and resolution against the loader's working directory.
//!
//! Everything takes the home directory as a parameter; nothing here reads the environment.
//! [`try_resolve_path`] is for a host without a home directory.

use std::path::{Component, Path, PathBuf};

/// The internal URL schemes after which a leading `@` is dropped.
const AT_URL_PREFIXES: &[&str] = &[
    "agent://",
    "artifact://",
    "skill://",
    "rule://",
    "local://",
    "mcp://",
];

/// Resolves a hook path as upstream does, in this order:
///
/// 1. A leading `@` is dropped only if what follows starts with `/`, is `~`, starts with `~/`,
///    is a Windows absolute path, or starts with `agent://`, `artifact://`, `skill://`,
///    `rule://`, `local://` or `mcp://` (otherwise `@name` is a literal file name).
/// 2. Unicode space characters (U+00A0, U+2000–U+200A, U+202F, U+205F, U+3000) become ASCII
///    spaces.
/// 3. A `file://` URL (prefix in any case) becomes a filesystem path; a URL that cannot be
///    converted (a host other than `localhost`, an encoded `/`, a bad escape) is kept as text.
/// 4. `~` alone becomes `home`; `~/rest` and `~\rest` become `home` followed by the rest;
///    `~other` becomes `home` joined with `other` (not a user lookup).
/// 5. An absolute result is returned as is; a relative one is joined to `cwd` and its `.` and
///    `..` components are normalised.
///
/// ```
/// use std::path::Path;
/// use hookwright::loader::path::resolve_path;
///
/// let (cwd, home) = (Path::new("/work/p"), Path::new("/home/u"));
/// assert_eq!(resolve_path("@~/h.sh", cwd, home), Path::new("/home/u/h.sh"));
/// assert_eq!(resolve_path("../q/./h.sh", cwd, home), Path::new("/work/q/h.sh"));
/// assert_eq!(resolve_path("file:///a%20b/h.sh", cwd, home), Path::new("/a b/h.sh"));
/// ```
#[must_use]
pub fn resolve_path(input: &str, cwd: &Path, home: &Path) -> PathBuf {
    let expanded = expand_path(input, home);
    absolute(expanded, cwd)
}

/// [`resolve_path`] for a host that may have no home directory: `None` when `home` is `None`
/// and the path needs it (it starts with `~` after steps 1–3), so that such a path is never
/// resolved against `cwd` instead.
///
/// ```
/// use std::path::Path;
/// use hookwright::loader::path::try_resolve_path;
///
/// let cwd = Path::new("/work/p");
/// assert_eq!(try_resolve_path("~/h.sh", cwd, None), None);
/// assert_eq!(try_resolve_path("h.sh", cwd, None).as_deref(), Some(Path::new("/work/p/h.sh")));
/// ```
#[must_use]
pub fn try_resolve_path(input: &str, cwd: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let converted = expand_until_tilde(input);
    let expanded = match home {
        Some(home) => expand_tilde(&converted, home),
        None if converted.starts_with('~') => return None,
        None => converted,
    };
    Some(absolute(expanded, cwd))
}

fn absolute(expanded: String, cwd: &Path) -> PathBuf {
    if Path::new(&expanded).is_absolute() {
        PathBuf::from(expanded)
    } else {
        normalize_lexically(&cwd.join(expanded))
    }
}

/// Steps 1–4 of [`resolve_path`]: the expanded text, not yet resolved against a directory.
#[must_use]
pub fn expand_path(input: &str, home: &Path) -> String {
    expand_tilde(&expand_until_tilde(input), home)
}

/// Steps 1–3 of [`resolve_path`].
fn expand_until_tilde(input: &str) -> String {
    let without_at = strip_at_prefix(input);
    let spaced = normalize_unicode_spaces(without_at);
    strip_file_url(&spaced)
}

fn strip_at_prefix(input: &str) -> &str {
    let Some(rest) = input.strip_prefix('@') else {
        return input;
    };
    let keeps = rest.starts_with('/')
        || rest == "~"
        || rest.starts_with("~/")
        || is_windows_absolute(rest)
        || AT_URL_PREFIXES.iter().any(|p| rest.starts_with(p));
    if keeps { rest } else { input }
}

/// Node's `path.win32.isAbsolute`: a leading `/` or `\`, or a drive letter, `:` and a slash.
fn is_windows_absolute(s: &str) -> bool {
    let b = s.as_bytes();
    matches!(b.first(), Some(b'/' | b'\\'))
        || (b.len() >= 3
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && matches!(b[2], b'/' | b'\\'))
}

fn is_unicode_space(c: char) -> bool {
    matches!(
        c,
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}'
    )
}

fn normalize_unicode_spaces(s: &str) -> String {
    s.chars()
        .map(|c| if is_unicode_space(c) { ' ' } else { c })
        .collect()
}

fn strip_file_url(s: &str) -> String {
    let is_file_url = s.len() >= 7 && s.as_bytes()[..7].eq_ignore_ascii_case(b"file://");
    if !is_file_url {
        return s.to_owned();
    }
    file_url_to_path(s).unwrap_or_else(|| s.to_owned())
}

/// Converts a `file://` URL to a POSIX path the way Node's `url.fileURLToPath` does: the host
/// must be empty or `localhost`; query and fragment are dropped; `.`/`..` segments (also
/// percent-encoded ones) are applied; `%2F` is refused; percent escapes are decoded as UTF-8.
/// `None` when the URL cannot be converted.
#[must_use]
pub fn file_url_to_path(url: &str) -> Option<String> {
    // The URL parser removes ASCII tabs and newlines anywhere and treats `\` as `/`.
    let cleaned: String = url
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .map(|c| if c == '\\' { '/' } else { c })
        .collect();
    let rest = cleaned.get(7..)?;
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let host = host.split(['?', '#']).next().unwrap_or_default();
    if !host.is_empty() && !host.eq_ignore_ascii_case("localhost") {
        return None;
    }
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let mut segments: Vec<&str> = Vec::new();
    let parts: Vec<&str> = path.split('/').skip(1).collect();
    for (i, segment) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        if is_double_dot(segment) {
            segments.pop();
            if last {
                segments.push("");
            }
        } else if is_single_dot(segment) {
            if last {
                segments.push("");
            }
        } else {
            segments.push(segment);
        }
    }
    let joined = format!("/{}", segments.join("/"));
    if joined.contains("%2F") || joined.contains("%2f") {
        return None;
    }
    percent_decode(&joined)
}

fn is_single_dot(s: &str) -> bool {
    s == "." || s.eq_ignore_ascii_case("%2e")
}

fn is_double_dot(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    matches!(lower.as_str(), ".." | ".%2e" | "%2e." | "%2e%2e")
}

/// `decodeURIComponent`: `None` on a malformed escape or bytes that are not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn expand_tilde(s: &str, home: &Path) -> String {
    let home_text = home.to_string_lossy();
    if s == "~" {
        return home_text.into_owned();
    }
    if s.starts_with("~/") || s.starts_with("~\\") {
        return format!("{home_text}{}", &s[1..]);
    }
    if let Some(rest) = s.strip_prefix('~') {
        return normalize_lexically(&home.join(rest))
            .to_string_lossy()
            .into_owned();
    }
    s.to_owned()
}

/// Removes `.` components and applies `..` components without touching the filesystem (no
/// symlink resolution), as Node's `path.resolve`/`path.join` do; `..` never goes above the
/// root. Trailing slashes disappear.
#[must_use]
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    let mut depth = 0usize;
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => out.push(component.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                if depth > 0 {
                    out.pop();
                    depth -= 1;
                } else if !out.has_root() {
                    out.push("..");
                }
            }
            Component::Normal(part) => {
                out.push(part);
                depth += 1;
            }
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_urls_convert_like_node() {
        let cases = [
            ("file:///a/b.sh", Some("/a/b.sh")),
            ("FILE:///a/b.sh", Some("/a/b.sh")),
            ("file://localhost/a", Some("/a")),
            ("file://host/a", None),
            ("file:///a%2Fb", None),
            ("file:///a%zz", None),
            ("file:///a/../b/./c", Some("/b/c")),
            ("file:///a/%2e%2e/b", Some("/b")),
            ("file:///a/b/..", Some("/a/")),
            ("file:///a?x=1#f", Some("/a")),
            ("file:///%C3%A9", Some("/é")),
            ("file://", Some("/")),
        ];
        for (url, want) in cases {
            assert_eq!(file_url_to_path(url).as_deref(), want, "{url}");
        }
    }

    #[test]
    fn normalize_never_climbs_above_root() {
        assert_eq!(
            normalize_lexically(Path::new("/a/../../b/")),
            Path::new("/b")
        );
        assert_eq!(
            normalize_lexically(Path::new("/a/./b//c")),
            Path::new("/a/b/c")
        );
    }
}
