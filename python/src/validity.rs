//! A column's validity (which rows are null), as the parts of a column built on several
//! threads are joined: one part's after another's.

use arrow_buffer::NullBufferBuilder;

/// `other`'s validity after `to`'s (a part with no null row adds its rows as valid, without
/// a buffer of its own).
pub fn append(to: &mut NullBufferBuilder, mut other: NullBufferBuilder) {
    let len = other.len();
    match other.finish() {
        Some(nulls) => to.append_buffer(&nulls),
        None => to.append_n_non_nulls(len),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parts with and without nulls, joined in every order: each row's validity as it was
    /// given, and no buffer where no row is null.
    #[test]
    fn each_rows_validity_is_kept_as_parts_are_joined() {
        let part = |valid: &[bool]| {
            let mut b = NullBufferBuilder::new(valid.len());
            valid.iter().for_each(|&v| b.append(v));
            b
        };
        let parts: [&[bool]; 4] = [&[true, false, true], &[true, true], &[], &[false]];
        for first in parts {
            for second in parts {
                let mut joined = part(first);
                append(&mut joined, part(second));
                let want: Vec<bool> = first.iter().chain(second).copied().collect();
                assert_eq!(joined.len(), want.len());
                match joined.finish() {
                    Some(nulls) => assert_eq!(nulls.iter().collect::<Vec<_>>(), want),
                    None => assert!(want.iter().all(|&v| v)),
                }
            }
        }
    }
}
