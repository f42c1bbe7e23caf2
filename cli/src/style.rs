//! Colour on a terminal, plain text elsewhere; `NO_COLOR` respected.

use std::fmt;
use std::io::{self, IsTerminal, Write};

use clap::ValueEnum;

/// `--color`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum ColorChoice {
    /// Colour when the output is a terminal and `NO_COLOR` is not set.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// Whether to paint one output stream.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    on: bool,
}

impl Style {
    /// The style for a stream that is a terminal or not.
    pub fn new(choice: ColorChoice, is_terminal: bool) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let on = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => is_terminal && !no_color,
        };
        Self { on }
    }

    /// The style for standard output.
    pub fn stdout(choice: ColorChoice) -> Self {
        Self::new(choice, std::io::stdout().is_terminal())
    }

    /// The style for standard error.
    pub fn stderr(choice: ColorChoice) -> Self {
        Self::new(choice, std::io::stderr().is_terminal())
    }

    /// `text` in green.
    pub fn good<T: fmt::Display>(self, text: T) -> Painted<T> {
        Painted(text, if self.on { "\x1b[32m" } else { "" })
    }

    /// `text` in red.
    pub fn bad<T: fmt::Display>(self, text: T) -> Painted<T> {
        Painted(text, if self.on { "\x1b[31m" } else { "" })
    }

    /// Writes `text` in green, without going through `fmt`.
    pub fn write_good(self, out: &mut impl Write, text: &str) -> io::Result<()> {
        if self.on {
            write!(out, "{}", self.good(text))
        } else {
            out.write_all(text.as_bytes())
        }
    }

    /// `text` in yellow.
    pub fn warn<T: fmt::Display>(self, text: T) -> Painted<T> {
        Painted(text, if self.on { "\x1b[33m" } else { "" })
    }
}

/// Text with a colour, reset after it.
pub struct Painted<T>(T, &'static str);

impl<T: fmt::Display> fmt::Display for Painted<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.1.is_empty() {
            self.0.fmt(f)
        } else {
            write!(f, "{}{}\x1b[0m", self.1, self.0)
        }
    }
}
