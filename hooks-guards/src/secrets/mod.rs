//! Secrets in tool output, found by a maintained pattern set and redacted before the model
//! reads them.
//!
//! The rules are gitleaks' default set (`config/gitleaks.toml` of gitleaks 8.30.1, MIT,
//! vendored beside this file: `gitleaks.toml`, `LICENSE-gitleaks`, `VENDORED.md`), read at
//! compile time (`include_str!`), parsed on first use and each rule's regex compiled once, when
//! a text first holds one of its keywords (all of them at once cost about 200 ms, more than a
//! hook process should pay for the few a text calls for), plus three rules of our own in the
//! same format (`local.toml`: [`URL_PASSWORD`], [`PASSWORD_ASSIGNMENT`] and
//! [`AUTHORIZATION_HEADER`], what a repository scanner leaves out on purpose). Each rule is applied as gitleaks applies it: its keywords (any, in
//! any case) must occur in the text, its regex must match, the secret is its `secretGroup` or
//! else its first non-empty group (else the whole match), that secret's Shannon entropy must
//! be above the rule's `entropy`, and neither the global allowlist nor the rule's allowlists
//! may allow it (their `regexes` against the secret, the match or the line as `regexTarget`
//! says, their `stopwords` against the secret, `condition` `AND` or `OR`). A text with none of
//! the keywords costs one pass of an Aho-Corasick automaton.
//!
//! [`redact`] replaces each secret (only the secret: the key of a `KEY=value` or
//! `"api_key": "..."` assignment stays) with a marker naming the rule,
//! `[redacted:aws-access-token]`. Overlapping finds are merged, named by the most specific
//! rule (a provider's format before [`GENERIC_RULES`]).
//!
//! Differences from gitleaks, all listed by [`Rules::left_out`] or here: rules bound to a file
//! name (`path`) are left out, since a tool's output has no file name; allowlists by `paths`
//! or `commits` never match, for the same reason; gitleaks' decoding of base64 and
//! percent-encoded text, its `gitleaks:allow` comment and its required rules are not applied
//! (no rule of 8.30.1 has required rules); a regex that Rust's `regex` does not accept is
//! left out with the error. Go's `\b`, `\w`, `\d` and `\s` are ASCII, and are written as
//! their ASCII forms for `regex` ([`translate`]).

use std::borrow::Cow;
use std::ops::Range;
use std::sync::{LazyLock, OnceLock};

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use hookwright::prelude::*;
use regex::{Regex, RegexBuilder};
use serde::Deserialize;

/// gitleaks' default rules (8.30.1), as vendored.
pub const GITLEAKS_TOML: &str = include_str!("gitleaks.toml");

/// The version of gitleaks whose rules [`GITLEAKS_TOML`] holds.
pub const GITLEAKS_VERSION: &str = "8.30.1";

/// The rules of our own, in gitleaks' format.
pub const LOCAL_TOML: &str = include_str!("local.toml");

/// The rule of our own for a password in a URL (`postgres://user:password@host`).
pub const URL_PASSWORD: &str = "url-password";

/// The rule of our own for a password assigned a literal (`DB_PASSWORD=hunter2`), which
/// gitleaks' `generic-api-key` lets pass below its entropy threshold.
pub const PASSWORD_ASSIGNMENT: &str = "password-assignment";

/// The rules that find a secret by the key it is assigned to rather than by its format: an
/// overlapping find of another rule names the marker.
pub const GENERIC_RULES: &[&str] = &["generic-api-key", PASSWORD_ASSIGNMENT, AUTHORIZATION_HEADER];

/// The rule of our own for the credentials of an HTTP `Authorization` header
/// (`> Authorization: Bearer ...` in `curl -v` output), which gitleaks finds only in a `curl`
/// command line (`curl-auth-header`).
pub const AUTHORIZATION_HEADER: &str = "authorization-header";

/// The most text [`redact_output`] looks at, in bytes; a larger text is withheld
/// ([`WITHHELD_TOO_LARGE`]). Claude Code cuts a `Bash` output at 30,000 characters and a
/// `Read` at 256 KiB, so a real output stays far below it.
pub const MAX_TEXT: usize = 4 * 1024 * 1024;

/// What replaces a text larger than [`MAX_TEXT`].
pub const WITHHELD_TOO_LARGE: &str = "[output withheld by hooks-guards: it is larger than the \
     secret redactor reads (4 MiB); ask for a part of it (head, tail, grep, a line range)]";

