//! The streaming line reader: files or standard input, one reused buffer, line terminators
//! (`\n` or `\r\n`) stripped and nothing else.

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Calls `each` with every line of every source in order: the files, or standard input
/// when there are none; `-` names standard input. Memory does not grow with the input.
///
/// # Errors
///
/// The first I/O error, on reading (with the file's name) or from `each`.
pub fn for_each_line(
    files: &[PathBuf],
    mut each: impl FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let mut buffer = Vec::with_capacity(1024);
    let mut progress = Progress::new();
    let mut each = |line: &[u8]| {
        progress.tick();
        each(line)
    };
    let result = if files.is_empty() {
        read_lines(io::stdin().lock(), Path::new("-"), &mut buffer, &mut each)
    } else {
        files.iter().try_for_each(|path| {
            if path.as_os_str() == "-" {
                read_lines(io::stdin().lock(), path, &mut buffer, &mut each)
            } else {
                let file = File::open(path).map_err(|e| named(path, e))?;
                read_lines(file, path, &mut buffer, &mut each)
            }
        })
    };
    progress.clear();
    result
}

/// A progress line on standard error, for inputs that take more than a few seconds, when
/// standard error is a terminal.
struct Progress {
    enabled: bool,
    lines: u64,
    start: Instant,
    shown: Option<Instant>,
}

impl Progress {
    /// Shown after this long.
    const AFTER: Duration = Duration::from_secs(2);
    /// Updated at most this often.
    const EVERY: Duration = Duration::from_millis(250);

    fn new() -> Self {
        Self {
            enabled: io::stderr().is_terminal(),
            lines: 0,
            start: Instant::now(),
            shown: None,
        }
    }

    fn tick(&mut self) {
        self.lines += 1;
        // Looking at the clock is cheap, but not free: once every 64k lines.
        if !self.enabled || self.lines % 65_536 != 0 {
            return;
        }
        let now = Instant::now();
        let due = match self.shown {
            None => now - self.start >= Self::AFTER,
            Some(at) => now - at >= Self::EVERY,
        };
        if due {
            let rate = self.lines as f64 / (now - self.start).as_secs_f64();
            let mut err = io::stderr();
            let _ = write!(
                err,
                "\r\x1b[2K{} lines read ({:.0} lines/s)",
                self.lines, rate
            );
            let _ = err.flush();
            self.shown = Some(now);
        }
    }

    fn clear(&self) {
        if self.shown.is_some() {
            let _ = write!(io::stderr(), "\r\x1b[2K");
        }
    }
}

fn read_lines(
    source: impl Read,
    path: &Path,
    buffer: &mut Vec<u8>,
    each: &mut impl FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let mut reader = BufReader::with_capacity(1 << 16, source);
    // Lines are handed out where they lie in the reader's buffer; only a line that runs
    // past its end is put together in `buffer`.
    buffer.clear();
    loop {
        let available = reader.fill_buf().map_err(|e| named(path, e))?;
        if available.is_empty() {
            if !buffer.is_empty() {
                each(strip_terminator(buffer))?;
                buffer.clear();
            }
            return Ok(());
        }
        let used = match memchr::memchr(b'\n', available) {
            Some(end) if buffer.is_empty() => {
                each(strip_terminator(&available[..=end]))?;
                end + 1
            }
            Some(end) => {
                buffer.extend_from_slice(&available[..=end]);
                each(strip_terminator(buffer))?;
                buffer.clear();
                end + 1
            }
            None => {
                buffer.extend_from_slice(available);
                available.len()
            }
        };
        reader.consume(used);
    }
}

/// A line as text: borrowed when it is UTF-8, with replacement characters when not.
pub fn text(raw: &[u8]) -> Cow<'_, str> {
    // `from_utf8` checks ASCII a word at a time; the lossy conversion only when needed.
    std::str::from_utf8(raw).map_or_else(|_| String::from_utf8_lossy(raw), Cow::Borrowed)
}

/// The line without its `\n` or `\r\n`. A lone `\r` elsewhere stays: it is part of the line.
pub fn strip_terminator(line: &[u8]) -> &[u8] {
    match line.strip_suffix(b"\n") {
        Some(line) => line.strip_suffix(b"\r").unwrap_or(line),
        None => line,
    }
}

fn named(path: &Path, e: io::Error) -> io::Error {
    let name = if path.as_os_str() == "-" {
        "standard input".to_owned()
    } else {
        path.display().to_string()
    };
    io::Error::new(e.kind(), format!("{name}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::{read_lines, strip_terminator};
    use std::io::{self, Read};
    use std::path::Path;

    /// A source that hands out at most `step` bytes a read, so that lines run past the end
    /// of what the reader holds.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn lines_whole_wherever_the_reads_end() {
        let input = b"ab\ncd\r\n\na longer line than a read\nlast";
        for step in [1, 2, 3, 5, 64, 1 << 20] {
            let mut lines = Vec::new();
            read_lines(
                Trickle(input, step),
                Path::new("-"),
                &mut Vec::new(),
                &mut |l| {
                    lines.push(String::from_utf8(l.to_vec()).unwrap());
                    Ok(())
                },
            )
            .unwrap();
            assert_eq!(
                lines,
                ["ab", "cd", "", "a longer line than a read", "last"],
                "{step}"
            );
        }
    }

    #[test]
    fn strips_only_the_terminator() {
        assert_eq!(strip_terminator(b"a/b\n"), b"a/b");
        assert_eq!(strip_terminator(b"a/b\r\n"), b"a/b");
        assert_eq!(strip_terminator(b"a/b"), b"a/b");
        assert_eq!(strip_terminator(b"a/b \t\n"), b"a/b \t");
        assert_eq!(strip_terminator(b"a/\rb\n"), b"a/\rb");
        assert_eq!(strip_terminator(b"\n"), b"");
        assert_eq!(strip_terminator(b"a/b\r"), b"a/b\r");
    }
}
