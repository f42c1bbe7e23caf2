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

    /// The name at `index` in the list the column is finished with (which refuses a place
    /// out of it).
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
        // (Every key, a null row's too, checked within the names and none negative: a pass
        // the compiler makes 32 keys a step, where arrow-rs's check takes one at a time.)
        let (least, most) = keys
            .values()
            .iter()
            .fold((0, 0), |(l, m): (i8, i8), &k| (l.min(k), m.max(k)));
        if least < 0 || most as usize >= names.len() {
            return Err(Failure::Value(format!(
                "a name's place out of the {} names",
                names.len()
            )));
        }
        let values = Arc::new(StringArray::from_iter_values(names));
        // SAFETY: every key is a place in `values`, as just checked.
        Ok(Arc::new(unsafe {
            DictionaryArray::<Int8Type>::new_unchecked(keys, values)
        }))
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
        // (A negative key, after a null row's.)
        let mut n = Names::with_capacity(1);
        n.append_null();
        n.keys.push(-1);
        n.nulls.append_non_null();
        assert!(n.finish(&["a", "b", "c"]).is_err());
    }
}