/// What replaces a text that a rule could not search (the rule did not compile).
pub const WITHHELD_UNSEARCHABLE: &str =
    "[output withheld by hooks-guards: a rule of the secret redactor could not be applied]";

/// A rule as gitleaks' TOML writes it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RuleToml {
    id: String,
    #[serde(default)]
    regex: Option<String>,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    secret_group: Option<usize>,
    #[serde(default)]
    entropy: Option<f64>,
    #[serde(default)]
    keywords: Vec<String>,
    #[serde(default)]
    allowlists: Vec<AllowlistToml>,
}

/// An allowlist as gitleaks' TOML writes it.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AllowlistToml {
    #[serde(default)]
    condition: Option<String>,
    #[serde(default)]
    regex_target: Option<String>,
    #[serde(default)]
    regexes: Vec<String>,
    #[serde(default)]
    stopwords: Vec<String>,
    #[serde(default)]
    paths: Vec<String>,
    #[serde(default)]
    commits: Vec<String>,
}

/// A gitleaks configuration file.
#[derive(Debug, Deserialize)]
struct ConfigToml {
    #[serde(default)]
    allowlist: Option<AllowlistToml>,
    #[serde(default)]
    rules: Vec<RuleToml>,
}

/// What an allowlist's regexes are matched against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Secret,
    Match,
    Line,
}

/// A compiled allowlist.
#[derive(Debug)]
struct Allowlist {
    and: bool,
    target: Target,
    regexes: Option<Regex>,
    stopwords: Option<AhoCorasick>,
    /// It names paths or commits, which never match here.
    has_paths_or_commits: bool,
}

impl Allowlist {
    fn compile(toml: &AllowlistToml) -> Result<Allowlist, String> {
        let target = match toml.regex_target.as_deref() {
            None | Some("secret") => Target::Secret,
            Some("match") => Target::Match,
            Some("line") => Target::Line,
            Some(other) => return Err(format!("unknown regexTarget `{other}`")),
        };
        let regexes = if toml.regexes.is_empty() {
            None
        } else {
            let joined: Vec<String> = toml
                .regexes
                .iter()
                .map(|r| format!("(?:{})", translate(r)))
                .collect();
            Some(compile(&joined.join("|"))?)
        };
        let stopwords = if toml.stopwords.is_empty() {
            None
        } else {
            Some(
                AhoCorasickBuilder::new()
                    .ascii_case_insensitive(true)
                    .build(&toml.stopwords)
                    .map_err(|e| e.to_string())?,
            )
        };
        Ok(Allowlist {
            and: toml
                .condition
                .as_deref()
                .is_some_and(|c| c.eq_ignore_ascii_case("and")),
            target,
            regexes,
            stopwords,
            has_paths_or_commits: !toml.paths.is_empty() || !toml.commits.is_empty(),
        })
    }

    /// Whether this allowlist lets `secret` (found as `matched`, on `line`) pass. A regex
    /// against the line is matched once per line (`line_cache`, keyed by the line's range):
    /// a long line with many finds would otherwise be searched whole for each.
    fn allows(
        &self,
        secret: &str,
        matched: &str,
        line: (&str, Range<usize>),
        line_cache: &mut std::collections::HashMap<(usize, usize), bool>,
    ) -> bool {
        let regex = self.regexes.as_ref().map(|r| match self.target {
            Target::Secret => r.is_match(secret),
            Target::Match => r.is_match(matched),
            Target::Line => *line_cache
                .entry((std::ptr::from_ref(self) as usize, line.1.start))
                .or_insert_with(|| r.is_match(line.0)),
        });
        let stopword = self.stopwords.as_ref().map(|s| s.is_match(secret));
        let checks = [regex, stopword];
        if self.and {
            // A path or a commit cannot match, so neither can an AND that names one.
            !self.has_paths_or_commits && checks.iter().flatten().all(|&c| c)
        } else {
            checks.iter().flatten().any(|&c| c)
        }
    }
}

/// One rule: its regex and allowlists, compiled when a text first has its keywords.
#[derive(Debug)]
struct Rule {
    id: String,
    /// Its regex, translated ([`translate`]).
    pattern: String,
    allowlists_toml: Vec<AllowlistToml>,
    compiled: OnceLock<Result<Compiled, String>>,
    secret_group: Option<usize>,
    entropy: Option<f64>,
    generic: bool,
}

