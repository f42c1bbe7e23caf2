//! What a run says on standard error about the lines it read: the first errors, each with
//! its position and a caret under the character, then a summary and the exit status.
//! Every line-reading subcommand tallies the same way.

use std::io::{self, BufWriter, Write};

use handle_id::{ParseError, Warning};

use crate::input::{Outcome, Position};
use crate::output::{Diagnostics, Problem, Visible};
use crate::style::Style;
use crate::Status;

/// How many invalid lines get a caret rendering on standard error; the rest are counted.
pub const RENDERED_ERRORS: u64 = 100;

/// Counts lines and what was wrong with them, and renders the first errors on standard
/// error: without `--json`, the first [`RENDERED_ERRORS`] errors and a summary; under
/// `--json` nothing (the records say it all).
pub struct Tally {
    pub lines: u64,
    pub invalid: u64,
    /// Lines with warnings that were reported (`warn`).
    pub warned: u64,
    pub err: BufWriter<Diagnostics<io::StderrLock<'static>>>,
    /// Whether to write diagnostics and the summary (not under `--json`).
    pub talk: bool,
    /// Whether lines are judged valid or not (all but `extract`, which finds identifiers
    /// in any line).
    pub judging: bool,
    pub style: Style,
}

impl Tally {
    /// A tally that writes to standard error when `talk`; what cannot be written there is
    /// dropped ([`Diagnostics`]).
    pub fn new(talk: bool, style: Style) -> Self {
        Tally {
            lines: 0,
            invalid: 0,
            warned: 0,
            err: BufWriter::new(Diagnostics(io::stderr().lock())),
            talk,
            judging: true,
            style,
        }
    }

    /// Counts a line, and renders its problem if it has one.
    pub fn count(
        &mut self,
        at: Position<'_>,
        input: &str,
        problem: Option<Problem>,
    ) -> io::Result<()> {
        self.lines += 1;
        let Some(problem) = problem else {
            return Ok(());
        };
        self.invalid += 1;
        if !self.talk || self.invalid > RENDERED_ERRORS {
            return Ok(());
        }
        match problem {
            Problem::Error(e) => self.render(at, input, &e),
            Problem::Strict(w) => writeln!(
                self.err,
                "{at}: {} (--strict)\n  {}",
                self.style.warn(w),
                Visible(input)
            ),
        }
    }

    /// An error's message with its position, and the input with a caret under the
    /// character (the message states the byte; the position, the line).
    fn render(&mut self, at: Position<'_>, input: &str, e: &ParseError) -> io::Result<()> {
        let rendered = e.render(input).to_string();
        let (message, picture) = rendered.split_once('\n').unwrap_or((&rendered, ""));
        writeln!(self.err, "{at}: {}\n{picture}", self.style.bad(message))
    }

    /// Reports the warnings of the line just counted, for subcommands whose readable
    /// output has no place for them (`convert`, `clean`): the first lines' on standard
    /// error, then a count.
    pub fn warn(&mut self, at: Position<'_>, warnings: &[Warning]) -> io::Result<()> {
        if warnings.is_empty() {
            return Ok(());
        }
        self.warned += 1;
        if !self.talk || self.warned > RENDERED_ERRORS {
            return Ok(());
        }
        for w in warnings {
            writeln!(self.err, "{at}: warning: {}", self.style.warn(w))?;
        }
        Ok(())
    }

    /// The summary on standard error (`hdl check: 3 lines, 2 valid, 1 invalid`, and what
    /// the subcommand adds), and the exit status: 2 when a source could not be read, 1
    /// when a line was invalid, else 0.
    pub fn finish(mut self, command: &str, read: Outcome, more: &str) -> io::Result<Status> {
        if self.talk {
            if self.invalid > RENDERED_ERRORS {
                writeln!(
                    self.err,
                    "({} more invalid lines not shown here; --json gives every error)",
                    self.invalid - RENDERED_ERRORS
                )?;
            }
            write!(self.err, "hdl {command}: {}", counted(self.lines, "line"))?;
            if self.judging {
                write!(
                    self.err,
                    ", {} valid, {} invalid",
                    self.lines - self.invalid,
                    self.invalid
                )?;
            }
            if self.warned > 0 {
                write!(self.err, ", {} with warnings", self.warned)?;
            }
            write!(self.err, "{more}")?;
            if read.failed > 0 {
                write!(self.err, "; {} not read", counted(read.failed, "file"))?;
            }
            writeln!(self.err)?;
        }
        self.err.flush()?;
        Ok(if read.failed > 0 {
            Status::Failed
        } else if self.invalid > 0 {
            Status::SomeInvalid
        } else {
            Status::AllValid
        })
    }
}

/// `1 line`, `2 lines`: a count with its noun.
pub fn counted(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
