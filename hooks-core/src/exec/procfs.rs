//! What `/proc` tells about processes (Linux): parent, process group, state, start time and
//! environment.

use std::fs;

/// One line of `/proc/<pid>/stat`, the fields a process tree needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stat {
    /// The process id.
    pub(super) pid: i32,
    /// The parent's process id.
    pub(super) ppid: i32,
    /// The process group id.
    pub(super) pgid: i32,
    /// Whether it has ended and waits to be reaped by its parent.
    pub(super) zombie: bool,
    /// When it started, in clock ticks since boot: with the pid, it names one process, since a
    /// pid is reused only after its process was reaped.
    pub(super) start: u64,
}

/// The process `pid`, if it exists (a zombie exists until it is reaped).
pub(super) fn stat(pid: i32) -> Option<Stat> {
    parse_stat(pid, &fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Every process on the system (those that end while the list is read may be missing).
pub(super) fn processes() -> Vec<Stat> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .filter_map(stat)
        .collect()
}

/// Whether the environment `pid` was started with (by its last `execve`) holds exactly the
/// entry `entry` (`NAME=value`). `false` when it cannot be read: a zombie's environment is gone,
/// another user's is private.
pub(super) fn environ_has(pid: i32, entry: &str) -> bool {
    fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|env| env.split(|b| *b == 0).any(|e| e == entry.as_bytes()))
}

/// Parses `pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
/// utime stime cutime cstime priority nice threads itrealvalue starttime ...`; the command name
/// may hold spaces and parentheses, so the fields are counted from its last `)`.
fn parse_stat(pid: i32, line: &str) -> Option<Stat> {
    let (_, rest) = line.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some(Stat {
        pid,
        ppid: fields.get(1)?.parse().ok()?,
        pgid: fields.get(2)?.parse().ok()?,
        zombie: matches!(*fields.first()?, "Z" | "X"),
        start: fields.get(19)?.parse().ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_counted_from_the_last_parenthesis() {
        let line = "42 (a) b) (c) Z 7 9 9 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 123456 0 0";
        assert_eq!(
            parse_stat(42, line),
            Some(Stat {
                pid: 42,
                ppid: 7,
                pgid: 9,
                zombie: true,
                start: 123_456
            })
        );
    }

    #[test]
    fn this_process_is_listed_with_its_parent() {
        let me = i32::try_from(std::process::id()).unwrap();
        let mine = processes().into_iter().find(|s| s.pid == me).unwrap();
        assert_eq!(
            mine.ppid,
            i32::try_from(std::os::unix::process::parent_id()).unwrap()
        );
        assert!(!mine.zombie);
    }
}