/// A rule's compiled parts.
#[derive(Debug)]
struct Compiled {
    regex: Regex,
    allowlists: Vec<Allowlist>,
}

impl Rule {
    fn compiled(&self) -> Result<&Compiled, &str> {
        self.compiled
            .get_or_init(|| {
                let regex = compile(&self.pattern)
                    .map_err(|e| format!("Rust's regex does not accept its regex: {e}"))?;
                let allowlists = self
                    .allowlists_toml
                    .iter()
                    .map(Allowlist::compile)
                    .collect::<Result<_, _>>()
                    .map_err(|e| format!("an allowlist of it does not compile: {e}"))?;
                Ok(Compiled { regex, allowlists })
            })
            .as_ref()
            .map_err(String::as_str)
    }
}

/// Why a text could not be searched: a rule that its keywords called for did not compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsearchable {
    /// The rule's id.
    pub rule: String,
    /// Why it did not compile.
    pub why: String,
}

/// A rule of the vendored set that is not applied, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    /// The rule's id.
    pub id: String,
    /// Why it is left out.
    pub why: String,
}

/// One secret found: the rule and where the secret is in the text (bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The id of the rule that found it (e.g. `aws-access-token`).
    pub rule: &'static str,
    /// The secret's byte range in the text.
    pub range: Range<usize>,
}

/// The compiled rule set: gitleaks' rules and ours, their keyword prefilter, and the rules
/// left out. The one set is [`rules`].
#[derive(Debug)]
pub struct Rules {
    rules: Vec<Rule>,
    /// The keywords of every rule, lowercased, one pattern each.
    keywords: AhoCorasick,
    /// For each keyword pattern, the rules it belongs to.
    keyword_rules: Vec<Vec<usize>>,
    /// The rules without keywords, run on every text.
    always: Vec<usize>,
    global_toml: Vec<AllowlistToml>,
    global: OnceLock<Result<Vec<Allowlist>, String>>,
    left_out: Vec<LeftOut>,
}

static RULES: LazyLock<Rules> = LazyLock::new(|| {
    Rules::load(&[GITLEAKS_TOML, LOCAL_TOML]).expect("the vendored rule files are valid TOML")
});

/// The rule set, compiled on first use.
pub fn rules() -> &'static Rules {
    &RULES
}

/// Compiles `pattern` (already translated) as the rules are compiled.
fn compile(pattern: &str) -> Result<Regex, String> {
    RegexBuilder::new(pattern)
        .size_limit(32 * 1024 * 1024)
        .build()
        .map_err(|e| {
            e.to_string()
                .lines()
                .last()
                .unwrap_or_default()
                .trim()
                .to_owned()
        })
}

