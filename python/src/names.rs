//! A column of names from a fixed list (a form's, a fix's code) being built, as Arrow's
//! dictionary: each row the one-byte place of its name in the list, the names once. A
//! row costs a byte where a string cost its name's bytes and an offset (or a 16-byte
//! view), and pyarrow, pandas and Polars read the column as a categorical one.

use std::sync::Arc;

use arrow_array::types::Int8Type;
use arrow_array::{ArrayRef, DictionaryArray, Int8Array, StringArray};
use arrow_buffer::{NullBufferBuilder, ScalarBuffer};
use arrow_schema::DataType;

use crate::failure::Failure;
use crate::validity;

pub struct Names {
    keys: Vec<i8>,
    nulls: NullBufferBuilder,
}

/// The type of a column of names: one-byte keys into strings.
pub fn data_type() -> DataType {
    DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Utf8))
}

impl Names {
    pub fn with_capacity(rows: usize) -> Self {
        Self {
            keys: Vec::with_capacity(rows),
            nulls: NullBufferBuilder::new(rows),
        }
    }

    /// The name at `index` in the list the column is finished with.
    #[inline(always)]
    pub fn append(&mut self, index: usize) {
        debug_assert!(index <= i8::MAX as usize);
        self.keys.push(index as i8);
        self.nulls.append_non_null();
    }

    pub fn append_null(&mut self) {
        self.keys.push(0);
        self.nulls.append_null();
    }

    /// `other`'s rows after these.
    pub fn join(&mut self, other: Self) {
        self.keys.extend_from_slice(&other.keys);
        validity::append(&mut self.nulls, other.nulls);
    }

    /// The column, its keys places in `names`.
    pub fn finish(&mut self, names: &[&str]) -> Result<ArrayRef, Failure> {
        let keys = Int8Array::new(
            ScalarBuffer::from(std::mem::take(&mut self.keys)),
            self.nulls.finish(),
        );
        // (Checked: every key within the names, none negative. A pass over one byte a row.)
        let column = DictionaryArray::<Int8Type>::try_new(
            keys,
            Arc::new(StringArray::from_iter_values(names)),
        )
        .map_err(Failure::value)?;
        Ok(Arc::new(column))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::Array;

    /// Names and nulls, built in parts and joined, read back as given.
    #[test]
    fn names_read_back_as_given_however_built() {
        let names = ["handle", "doi", "surrounding-whitespace"];
        let build = |rows: &[Option<usize>]| {
            let mut n = Names::with_capacity(1);
            for r in rows {
                match r {
                    Some(i) => n.append(*i),
                    None => n.append_null(),
                }
            }
            n
        };
        let (first, second) = ([Some(2), None, Some(0)], [Some(1), Some(2)]);
        for (a, b) in [
            (&first[..], &second[..]),
            (&second[..], &first[..]),
            (&[][..], &first[..]),
        ] {
            let mut column = build(a);
            column.join(build(b));
            let array = column.finish(&names).expect("keys within the names");
            array.to_data().validate_full().expect("a valid dictionary");
            assert_eq!(array.data_type(), &data_type());
            let got = array.as_dictionary::<Int8Type>();
            let values = got.values().as_string::<i32>();
            let got: Vec<Option<&str>> = got
                .keys()
                .iter()
                .map(|k| k.map(|k| values.value(k as usize)))
                .collect();
            let want: Vec<Option<&str>> = a.iter().chain(b).map(|r| r.map(|i| names[i])).collect();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn a_key_past_the_names_is_refused() {
        let mut n = Names::with_capacity(1);
        n.append(3);
        assert!(n.finish(&["a", "b", "c"]).is_err());
    }
}
