//! A column of strings being built, in either of Arrow's layouts: `string` (offsets and
//! bytes: what pyarrow and pandas make by default) or `string_view` (Polars' own layout:
//! Polars takes such a column as it is, where it copies a `string` column into its own).

use std::sync::Arc;

use arrow_array::builder::{ArrayBuilder, StringBuilder, StringViewBuilder};
use arrow_array::ArrayRef;
use arrow_schema::{ArrowError, DataType, Field};

pub enum Strings {
    Plain(StringBuilder),
    Views(StringViewBuilder),
}

impl Strings {
    /// Room for `rows` values of `bytes` bytes in all, as views where `views` (whose bytes
    /// go into blocks that are added as they fill, none of them copied).
    pub fn with_capacity(views: bool, rows: usize, bytes: usize) -> Self {
        if views {
            Strings::Views(StringViewBuilder::with_capacity(rows))
        } else {
            Strings::Plain(StringBuilder::with_capacity(rows, bytes))
        }
    }

    pub fn append_value(&mut self, value: &str) {
        match self {
            Strings::Plain(b) => b.append_value(value),
            Strings::Views(b) => b.append_value(value),
        }
    }

    pub fn append_null(&mut self) {
        match self {
            Strings::Plain(b) => b.append_null(),
            Strings::Views(b) => b.append_null(),
        }
    }

    pub fn append_option(&mut self, value: Option<&str>) {
        match value {
            Some(v) => self.append_value(v),
            None => self.append_null(),
        }
    }

    /// How many values (and nulls) so far.
    pub fn len(&self) -> usize {
        match self {
            Strings::Plain(b) => b.len(),
            Strings::Views(b) => b.len(),
        }
    }

    /// `other`'s values after these (a view column's blocks are taken as they are).
    pub fn append(&mut self, other: Self) -> Result<(), ArrowError> {
        match (self, other) {
            (Strings::Plain(b), Strings::Plain(mut o)) => b.append_array(&o.finish()),
            (Strings::Views(b), Strings::Views(mut o)) => {
                b.append_array(&o.finish());
                Ok(())
            }
            _ => unreachable!("the parts of one column are built in one layout"),
        }
    }

    pub fn finish(&mut self) -> ArrayRef {
        match self {
            Strings::Plain(b) => Arc::new(b.finish()),
            Strings::Views(b) => Arc::new(b.finish()),
        }
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
