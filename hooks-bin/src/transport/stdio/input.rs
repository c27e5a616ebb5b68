//! How `hooks serve --stdio` reads its input: line by line, a line longer than the input
//! limit dropped up to its newline and reported as [`Line::TooLong`]. A pipe or a socket is
//! polled on the runtime's thread ([`polled_stdin`], [`read_lines_async`]); anything else
//! (a terminal, a file) is read by a thread of its own ([`read_lines`]).

use std::io::BufRead;
use std::os::fd::AsFd as _;
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};

use tokio::io::{AsyncBufRead, AsyncBufReadExt as _, AsyncRead};
use tokio::sync::mpsc;

use crate::json::MAX_INPUT_BYTES;

/// The read buffer's size.
pub(super) const BUFFER: usize = 64 * 1024;

/// A line of input, or why it could not be read whole.
pub(super) enum Line {
    Text(Vec<u8>),
    TooLong,
}

/// Cuts what is read into lines.
#[derive(Default)]
struct Splitter {
    line: Vec<u8>,
    too_long: bool,
}

impl Splitter {
    /// Takes what it can of `buf`: how many bytes it took, and the line they ended, if any.
    fn take(&mut self, buf: &[u8]) -> (usize, Option<Line>) {
        let (consumed, ended) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, Some(&buf[..i])),
            None => (buf.len(), None),
        };
        if !self.too_long {
            self.line.extend_from_slice(ended.unwrap_or(buf));
            if self.line.len() > MAX_INPUT_BYTES {
                self.too_long = true;
                self.line = Vec::new();
            }
        }
        if ended.is_none() {
            return (consumed, None);
        }
        let line = if std::mem::take(&mut self.too_long) {
            Line::TooLong
        } else {
            Line::Text(std::mem::take(&mut self.line))
        };
        (consumed, Some(line))
    }

    /// Takes one fill of the read buffer, sending the line it ends to `tx`: how many bytes to
    /// consume (none after an interrupted read), or `None` at the end of the input, on a read
    /// error, or when no one receives.
    fn feed(
        &mut self,
        filled: std::io::Result<&[u8]>,
        tx: &mpsc::UnboundedSender<Line>,
    ) -> Option<usize> {
        let (consumed, line) = match filled {
            Ok([]) => return None,
            Ok(buf) => self.take(buf),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => return Some(0),
            Err(_) => return None,
        };
        let gone = line.is_some_and(|line| tx.send(line).is_err());
        (!gone).then_some(consumed)
    }
}

/// Reads `input` line by line into `tx` until the end (or a read error, or no receiver).
pub(super) fn read_lines(input: &mut dyn BufRead, tx: &mpsc::UnboundedSender<Line>) {
    let mut splitter = Splitter::default();
    while let Some(consumed) = splitter.feed(input.fill_buf(), tx) {
        input.consume(consumed);
    }
}

/// [`read_lines`] of an input polled by the runtime.
pub(super) async fn read_lines_async(
    input: &mut (dyn AsyncBufRead + Unpin + Send),
    tx: &mpsc::UnboundedSender<Line>,
) {
    let mut splitter = Splitter::default();
    while let Some(consumed) = splitter.feed(input.fill_buf().await, tx) {
        input.consume(consumed);
    }
}

/// Standard input as a reader the runtime polls, when it is a pipe or a socket that is not
/// also standard output (making it non-blocking must not make the server's writes fail);
/// `None` otherwise, or when it cannot be registered. Must be called inside the runtime.
pub(super) fn polled_stdin() -> Option<Box<dyn AsyncRead + Unpin + Send>> {
    let file =
        |fd: std::os::fd::BorrowedFd<'_>| fd.try_clone_to_owned().ok().map(std::fs::File::from);
    let input = file(std::io::stdin().as_fd())?;
    let meta = input.metadata().ok()?;
    let shared = file(std::io::stdout().as_fd())
        .and_then(|out| out.metadata().ok())
        .is_none_or(|out| out.dev() == meta.dev() && out.ino() == meta.ino());
    if shared {
        return None;
    }
    let kind = meta.file_type();
    if kind.is_fifo() {
        let pipe = tokio::net::unix::pipe::Receiver::from_file(input).ok()?;
        Some(Box::new(pipe))
    } else if kind.is_socket() {
        let socket = std::os::unix::net::UnixStream::from(std::os::fd::OwnedFd::from(input));
        socket.set_nonblocking(true).ok()?;
        let socket = tokio::net::UnixStream::from_std(socket).ok()?;
        Some(Box::new(socket))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(chunks: &[&[u8]]) -> Vec<Option<Vec<u8>>> {
        let mut splitter = Splitter::default();
        let mut out = Vec::new();
        for chunk in chunks {
            let mut rest = *chunk;
            while !rest.is_empty() {
                let (n, line) = splitter.take(rest);
                rest = &rest[n..];
                match line {
                    Some(Line::Text(t)) => out.push(Some(t)),
                    Some(Line::TooLong) => out.push(None),
                    None => {}
                }
            }
        }
        out
    }

    #[test]
    fn a_line_split_across_reads_arrives_whole() {
        assert_eq!(
            lines(&[b"ab", b"c\nde", b"\n\n"]),
            [
                Some(b"abc".to_vec()),
                Some(b"de".to_vec()),
                Some(Vec::new())
            ]
        );
    }

    #[test]
    fn a_line_over_the_limit_is_dropped_to_its_newline_and_the_next_is_read() {
        let long = vec![b'x'; MAX_INPUT_BYTES + 1];
        assert_eq!(lines(&[&long, b"\nok\n"]), [None, Some(b"ok".to_vec())]);
    }

    #[test]
    fn a_line_of_exactly_the_limit_is_kept() {
        let mut exact = vec![b'x'; MAX_INPUT_BYTES];
        exact.push(b'\n');
        assert_eq!(lines(&[&exact]).len(), 1);
        assert!(lines(&[&exact])[0].is_some());
    }
}
