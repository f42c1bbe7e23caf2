//! The value of a Rust string literal from its source text, as the compiler lexed it (so it
//! is well formed: an escape the compiler refuses never reaches a macro).

/// The value of the string literal written `source` (`"…"`, `r"…"` or `r#"…"#`); `None` for
/// any other literal: numbers, characters, byte and C strings, a literal with a suffix.
pub fn string_value(source: &str) -> Option<String> {
    if let Some(raw) = source.strip_prefix('r') {
        let hashes = raw.len() - raw.trim_start_matches('#').len();
        let fence = &raw[..hashes];
        let body = raw[hashes..].strip_prefix('"')?;
        return body
            .strip_suffix(fence)?
            .strip_suffix('"')
            .map(str::to_owned);
    }
    unescape(source.strip_prefix('"')?.strip_suffix('"')?)
}

/// The text of a non-raw string literal's body with its escapes replaced (the Reference's
/// "String literals": quote, ASCII, Unicode escapes and line continuations).
fn unescape(body: &str) -> Option<String> {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let escaped = match chars.next()? {
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            '0' => '\0',
            c @ ('\\' | '\'' | '"') => c,
            'x' => {
                let hex: String = chars.by_ref().take(2).collect();
                char::from(u8::from_str_radix(&hex, 16).ok().filter(u8::is_ascii)?)
            }
            'u' => {
                if chars.next()? != '{' {
                    return None;
                }
                let hex: String = chars
                    .by_ref()
                    .take_while(|&c| c != '}')
                    .filter(|&c| c != '_')
                    .collect();
                char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?
            }
            // A line continuation: the line break and the white space after it vanish.
            '\n' => {
                while chars
                    .next_if(|c| matches!(c, ' ' | '\t' | '\n' | '\r'))
                    .is_some()
                {}
                continue;
            }
            _ => return None,
        };
        out.push(escaped);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::string_value;

    #[test]
    fn values() {
        for (source, value) in [
            (r#""10.1000/182""#, "10.1000/182"),
            (
                r#""\u{e9}\u{1_F600}/\x41\n\t\r\0\\\'\"""#,
                "é😀/A\n\t\r\0\\'\"",
            ),
            ("\"a\\\n   \t b/c\"", "ab/c"),
            (r#"r"a\b/c""#, r"a\b/c"),
            (r###"r##"a"#b/c"##"###, r##"a"#b/c"##),
            (r#""""#, ""),
        ] {
            assert_eq!(string_value(source).as_deref(), Some(value), "{source}");
        }
    }

    #[test]
    fn not_string_literals() {
        for source in [
            "42",
            "'a'",
            r#"b"10.1000/182""#,
            r#"br"x""#,
            r#"c"x""#,
            r#""x"suffix"#,
            r##"r#"x""##,
        ] {
            assert_eq!(string_value(source), None, "{source}");
        }
    }
}
