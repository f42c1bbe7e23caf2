//! Validation: the generated validators decide, and pest's parser explains a rejection.

use crate::dfa::generated;
use crate::error::ParseError;
use crate::parser;

/// Checks that `text` is a bare handle (H1–H4), without building anything.
///
/// Runs the validator generated from `grammar/handle.pest`: one pass, no allocation. Only
/// when it rejects the input does pest's parser run, to say where and why.
///
/// # Errors
///
/// A [`ParseError`] with the byte index and the grammar element that failed.
///
/// ```
/// assert!(handle_id::validate("10.1045/april2006-paskin").is_ok());
/// assert!(handle_id::validate("10.1000/").is_ok()); // an empty local name is valid (D2)
/// assert!(handle_id::validate("10..1000/x").is_err());
/// ```
pub fn validate(text: &str) -> Result<(), ParseError> {
    parse_handle(text).map(|_| ())
}

/// Validates a bare handle and returns the offset of the `/` that separates naming
/// authority and local name.
pub(crate) fn parse_handle(text: &str) -> Result<usize, ParseError> {
    match generated::HANDLE.run(text.as_bytes()) {
        // H1: a segment cannot hold a '/', so the first one is the separator
        // (tests/grammar.rs checks this against the parse tree).
        Ok(()) => Ok(memchr::memchr(b'/', text.as_bytes()).expect("a handle has a '/'")),
        Err(reject) => Err(explain(text, reject.index, parser::parse_handle)),
    }
}

/// The detailed error for a rejection at byte `at`, from pest's parser run on the text up
/// to and including the character there: nothing after it can change the verdict, and a
/// failure near the start costs little however long the input.
fn explain(text: &str, at: usize, reference: fn(&str) -> Result<usize, ParseError>) -> ParseError {
    let end = text[at..]
        .chars()
        .next()
        .map_or(text.len(), |c| at + c.len_utf8());
    match reference(&text[..end]) {
        Err(e) => e,
        // Unreachable while the validator and the grammar agree (the differential tests
        // check that they do); the whole text then has the final word.
        Ok(_) => match reference(text) {
            Err(e) => e,
            Ok(_) => {
                unreachable!("the generated validator rejects a handle pest accepts: {text:?}")
            }
        },
    }
}

/// The parsers side by side, for the differential tests and the benchmarks.
#[doc(hidden)]
pub mod __reference {
    use crate::error::ParseError;

    /// pest's parser alone, on the whole text.
    ///
    /// # Errors
    ///
    /// Its [`ParseError`].
    pub fn pest_handle(text: &str) -> Result<usize, ParseError> {
        crate::parser::parse_handle(text)
    }

    /// The generated validator of entry rule `rule` (any grammar), alone: the index where it
    /// rejects. `None` for a rule with no generated validator.
    #[must_use]
    pub fn generated(rule: &str, text: &str) -> Option<Result<(), usize>> {
        let (_, dfa) = crate::dfa::generated::BY_RULE
            .iter()
            .find(|(r, _)| *r == rule)?;
        Some(dfa.run(text.as_bytes()).map_err(|r| r.index))
    }

    /// The generated validator alone: the index where it rejects.
    ///
    /// # Errors
    ///
    /// The byte index of the rejection.
    pub fn generated_handle(text: &str) -> Result<(), usize> {
        crate::dfa::generated::HANDLE
            .run(text.as_bytes())
            .map_err(|r| r.index)
    }
}
