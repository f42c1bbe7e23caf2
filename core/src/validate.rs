//! Validation: the generated validators decide, and explain a rejection from their state.

use crate::dfa::Reject;
use crate::error::{ParseError, ParseErrorKind};
use crate::generated::{self, Rule};

/// Checks that `text` is a bare handle (H1–H4), without building anything.
///
/// Runs the validator generated from `grammar/handle.pest`: one pass, no allocation, on
/// success or failure; a rejection at byte 0 costs the same however long the input.
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
    generated::run_handle(text.as_bytes())
        .map(|_| ())
        .map_err(|reject| explain(text, reject))
}

/// Validates a bare handle and returns the offset of the `/` that separates naming
/// authority and local name.
pub(crate) fn parse_handle(text: &str) -> Result<usize, ParseError> {
    // (Most naming authorities are ASCII digits and dots, segments the grammar's
    // `na_segment` accepts: read so without the walk. A test holds the two to each other.)
    if let Some(slash) = crate::bytes::digits_and_dots_to_slash(text.as_bytes()) {
        return Ok(slash);
    }
    match generated::run_handle(text.as_bytes()) {
        // H1: a segment cannot hold a '/', so the first one is the separator
        // (tests/grammar.rs checks this against the parse tree). The walk accepts at it:
        // after the '/' every local name is accepted, and it returns the index after.
        Ok(after) => {
            debug_assert_eq!(text.as_bytes().get(after.wrapping_sub(1)), Some(&b'/'));
            Ok(after - 1)
        }
        Err(reject) => Err(explain(text, reject)),
    }
}

/// The detailed error for a rejection, from what the validator knows: the index, the rule
/// it was inside, and the character there. No allocation, and no look at the rest of the
/// input. pest's parser of the same grammar file (the reference, in
/// tests/support/reference.rs) gives the same error: tests/differential.rs checks that it
/// does on the corpus and on generated strings.
fn explain(text: &str, reject: Reject) -> ParseError {
    let found = text[reject.index..].chars().next();
    let kind = match (reject.rule, found) {
        _ if text.is_empty() => ParseErrorKind::Empty,
        // Inside a segment: only '.' or '/' could have followed.
        (Rule::NaSegment, None) => ParseErrorKind::MissingSlash,
        (Rule::NaSegment, Some(_)) => ParseErrorKind::InvalidCharacter,
        // Where a segment must start (the start, after '.'): a separator means it is empty.
        (_, None) => ParseErrorKind::EmptySegment,
        (_, Some(c)) if generated::HANDLE.leads_to(c, &[Rule::Dot, Rule::Slash]) => {
            ParseErrorKind::EmptySegment
        }
        (_, Some(_)) => ParseErrorKind::InvalidCharacter,
    };
    ParseError::new(reject.index, kind, found).in_rule(reject.rule)
}

/// The generated validators alone, for the differential tests and the benchmarks.
#[doc(hidden)]
pub mod __reference {
    /// The generated validator of entry rule `rule` (any grammar), alone: the index where it
    /// rejects. `None` for a rule with no generated validator.
    #[must_use]
    pub fn generated(rule: &str, text: &str) -> Option<Result<(), usize>> {
        let (_, dfa) = crate::generated::BY_RULE.iter().find(|(r, _)| *r == rule)?;
        Some(dfa.run(text.as_bytes()).map_err(|r| r.index))
    }

    /// The entry rules that have a generated validator, in the order of the grammars.
    pub fn rules() -> impl Iterator<Item = &'static str> {
        crate::generated::BY_RULE.iter().map(|(rule, _)| *rule)
    }

    /// The generated validators of `hdl:` URIs alone, as `HdlUri::parse` runs them
    /// (`hdl_path`, then `hdl_host`), without slicing or decoding: the index where the
    /// `hdl_host` one rejects. For the benchmarks.
    ///
    /// # Errors
    ///
    /// The byte index of the rejection.
    pub fn generated_hdl_uri(text: &str) -> Result<(), usize> {
        let b = text.as_bytes();
        crate::generated::run_hdl_path(b)
            .or_else(|_| crate::generated::run_hdl_host(b))
            .map(|_| ())
            .map_err(|r| r.index)
    }

    /// The generated validator alone: the index where it rejects.
    ///
    /// # Errors
    ///
    /// The byte index of the rejection.
    pub fn generated_handle(text: &str) -> Result<(), usize> {
        crate::generated::HANDLE
            .run(text.as_bytes())
            .map_err(|r| r.index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every text of up to seven bytes of `0`, `1`, `.`, `/` and `a`: where the reading of
    /// digits and dots finds a slash, the validator accepts the same one.
    #[test]
    fn digits_and_dots_to_a_slash_is_what_the_validator_accepts_with_the_same_slash() {
        let alphabet = b"01./a";
        let mut found = 0;
        for len in 0..=7_u32 {
            for mut n in 0..5_usize.pow(len) {
                let text: alloc::vec::Vec<u8> = (0..len)
                    .map(|_| {
                        let b = alphabet[n % 5];
                        n /= 5;
                        b
                    })
                    .collect();
                if let Some(slash) = crate::bytes::digits_and_dots_to_slash(&text) {
                    found += 1;
                    assert_eq!(
                        generated::run_handle(&text).map(|after| after - 1),
                        Ok(slash)
                    );
                }
            }
        }
        // (The shapes it reads are there to be held: `0/`, `10.1/x`, `1.0.1/…`.)
        assert!(found > 1000, "{found}");
    }
}
