//! The streaming line reader: files or standard input, one reused buffer, line terminators
//! (`\n` or `\r\n`) stripped and nothing else.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

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
    if files.is_empty() {
        return read_lines(io::stdin().lock(), Path::new("-"), &mut buffer, &mut each);
    }
    for path in files {
        if path.as_os_str() == "-" {
            read_lines(io::stdin().lock(), path, &mut buffer, &mut each)?;
        } else {
            let file = File::open(path).map_err(|e| named(path, e))?;
            read_lines(file, path, &mut buffer, &mut each)?;
        }
    }
    Ok(())
}

fn read_lines(
    source: impl Read,
    path: &Path,
    buffer: &mut Vec<u8>,
    each: &mut impl FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let mut reader = BufReader::with_capacity(1 << 16, source);
    loop {
        buffer.clear();
        if reader
            .read_until(b'\n', buffer)
            .map_err(|e| named(path, e))?
            == 0
        {
            return Ok(());
        }
        each(strip_terminator(buffer))?;
    }
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
    use super::strip_terminator;

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