impl Rules {
    /// Loads the rules of every gitleaks configuration in `files`, in order (a later file's
    /// rule of an id already loaded replaces it); `Err` for a file that is not such TOML.
    fn load(files: &[&str]) -> Result<Rules, String> {
        let mut rules: Vec<Rule> = Vec::new();
        let mut keywords_of: Vec<Vec<String>> = Vec::new();
        let mut left_out = Vec::new();
        let mut global_toml = Vec::new();
        for file in files {
            let config: ConfigToml = toml::from_str(file).map_err(|e| e.to_string())?;
            global_toml.extend(config.allowlist);
            for rule in config.rules {
                let mut leave = |why: String| {
                    left_out.push(LeftOut {
                        id: rule.id.clone(),
                        why,
                    });
                };
                let Some(pattern) = &rule.regex else {
                    leave("it has no regex: it flags a file by its name alone".to_owned());
                    continue;
                };
                if let Some(path) = &rule.path {
                    leave(format!(
                        "it applies only to files whose path matches `{path}`, and a tool's \
                         output has no path"
                    ));
                    continue;
                }
                let compiled = Rule {
                    generic: GENERIC_RULES.contains(&rule.id.as_str()),
                    pattern: translate(pattern),
                    id: rule.id,
                    allowlists_toml: rule.allowlists,
                    compiled: OnceLock::new(),
                    secret_group: rule.secret_group.filter(|&g| g > 0),
                    entropy: rule.entropy.filter(|&e| e > 0.0),
                };
                let keywords = rule.keywords.iter().map(|k| k.to_lowercase()).collect();
                if let Some(at) = rules.iter().position(|r| r.id == compiled.id) {
                    rules[at] = compiled;
                    keywords_of[at] = keywords;
                } else {
                    rules.push(compiled);
                    keywords_of.push(keywords);
                }
            }
        }
        let mut patterns: Vec<String> = Vec::new();
        let mut keyword_rules: Vec<Vec<usize>> = Vec::new();
        let mut always = Vec::new();
        for (index, keywords) in keywords_of.iter().enumerate() {
            if keywords.is_empty() {
                always.push(index);
            }
            for keyword in keywords {
                match patterns.iter().position(|p| p == keyword) {
                    Some(at) => keyword_rules[at].push(index),
                    None => {
                        patterns.push(keyword.clone());
                        keyword_rules.push(vec![index]);
                    }
                }
            }
        }
        let keywords = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&patterns)
            .map_err(|e| e.to_string())?;
        Ok(Rules {
            rules,
            keywords,
            keyword_rules,
            always,
            global_toml,
            global: OnceLock::new(),
            left_out,
        })
    }

    /// The ids of the rules applied, in the order of their files.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.rules.iter().map(|rule| rule.id.as_str())
    }

    /// The rules of the vendored files that are not applied, each with why.
    #[must_use]
    pub fn left_out(&self) -> &[LeftOut] {
        &self.left_out
    }

    /// Compiles every rule now (they are compiled on first use otherwise) and gives those
    /// that do not compile, each with why: what [`Rules::find`] would refuse a text for.
    #[must_use]
    pub fn uncompilable(&self) -> Vec<Unsearchable> {
        let mut failed: Vec<Unsearchable> = self
            .rules
            .iter()
            .filter_map(|rule| {
                rule.compiled().err().map(|why| Unsearchable {
                    rule: rule.id.clone(),
                    why: why.to_owned(),
                })
            })
            .collect();
        if let Err(why) = self.global() {
            failed.push(Unsearchable {
                rule: "(global allowlist)".to_owned(),
                why: why.to_owned(),
            });
        }
        failed
    }

    fn global(&self) -> Result<&[Allowlist], &str> {
        self.global
            .get_or_init(|| self.global_toml.iter().map(Allowlist::compile).collect())
            .as_ref()
            .map(Vec::as_slice)
            .map_err(String::as_str)
    }

    /// Every secret in `text`, in the order found (by rule, then position); finds of
    /// different rules may overlap. `Err` when a rule the text's keywords call for does not
    /// compile (none of the vendored set, as its test checks): then the text cannot be
    /// searched, and is to be withheld.
    pub fn find(&'static self, text: &str) -> Result<Vec<Finding>, Unsearchable> {
        // A NUL ends a value as a line end does (`/proc/PID/environ`, `find -print0`), but the
        // rules' end classes do not know it: they search a copy with each NUL a newline, whose
        // offsets are the text's (both are one byte).
        let searched: Cow<'_, str> = if text.contains('\0') {
            Cow::Owned(text.replace('\0', "\n"))
        } else {
            Cow::Borrowed(text)
        };
        let text: &str = &searched;
        let mut run = vec![false; self.rules.len()];
        for &index in &self.always {
            run[index] = true;
        }
        for hit in self.keywords.find_overlapping_iter(text) {
            for &index in &self.keyword_rules[hit.pattern().as_usize()] {
                run[index] = true;
            }
        }
        let mut findings = Vec::new();
        // Where each line ends, found once: looking for a find's line from the find would
        // cost the length of a long line for each find on it.
        let newlines: Vec<usize> = text.match_indices('\n').map(|(i, _)| i).collect();
        let mut line_cache = std::collections::HashMap::new();
        let unsearchable = |rule: &str, why: &str| Unsearchable {
            rule: rule.to_owned(),
            why: why.to_owned(),
        };
        for (rule, _) in self.rules.iter().zip(&run).filter(|(_, run)| **run) {
            let compiled = rule.compiled().map_err(|why| unsearchable(&rule.id, why))?;
            for caps in compiled.regex.captures_iter(text) {
                let whole = caps.get(0).expect("group 0 is the match");
                let secret = match rule.secret_group {
                    Some(group) => caps.get(group),
                    None => caps.iter().skip(1).flatten().find(|g| !g.is_empty()),
                }
                .unwrap_or(whole);
                if secret.is_empty() {
                    continue;
                }
                if rule
                    .entropy
                    .is_some_and(|threshold| entropy(secret.as_str()) <= threshold)
                {
                    continue;
                }
                let line_range = line_of(&newlines, text.len(), whole.range());
                let line = (&text[line_range.clone()], line_range);
                let global = self
                    .global()
                    .map_err(|why| unsearchable("(global allowlist)", why))?;
                if global.iter().chain(&compiled.allowlists).any(|a| {
                    a.allows(
                        secret.as_str(),
                        whole.as_str(),
                        line.clone(),
                        &mut line_cache,
                    )
                }) {
                    continue;
                }
                findings.push(Finding {
                    rule: &rule.id,
                    range: secret.range(),
                });
            }
        }
        Ok(findings)
    }

    /// `text` with every secret replaced by `[redacted:<rule>]`; borrowed when it holds none.
    /// `Err` when it cannot be searched ([`Rules::find`]).
    pub fn redact<'t>(&'static self, text: &'t str) -> Result<Cow<'t, str>, Unsearchable> {
        let mut findings = self.find(text)?;
        if findings.is_empty() {
            return Ok(Cow::Borrowed(text));
        }
        findings.sort_by_key(|f| (f.range.start, std::cmp::Reverse(f.range.end)));
        // Merge overlapping finds; a provider's rule names the merged span over a generic one.
        let mut spans: Vec<(Range<usize>, &'static str)> = Vec::new();
        for finding in findings {
            match spans.last_mut() {
                Some((span, rule)) if finding.range.start < span.end => {
                    span.end = span.end.max(finding.range.end);
                    if self.is_generic(rule) && !self.is_generic(finding.rule) {
                        *rule = finding.rule;
                    }
                }
                _ => spans.push((finding.range, finding.rule)),
            }
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (span, rule) in spans {
            out.push_str(&text[at..span.start]);
            out.push_str("[redacted:");
            out.push_str(rule);
            out.push(']');
            at = span.end;
        }
        out.push_str(&text[at..]);
        Ok(Cow::Owned(out))
    }

    fn is_generic(&self, id: &str) -> bool {
        self.rules.iter().any(|r| r.generic && r.id == id)
    }
}

/// The range of the line (or lines) holding `range` in a text of `len` bytes whose newlines
/// are at `newlines` (ascending).
fn line_of(newlines: &[usize], len: usize, range: Range<usize>) -> Range<usize> {
    let before = newlines.partition_point(|&i| i < range.start);
    let start = before.checked_sub(1).map_or(0, |i| newlines[i] + 1);
    let after = newlines.partition_point(|&i| i < range.end);
    let end = newlines.get(after).copied().unwrap_or(len);
    start..end
}

/// The Shannon entropy of `s` in bits per character, as gitleaks computes it (its characters
/// counted, divided by its length in bytes).
#[must_use]
pub fn entropy(s: &str) -> f64 {
    if s.is_empty() {
        return 0.0;
    }
    let mut counts: std::collections::HashMap<char, usize> = std::collections::HashMap::new();
    for c in s.chars() {
        *counts.entry(c).or_default() += 1;
    }
    #[allow(clippy::cast_precision_loss)]
    let len = s.len() as f64;
    counts
        .values()
        .map(|&n| {
            #[allow(clippy::cast_precision_loss)]
            let p = n as f64 / len;
            -p * p.log2()
        })
        .sum()
}

/// A Go (RE2) regex written for Rust's `regex`: Go's `\b`, `\B`, `\w`, `\d` and `\s` match
/// ASCII only, Rust's Unicode, so outside a class they become `(?-u:\b)`, `(?-u:\B)`,
/// `(?-u:\w)`, `[0-9]`, `(?-u:\s)`, and inside one `[:word:]`, `0-9`, `[:space:]`; a `{`
/// that starts no repetition (`{\d+}`) is Go's literal brace, escaped; a `[` inside a class
/// is literal in Go, escaped, as are `&&` and `~~` there (Rust's class operators). The rest
/// is the same language.
///
/// ```
/// use hookwright_guards::secrets::translate;
///
/// assert_eq!(translate(r"\bab[\w.-]\d"), r"(?-u:\b)ab[[:word:].-][0-9]");
/// ```
#[must_use]
pub fn translate(go: &str) -> String {
    let mut out = String::with_capacity(go.len() + 16);
    let mut chars = go.chars().peekable();
    let mut in_class = false;
    let mut class_start = false;
    while let Some(c) = chars.next() {
        let at_start = std::mem::take(&mut class_start);
        match c {
            '\\' => {
                let Some(next) = chars.next() else {
                    out.push('\\');
                    break;
                };
                let replaced = match (in_class, next) {
                    (false, 'b') => Some(r"(?-u:\b)"),
                    (false, 'B') => Some(r"(?-u:\B)"),
                    (false, 'w') => Some(r"(?-u:\w)"),
                    (false, 'd') => Some("[0-9]"),
                    (false, 's') => Some(r"(?-u:\s)"),
                    (true, 'w') => Some("[:word:]"),
                    (true, 'd') => Some("0-9"),
                    (true, 's') => Some("[:space:]"),
                    _ => None,
                };
                match replaced {
                    Some(r) => out.push_str(r),
                    None => {
                        out.push('\\');
                        out.push(next);
                    }
                }
            }
            '{' if !in_class && !is_repetition(chars.clone()) => out.push_str(r"\{"),
            '[' if !in_class => {
                out.push('[');
                in_class = true;
                if chars.peek() == Some(&'^') {
                    out.push('^');
                    chars.next();
                }
                class_start = true;
            }
            '[' if chars.peek() == Some(&':') => {
                // A POSIX class, `[:alpha:]`: copied to its `:]`.
                out.push('[');
                for c in chars.by_ref() {
                    out.push(c);
                    if c == ']' {
                        break;
                    }
                }
            }
            '[' => out.push_str(r"\["),
            // Rust's class operators `&&` and `~~` are literal characters in Go.
            '&' | '~' if in_class && chars.peek() == Some(&c) => {
                out.push('\\');
                out.push(c);
            }
            ']' if in_class && !at_start => {
                out.push(']');
                in_class = false;
            }
            _ => out.push(c),
        }
    }
    out
}

/// Whether the text after a `{` makes it a repetition (`{n}`, `{n,}`, `{n,m}`); Go reads any
/// other `{` as the character, Rust's `regex` as an error.
fn is_repetition(mut after: impl Iterator<Item = char>) -> bool {
    let mut digits = 0;
    let mut comma = false;
    for c in after.by_ref() {
        match c {
            '0'..='9' => digits += 1,
            ',' if !comma && digits > 0 => comma = true,
            '}' => return digits > 0,
            _ => return false,
        }
    }
    false
}

/// `text` with every secret replaced by `[redacted:<rule>]` ([`Rules::redact`] of
/// [`rules`]); `Err` when it cannot be searched.
///
/// ```
/// use hookwright_guards::secrets::redact;
///
/// let key = ["AKIA", "Z7QK2M4WXN5RJ3VB"].concat();
/// assert_eq!(
///     redact(&format!("aws_access_key_id = {key}")).unwrap(),
///     "aws_access_key_id = [redacted:aws-access-token]"
/// );
/// assert_eq!(redact("token_count = 3").unwrap(), "token_count = 3");
/// ```
pub fn redact(text: &str) -> Result<Cow<'_, str>, Unsearchable> {
    rules().redact(text)
}

