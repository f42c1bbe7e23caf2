//! Where lines come from: identifiers given with `--id`, files, standard input; each line
//! with its source and its number there. One reused buffer, line terminators (`\n` or
//! `\r\n`) stripped and kept apart, nothing else changed.
//!
//! A source that cannot be read is reported and passed over, as `grep` does: the run goes
//! on with the next one and ends with status 2.

use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::output::{report, Visible};

/// The sources of a run, in order: the `--id` identifiers, then the files; standard input
/// when there are neither (or for a file named `-`).
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// Identifiers given on the command line, one line each.
    pub ids: Vec<String>,
    /// Files, `-` for standard input.
    pub files: Vec<PathBuf>,
}

/// Where a line is: its source's name (when the run reads more than one source, so that
/// messages and records must say which) and its number in that source, from 1.
#[derive(Clone, Copy, Debug)]
pub struct Position<'a> {
    /// The source's name, when there are several: the file as given, `-` for standard
    /// input, `--id` for the identifiers given as arguments.
    pub source: Option<&'a str>,
    /// The line's number in its source.
    pub line: u64,
}

impl std::fmt::Display for Position<'_> {
    /// `line 4`, or `b.txt:4` when several sources are read (as compilers and `grep -H`
    /// write it).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.source {
            Some(name) => write!(f, "{}:{}", Visible(name), self.line),
            None => write!(f, "line {}", self.line),
        }
    }
}

/// One line as read.
#[derive(Clone, Copy, Debug)]
pub struct Line<'a> {
    pub position: Position<'a>,
    /// The line's bytes, without its terminator.
    pub raw: &'a [u8],
    /// Its terminator as read: `\n`, `\r\n`, or nothing for a last line without one.
    pub terminator: &'a [u8],
}

/// What reading the sources came to, besides the lines.
#[derive(Clone, Copy, Debug, Default)]
pub struct Outcome {
    /// Sources that could not be read (each reported on standard error).
    pub failed: u64,
}

impl Sources {
    /// How many sources the run reads.
    fn count(&self) -> usize {
        usize::from(!self.ids.is_empty()) + self.files.len().max(usize::from(self.ids.is_empty()))
    }

    /// Calls `each` with every line of every source in order. Memory does not grow with the
    /// input. A source that cannot be opened or read is reported (`hdl: NAME: why`) and
    /// passed over.
    ///
    /// # Errors
    ///
    /// The first error of `each` (writing the output), which ends the run.
    pub fn for_each_line(
        &self,
        mut each: impl FnMut(Line<'_>) -> io::Result<()>,
    ) -> io::Result<Outcome> {
        let several = self.count() > 1;
        let mut read = Outcome::default();
        let mut buffer = Vec::with_capacity(1024);
        let mut progress = Progress::new();
        let mut each = |line: Line<'_>| {
            progress.tick();
            each(line)
        };
        if !self.ids.is_empty() {
            let source = several.then_some("--id");
            for (i, id) in self.ids.iter().enumerate() {
                let position = Position {
                    source,
                    line: i as u64 + 1,
                };
                each(Line {
                    position,
                    raw: id.as_bytes(),
                    terminator: b"",
                })?;
            }
        }
        let stdin_only = [PathBuf::from("-")];
        let files = if self.files.is_empty() && self.ids.is_empty() {
            &stdin_only[..]
        } else {
            &self.files[..]
        };
        for path in files {
            let name = path.to_string_lossy();
            let source = several.then_some(&*name);
            let result = if path.as_os_str() == "-" {
                read_lines(io::stdin().lock(), source, &mut buffer, &mut each)
            } else {
                match File::open(path) {
                    Ok(file) => read_lines(file, source, &mut buffer, &mut each),
                    Err(e) => Err(Failure::Read(e)),
                }
            };
            match result {
                Ok(()) => {}
                Err(Failure::Write(e)) => {
                    progress.clear();
                    return Err(e);
                }
                Err(Failure::Read(e)) => {
                    read.failed += 1;
                    report(format_args!(
                        "hdl: {}: {}{}",
                        Visible(&name),
                        e,
                        hint(path, &e)
                    ));
                }
            }
        }
        progress.clear();
        Ok(read)
    }
}

/// For a file that is not there but reads as an identifier: how to give it as one.
fn hint(path: &Path, e: &io::Error) -> String {
    let text = path.to_string_lossy();
    let identifier = e.kind() == io::ErrorKind::NotFound
        && handle_id::recognize(&text, &handle_id::Options::new()).is_ok();
    if identifier {
        format!(" (to read it as an identifier: --id {text})")
    } else {
        String::new()
    }
}

/// Why reading a source stopped: its own read failed (the run goes on), or writing what
/// was read failed (the run ends).
enum Failure {
    Read(io::Error),
    Write(io::Error),
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
    name: Option<&str>,
    buffer: &mut Vec<u8>,
    each: &mut impl FnMut(Line<'_>) -> io::Result<()>,
) -> Result<(), Failure> {
    let mut reader = BufReader::with_capacity(1 << 16, source);
    let mut number = 0;
    let mut emit = |whole: &[u8]| {
        number += 1;
        let raw = strip_terminator(whole);
        each(Line {
            position: Position {
                source: name,
                line: number,
            },
            raw,
            terminator: &whole[raw.len()..],
        })
        .map_err(Failure::Write)
    };
    // Lines are handed out where they lie in the reader's buffer; only a line that runs
    // past its end is put together in `buffer`.
    buffer.clear();
    loop {
        let available = reader.fill_buf().map_err(Failure::Read)?;
        if available.is_empty() {
            if !buffer.is_empty() {
                emit(buffer)?;
                buffer.clear();
            }
            return Ok(());
        }
        let used = match memchr::memchr(b'\n', available) {
            Some(end) if buffer.is_empty() => {
                emit(&available[..=end])?;
                end + 1
            }
            Some(end) => {
                buffer.extend_from_slice(&available[..=end]);
                emit(buffer)?;
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

/// The line without its `\n` or `\r\n`. A lone `\r` elsewhere stays: it is part of the line.
pub fn strip_terminator(line: &[u8]) -> &[u8] {
    match line.strip_suffix(b"\n") {
        Some(line) => line.strip_suffix(b"\r").unwrap_or(line),
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::{read_lines, strip_terminator};
    use std::io::{self, Read};

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
            let read = read_lines(Trickle(input, step), None, &mut Vec::new(), &mut |l| {
                let text = String::from_utf8(l.raw.to_vec()).unwrap();
                lines.push((l.position.line, text, l.terminator.to_vec()));
                Ok(())
            });
            assert!(read.is_ok());
            let expected: Vec<(u64, String, Vec<u8>)> = [
                ("ab", &b"\n"[..]),
                ("cd", b"\r\n"),
                ("", b"\n"),
                ("a longer line than a read", b"\n"),
                ("last", b""),
            ]
            .iter()
            .enumerate()
            .map(|(i, (t, end))| (i as u64 + 1, (*t).to_owned(), end.to_vec()))
            .collect();
            assert_eq!(lines, expected, "{step}");
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
