//! A `string` column being built (offsets and bytes), written here rather than by arrow-rs's
//! builder: a value is its bytes copied and its end pushed, inlined where it is written;
//! the builder's calls checked each value's end against what 32 bits reach, which the
//! column (`Strings`) checks once for each value anyway.

use std::sync::Arc;

use arrow_array::{ArrayRef, StringArray};
use arrow_buffer::{Buffer, NullBufferBuilder, OffsetBuffer, ScalarBuffer};

use crate::validity;

pub struct Plain {
    values: Vec<u8>,
    /// Where each value ends in `values`, after the first value's start (0).
    offsets: Vec<i32>,
    nulls: NullBufferBuilder,
}

impl Plain {
    pub fn with_capacity(rows: usize, bytes: usize) -> Self {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        Self {
            values: Vec::with_capacity(bytes),
            offsets,
            nulls: NullBufferBuilder::new(rows),
        }
    }

    /// How many values (and nulls).
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// How many bytes of text.
    pub fn bytes(&self) -> usize {
        self.values.len()
    }

    /// `value` after the others. The caller keeps the bytes within what 32-bit offsets
    /// reach (`Strings`).
    #[inline(always)]
    pub fn append_value(&mut self, value: &str) {
        self.values.extend_from_slice(value.as_bytes());
        self.end();
        self.nulls.append_non_null();
    }

    pub fn append_null(&mut self) {
        self.end();
        self.nulls.append_null();
    }

    pub fn append_nulls(&mut self, n: usize) {
        let end = self.offsets[self.offsets.len() - 1];
        self.offsets.extend(std::iter::repeat_n(end, n));
        self.nulls.append_n_nulls(n);
    }

    /// The next value ends where the bytes do.
    #[inline(always)]
    fn end(&mut self) {
        debug_assert!(i32::try_from(self.values.len()).is_ok());
        self.offsets.push(self.values.len() as i32);
    }

    /// `other`'s values after these. The caller keeps the bytes of both within what 32-bit
    /// offsets reach.
    pub fn append(&mut self, other: Self) {
        let before = self.values.len() as i32;
        self.values.extend_from_slice(&other.values);
        self.offsets
            .extend(other.offsets[1..].iter().map(|&end| before + end));
        validity::append(&mut self.nulls, other.nulls);
    }

    pub fn finish(&mut self) -> ArrayRef {
        let offsets = ScalarBuffer::from(std::mem::replace(&mut self.offsets, vec![0]));
        let values = Buffer::from_vec(std::mem::take(&mut self.values));
        // SAFETY: the offsets start at 0 and each is where a value's bytes end, pushed as
        // they were copied: they never fall and the last is the bytes' length; each value is
        // a `str` copied whole, so the bytes are UTF-8 and every offset on a character's
        // boundary; the caller kept them within what 32 bits reach.
        Arc::new(unsafe {
            StringArray::new_unchecked(
                OffsetBuffer::new_unchecked(offsets),
                values,
                self.nulls.finish(),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::Array;

    /// Values and nulls, built in two parts and joined, read back as they were given, and
    /// the result as arrow-rs checks an array.
    #[test]
    fn values_read_back_as_given_however_built() {
        let build = |values: &[Option<&str>]| {
            let mut p = Plain::with_capacity(2, 4);
            for v in values {
                match v {
                    Some(v) => p.append_value(v),
                    None => p.append_null(),
                }
            }
            p
        };
        let first = [
            Some("10.1000/abc"),
            None,
            Some("doi"),
            Some(""),
            Some("é/ü"),
        ];
        let second = [None, Some("surrounding-whitespace"), Some("20.1000/5555")];
        for (a, b) in [
            (&first[..], &second[..]),
            (&second[..], &first[..]),
            (&[][..], &first[..]),
        ] {
            let mut joined = build(a);
            joined.append(build(b));
            joined.append_nulls(2);
            let array = joined.finish();
            array.to_data().validate_full().expect("a valid array");
            let strings = array.as_string::<i32>();
            let want: Vec<Option<&str>> = a.iter().chain(b).copied().chain([None, None]).collect();
            assert_eq!(strings.iter().collect::<Vec<_>>(), want);
            assert_eq!(
                array.null_count(),
                want.iter().filter(|v| v.is_none()).count()
            );
        }
    }
}
