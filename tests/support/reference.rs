//! The reference: pest's parser generated from grammar/handle.pest, and what its failure
//! says. The library decides with validators generated from the same file and explains a
//! rejection from the validator's own state; tests/differential.rs checks that verdicts,
//! indices, kinds and characters are pest's.

use handle_id::ParseErrorKind;
use pest::error::{ErrorVariant, InputLocation};
use pest::Parser;

// (Derived once, in the fuzz crate, from the same file.)
pub use handle_id_fuzz::reference::handle::{Rule, G as HandleGrammar};

/// A rejection as pest explains it: byte index, what failed, the character there.
pub type PestError = (usize, ParseErrorKind, Option<char>);

/// pest's parse of a bare handle: the offset of the separating '/', or the error.
pub fn pest_handle(input: &str) -> Result<usize, PestError> {
    match HandleGrammar::parse(Rule::handle, input) {
        Ok(mut pairs) => {
            let handle = pairs.next().expect("the entry rule yields one pair");
            let slash = handle
                .into_inner()
                .find(|p| p.as_rule() == Rule::slash)
                .expect("a parsed handle has its separating slash");
            Ok(slash.as_span().start())
        }
        Err(e) => Err(translate(input, &e)),
    }
}

/// pest's "expected these rules at this position", in the library's terms. The kind follows
/// from what the grammar expected and what it found there, asked of the grammar itself (is
/// the character a separator?).
fn translate(input: &str, error: &pest::error::Error<Rule>) -> PestError {
    let index = match error.location {
        InputLocation::Pos(p) | InputLocation::Span((p, _)) => p,
    };
    let expected: &[Rule] = match &error.variant {
        ErrorVariant::ParsingError { positives, .. } => positives,
        ErrorVariant::CustomError { .. } => &[],
    };
    let found = input[index..].chars().next();
    let is_separator = found.is_some()
        && [Rule::dot, Rule::slash]
            .into_iter()
            .any(|rule| HandleGrammar::parse(rule, &input[index..]).is_ok());
    let kind = if input.is_empty() {
        ParseErrorKind::Empty
    } else if expected.contains(&Rule::na_segment) {
        if found.is_none() || is_separator {
            ParseErrorKind::EmptySegment
        } else {
            ParseErrorKind::InvalidCharacter
        }
    } else if found.is_none() {
        // Only a "." or the "/" could have continued the naming authority.
        ParseErrorKind::MissingSlash
    } else {
        // The segment stopped before this character, and it is neither "." nor "/".
        ParseErrorKind::InvalidCharacter
    };
    (index, kind, found)
}
