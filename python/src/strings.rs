//! A column of strings being built, in either of Arrow's layouts: `string` (offsets and
//! bytes: what pyarrow and pandas make by default) or `string_view` (Polars' own layout:
//! Polars takes such a column as it is, where it copies a `string` column into its own).
//!
//! A `string` column's offsets are 32-bit: it holds 2 GiB of text at most. A column that
//! would hold more (a long column's handles, or the outputs of `to_form`, which grow) is
//! refused with `OverflowError` when it is finished, however many threads built it (its
//! writer, `Plain`, is kept within what the offsets reach: the value that would cross the
//! line is written as null). A view's length is 32-bit too: a `string_view` value of more
//! than 4 GiB is refused the same way (the builder would panic).

use std::sync::Arc;

use arrow_array::ArrayRef;
use arrow_buffer::Buffer;
use arrow_schema::{DataType, Field};

use crate::failure::Failure;
use crate::plain::Plain;
use crate::views::Views;

pub struct Strings {
    column: Column,
    /// The most bytes of text a `string` column may hold (`MOST`, less in tests; a
    /// `string_view` column's most for one value, and its overflow, are its builder's).
    most: usize,
    /// A value would have taken a `string` column past `most`: it and any after written as
    /// null, and the column refused at `finish`.
    overflow: bool,
}

enum Column {
    Plain(Plain),
    Views(Views),
}

/// The most bytes of text a `string` column holds: what its 32-bit offsets reach.
const MOST: usize = i32::MAX as usize;

impl Strings {
    /// Room for `rows` values of `bytes` bytes in all, as views where `views` (whose bytes
    /// go into blocks that are added as they fill, none of them copied).
    pub fn with_capacity(views: bool, rows: usize, bytes: usize) -> Self {
        Self::over(views, rows, bytes, &Arc::from(Vec::new()))
    }

    /// `with_capacity`, and as views, values found in `shared` (the input's buffers,
    /// `shared_buffers`) pointing there (`append_found`).
    pub fn over(views: bool, rows: usize, bytes: usize, shared: &Arc<[Buffer]>) -> Self {
        let column = if views {
            Column::Views(Views::with_capacity(rows, bytes, shared.clone()))
        } else {
            Column::Plain(Plain::with_capacity(rows, bytes.min(MOST)))
        };
        Self {
            column,
            most: MOST,
            overflow: false,
        }
    }

    #[inline(always)]
    pub fn append_value(&mut self, value: &str) {
        match &mut self.column {
            Column::Plain(b) if b.bytes() + value.len() > self.most => {
                self.overflow = true;
                b.append_null();
            }
            Column::Plain(b) => b.append_value(value),
            Column::Views(b) => b.append_value(value),
        }
    }

    /// `value`, which may be a slice of the input: as views, pointing there.
    #[inline(always)]
    pub fn append_found(&mut self, value: &str) {
        match &mut self.column {
            Column::Views(b) => b.append_found(value),
            Column::Plain(_) => self.append_value(value),
        }
    }

    pub fn append_null(&mut self) {
        match &mut self.column {
            Column::Plain(b) => b.append_null(),
            Column::Views(b) => b.append_null(),
        }
    }

    pub fn append_nulls(&mut self, n: usize) {
        match &mut self.column {
            Column::Plain(b) => b.append_nulls(n),
            Column::Views(b) => b.append_nulls(n),
        }
    }

    /// How many values (and nulls) so far.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        match &self.column {
            Column::Plain(b) => b.len(),
            Column::Views(b) => b.len(),
        }
    }

    /// `other`'s values after these (a view column's blocks are taken as they are).
    pub fn append(&mut self, other: Self) {
        self.overflow |= other.overflow;
        match (&mut self.column, other.column) {
            (Column::Plain(b), Column::Plain(o)) => {
                if b.bytes() + o.bytes() > self.most {
                    self.overflow = true;
                    b.append_nulls(o.len());
                } else {
                    b.append(o);
                }
            }
            (Column::Views(b), Column::Views(o)) => b.append(o),
            _ => unreachable!("the parts of one column are built in one layout"),
        }
    }

    /// The column, or an overflow (`OverflowError`) where it would hold more than its
    /// offsets reach (or a value longer than a view's length says).
    pub fn finish(&mut self) -> Result<ArrayRef, Failure> {
        let overflow = match &self.column {
            Column::Plain(_) => self.overflow,
            Column::Views(b) => b.overflow,
        };
        if overflow {
            return Err(Failure::Overflow(
                match self.column {
                    Column::Plain(_) => {
                        "more than 2 GiB of text in one string column: give the column in \
                         parts, or ask for string_view=True"
                    }
                    Column::Views(_) => "a value of more than 4 GiB in a string_view column",
                }
                .to_string(),
            ));
        }
        Ok(match &mut self.column {
            Column::Plain(b) => b.finish(),
            Column::Views(b) => b.finish(),
        })
    }
}

/// The type of a column of strings, as views where `views`.
pub fn data_type(views: bool) -> DataType {
    if views {
        DataType::Utf8View
    } else {
        DataType::Utf8
    }
}

/// A nullable field of strings named `name`, as views where `views`.
pub fn field(name: &str, views: bool) -> Field {
    Field::new(name, data_type(views), true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;

    /// A `string` column of at most 10 bytes, of `values`.
    fn small(values: &[&str]) -> Strings {
        let mut column = Strings {
            most: 10,
            ..Strings::with_capacity(false, 0, 0)
        };
        values.iter().for_each(|v| column.append_value(v));
        column
    }

    /// `first`'s values then `second`'s, built apart and joined.
    fn joined(first: &[&str], second: &[&str]) -> Strings {
        let mut column = small(first);
        column.append(small(second));
        column
    }

    #[test]
    fn a_column_past_what_its_offsets_reach_is_refused_however_it_was_built() {
        // Built whole: the value that crosses the line is refused, the rows kept in step.
        let mut whole = small(&["abcd", "efgh", "ijkl"]);
        assert_eq!(whole.len(), 3);
        assert!(whole.finish().is_err());
        // Built in parts that each fit, joined: refused the same.
        let mut parts = joined(&["abcd", "efgh"], &["ijkl"]);
        assert_eq!(parts.len(), 3);
        assert!(parts.finish().is_err());
        // Up to the line itself: kept.
        let column = joined(&["abcd"], &["efghij"])
            .finish()
            .expect("10 bytes fit");
        assert_eq!(column.len(), 2);
        assert_eq!(column.null_count(), 0);
        // A part that overflowed alone refuses the whole.
        assert!(joined(&[], &["abcdefghijk"]).finish().is_err());
    }

    #[test]
    fn a_view_longer_than_its_length_says_is_refused() {
        // (A value of up to 12 bytes is held by its view: the most is above that.)
        let views = |values: &[&str]| {
            let mut column = Strings::with_capacity(true, 0, 0);
            if let Column::Views(b) = &mut column.column {
                b.most = 13;
            }
            values.iter().for_each(|v| column.append_value(v));
            column
        };
        let (fits, long) = ("thirteen byte", "fourteen bytes");
        // Any number of values of up to the most each: kept.
        let column = views(&[fits, fits, "short"]).finish().expect("each fits");
        assert_eq!((column.len(), column.null_count()), (3, 0));
        // One longer, in either part of a column joined: refused.
        assert!(views(&[fits, long]).finish().is_err());
        let mut first = views(&[long]);
        first.append(views(&[fits]));
        assert!(first.finish().is_err());
        let mut first = views(&[fits]);
        first.append(views(&[long]));
        assert!(first.finish().is_err());
    }
}