/// What the model gets in place of the text `text` of a tool's output: [`redact`]ed, or a
/// notice when it cannot be: [`WITHHELD_TOO_LARGE`] when it is larger than [`MAX_TEXT`],
/// [`WITHHELD_UNSEARCHABLE`] (and the rule) when a rule does not compile. A redaction that
/// cannot be applied withholds.
#[must_use]
pub fn redact_output(text: &str) -> String {
    if text.len() > MAX_TEXT {
        return WITHHELD_TOO_LARGE.to_owned();
    }
    match redact(text) {
        Ok(redacted) => redacted.into_owned(),
        Err(e) => format!("{WITHHELD_UNSEARCHABLE} (rule {}: {})", e.rule, e.why),
    }
}

/// Redacts the secrets in what the tools that show the model a file's contents return
/// ([`ToolResultEvent::shows_file_contents`]: `read`, `grep` and `bash`, in every output shape
/// the adapters hand on; `edit` and `write` show none, and a failed result's rewrite is never
/// applied). Each text chunk goes through [`redact_output`]; images pass; any other chunk (a
/// document sent whole) is withheld ([`ToolResultEvent::redact_text`]). Output with nothing to
/// redact or withhold is left as it is (`None`).
#[hook(event = "tool_result")]
pub fn redact_secrets(event: &ToolResultEvent) -> Option<ToolResultEventResult> {
    if !event.shows_file_contents() {
        return None;
    }
    let content = event.redact_text(redact_output);
    (content != event.content).then(|| ToolResultEventResult {
        content: Some(content),
        ..ToolResultEventResult::default()
    })
}
