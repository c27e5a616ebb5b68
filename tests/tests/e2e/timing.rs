//! Per-hook times as the agents measure them: from Claude Code's debug log, and from Codex's
//! app server ([`crate::agent::codex::AppServerTurn::hook_times`]).
//!
//! Claude Code logs each command hook it ran as
//! `Hooks: PreToolUse:Bash [/path/to/hooks claude PreToolUse] finished with status 0 (8ms)`,
//! and each HTTP hook as `Hooks: HTTP hook POST to URL` and then `Hooks: HTTP hook response
//! status 200, ...`, with no duration: [`http_hook_times`] takes it from the two lines'
//! timestamps (milliseconds).

use std::fmt;
use std::sync::LazyLock;

use regex::Regex;

static FINISHED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"Hooks: (\w+)(?::\S*)? \[(.+?)\] finished with status (-?\d+) \((\d+)ms\)")
        .expect("the pattern is valid")
});

static HTTP_POST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"T(\d\d):(\d\d):(\d\d)\.(\d{3})Z .*Hooks: HTTP hook POST to [^\s?]*/(\w+)(?:\?\S*)?$",
    )
    .expect("the pattern is valid")
});

static HTTP_DONE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"T(\d\d):(\d\d):(\d\d)\.(\d{3})Z .*Hooks: HTTP hook (response status|error)")
        .expect("the pattern is valid")
});

fn millis(c: &regex::Captures<'_>) -> u64 {
    let n = |i: usize| c[i].parse::<u64>().unwrap_or(0);
    ((n(1) * 60 + n(2)) * 60 + n(3)) * 1000 + n(4)
}

/// The time of each HTTP hook call in `debug_log`, by the route's event (the URL's last
/// segment): from its POST line to the next answer or error line (one HTTP hook in flight at
/// a time).
pub(crate) fn http_hook_times(debug_log: &str) -> HookTimes {
    let mut times = Vec::new();
    let mut open: Option<(String, u64)> = None;
    for line in debug_log.lines() {
        if let Some(c) = HTTP_POST.captures(line) {
            open = Some((c[5].to_owned(), millis(&c)));
        } else if let Some(c) = HTTP_DONE.captures(line)
            && let Some((event, began)) = open.take()
        {
            times.push(HookTime {
                event,
                command: "http".to_owned(),
                status: i32::from(&c[5] != "response status"),
                ms: millis(&c).saturating_sub(began),
            });
        }
    }
    HookTimes(times)
}

/// One hook run.
#[derive(Debug, Clone)]
pub(crate) struct HookTime {
    /// The event (`PreToolUse`).
    pub(crate) event: String,
    /// The command line.
    pub(crate) command: String,
    /// Its exit status.
    pub(crate) status: i32,
    /// Milliseconds.
    pub(crate) ms: u64,
}

/// Every hook run in a debug log.
#[derive(Debug, Default)]
pub(crate) struct HookTimes(pub(crate) Vec<HookTime>);

/// A median in milliseconds and the number of runs, for reports.
pub(crate) struct Median(Option<u64>, usize);

impl fmt::Display for Median {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(ms) => write!(f, "{ms} ms median of {}", self.1),
            None => f.write_str("no runs"),
        }
    }
}

/// The hook runs in `debug_log`.
pub(crate) fn hook_times(debug_log: &str) -> HookTimes {
    HookTimes(
        FINISHED
            .captures_iter(debug_log)
            .map(|c| HookTime {
                event: c[1].to_owned(),
                command: c[2].to_owned(),
                status: c[3].parse().unwrap_or(-1),
                ms: c[4].parse().unwrap_or(0),
            })
            .collect(),
    )
}

impl HookTimes {
    fn select(&self, event: &str, command: impl Fn(&str) -> bool) -> Vec<&HookTime> {
        self.0
            .iter()
            .filter(|t| t.event == event && command(&t.command))
            .collect()
    }

    /// The runs that did not exit 0.
    pub(crate) fn failed(&self) -> Vec<&HookTime> {
        self.0.iter().filter(|t| t.status != 0).collect()
    }

    /// How many runs of `event` by a command `command` accepts.
    pub(crate) fn count(&self, event: &str, command: impl Fn(&str) -> bool) -> usize {
        self.select(event, command).len()
    }

    /// The median time of those runs.
    pub(crate) fn median(&self, event: &str, command: impl Fn(&str) -> bool) -> Median {
        self.median_by(|t| t.event == event && command(&t.command))
    }

    /// The median time of the runs `keep` accepts.
    pub(crate) fn median_by(&self, keep: impl Fn(&HookTime) -> bool) -> Median {
        let mut ms: Vec<u64> = self.0.iter().filter(|t| keep(t)).map(|t| t.ms).collect();
        ms.sort_unstable();
        Median(ms.get(ms.len() / 2).copied(), ms.len())
    }
}
