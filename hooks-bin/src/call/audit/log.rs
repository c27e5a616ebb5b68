//! Writing the decision log: JSON Lines, appended, size-rotated.
//!
//! Every line is one `write` of the whole line on a descriptor opened with `O_APPEND`, so the
//! lines of processes appending at once (one adapter process per hook call, and the server)
//! never interleave. When the file has passed `max_bytes`, the writer that notices takes an
//! exclusive `flock` on `PATH.lock`, checks again that the file it holds is still the one at
//! `PATH` and still too large (another writer may have rotated it meanwhile), and renames
//! `PATH.(k-1)` to `PATH.k` for `k = keep .. 2` and `PATH` to `PATH.1` (with `keep = 0` the
//! file is removed), then appends to a new `PATH`. A writer that still holds the old file
//! appends its line there, whole.
//!
//! A line that cannot be written (the directory cannot be made, the disk is full) is
//! reported on stderr once per [`DecisionLog`] (one per process) and the call goes on.
//!
//! The server writes from a task of its own ([`LogTask`]): calls hand their line to a bounded
//! channel and never wait; a line that finds the channel full is dropped and counted, and
//! the count is reported on stderr (once per process, with the first drop).

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::LogSettings;

/// The decision log of a process.
#[derive(Debug)]
pub struct DecisionLog {
    settings: LogSettings,
    reported: AtomicBool,
}

impl DecisionLog {
    /// The log `settings` says.
    #[must_use]
    pub fn new(settings: LogSettings) -> Self {
        DecisionLog {
            settings,
            reported: AtomicBool::new(false),
        }
    }

    /// The file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.settings.path
    }

    /// Appends `line` (one JSON line with its newline); a failure is written to `err`, the
    /// first time only.
    pub fn write(&self, line: &str, err: &mut dyn Write) {
        if let Err(e) = self.append(line) {
            self.report(
                &format!("cannot write to {}: {e}", self.path().display()),
                err,
            );
        }
    }

    /// Writes `why` to `err` (`hooks: decision log: WHY`) unless this log reported already.
    pub fn report(&self, why: &str, err: &mut dyn Write) {
        if !self.reported.swap(true, Ordering::Relaxed) {
            let _ignored = writeln!(err, "hooks: decision log: {why}").and_then(|()| err.flush());
        }
    }

    /// Appends `line`, rotating first when the file has passed `max_bytes`.
    ///
    /// # Errors
    /// The directory cannot be made, the file cannot be opened, rotated or written.
    pub fn append(&self, line: &str) -> io::Result<()> {
        let path = &self.settings.path;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut file = open(path)?;
        if file.metadata()?.len() >= self.settings.max_bytes {
            self.rotate(&file)?;
            file = open(path)?;
        }
        file.write_all(line.as_bytes())
    }

    /// Rotates the file that `held` is, unless another writer did already.
    fn rotate(&self, held: &File) -> io::Result<()> {
        use rustix::fs::{FlockOperation, flock};
        let path = &self.settings.path;
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(with_suffix(path, "lock"))?;
        flock(&lock, FlockOperation::LockExclusive)?;
        let held = rustix::fs::fstat(held)?;
        let still = match rustix::fs::stat(path) {
            Ok(now) => now.st_ino == held.st_ino && now.st_dev == held.st_dev,
            Err(_) => false,
        };
        if still && u64::try_from(held.st_size).unwrap_or(0) >= self.settings.max_bytes {
            let keep = self.settings.keep;
            if keep == 0 {
                std::fs::remove_file(path)?;
            } else {
                for k in (2..=keep).rev() {
                    let from = with_suffix(path, &(k - 1).to_string());
                    match std::fs::rename(&from, with_suffix(path, &k.to_string())) {
                        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                        _ => {}
                    }
                }
                std::fs::rename(path, with_suffix(path, "1"))?;
            }
        }
        // The lock goes with the descriptor.
        Ok(())
    }
}

/// Opens `path` to append, creating it (mode 0600: the log holds tool inputs).
fn open(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.append(true).create(true).mode(0o600);
    options.open(path)
}

/// `path` with `.suffix` added to its file name.
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".");
    name.push(suffix);
    PathBuf::from(name)
}

/// How many lines the server's writer task may hold before new ones are dropped.
const QUEUE: usize = 1024;

/// What the writer task is handed.
#[derive(Debug)]
enum Message {
    /// A line to append.
    Line(String),
    /// Answered once every line before it is written.
    Flush(tokio::sync::oneshot::Sender<()>),
}

/// The server's log writer: a bounded channel to a task that appends.
#[derive(Debug, Clone)]
pub struct LogTask {
    sender: tokio::sync::mpsc::Sender<Message>,
    dropped: std::sync::Arc<AtomicU64>,
}

impl LogTask {
    /// Starts the writer task of `log` on the current tokio runtime.
    ///
    /// # Panics
    /// Outside a tokio runtime.
    #[must_use]
    pub fn start(log: DecisionLog) -> LogTask {
        let (sender, mut messages) = tokio::sync::mpsc::channel::<Message>(QUEUE);
        let log = std::sync::Arc::new(log);
        tokio::spawn(async move {
            while let Some(message) = messages.recv().await {
                match message {
                    Message::Line(line) => {
                        let log = std::sync::Arc::clone(&log);
                        let _ignored = tokio::task::spawn_blocking(move || {
                            log.write(&line, &mut io::stderr().lock());
                        })
                        .await;
                    }
                    Message::Flush(done) => {
                        let _ = done.send(());
                    }
                }
            }
        });
        LogTask {
            sender,
            dropped: std::sync::Arc::default(),
        }
    }

    /// Hands `line` to the writer without waiting; when the queue is full the line is
    /// dropped, counted, and the first drop is said on stderr.
    pub fn send(&self, line: String) {
        if self.sender.try_send(Message::Line(line)).is_err() {
            let before = self.dropped.fetch_add(1, Ordering::Relaxed);
            if before == 0 {
                eprintln!(
                    "hooks serve: decision log: the writer is {QUEUE} lines behind; lines are \
                     dropped (and counted) until it catches up"
                );
            }
        }
    }

    /// Waits until every line handed over before is written (a server that exits calls it
    /// last, so that its last calls' lines are not lost).
    pub async fn flush(&self) {
        let (done, written) = tokio::sync::oneshot::channel();
        if self.sender.send(Message::Flush(done)).await.is_ok() {
            let _ = written.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_keeps_keep_files_and_every_line_lands_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.jsonl");
        let log = DecisionLog::new(LogSettings {
            path: path.clone(),
            max_bytes: 100,
            keep: 2,
        });
        let line = format!("{{\"n\":\"{}\"}}\n", "x".repeat(40));
        for _ in 0..20 {
            log.append(&line).unwrap();
        }
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !n.ends_with(".lock"))
            .collect();
        let mut names = names;
        names.sort();
        assert_eq!(names, ["d.jsonl", "d.jsonl.1", "d.jsonl.2"]);
        for name in names {
            let text = std::fs::read_to_string(dir.path().join(name)).unwrap();
            assert!(text.len() <= 100 + line.len(), "{}", text.len());
            assert!(text.lines().all(|l| format!("{l}\n") == line));
        }
    }
}
