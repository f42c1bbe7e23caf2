//! A `string_view` column being built, whose values point where their bytes already are
//! rather than being copied: a value that is a slice of the input column (most cleaned and
//! recognized handles) points into the input's buffer.
//!
//! A view is 16 bytes: the length, then a value of up to 12 bytes itself, or its first four
//! bytes, the index of the buffer it is in and its offset there (all 32-bit). The buffers
//! are the input's (`shared`, as given) and then the column's own blocks, in order.
//!
//! The result holds the input's buffers while it lives, as any Arrow slice does.

use arrow_array::{ArrayRef, StringViewArray};
use arrow_buffer::{Buffer, NullBufferBuilder, ScalarBuffer};
use std::sync::Arc;

use crate::validity;

/// The longest value a view holds itself.
const INLINE: usize = 12;

/// The most bytes one of the column's own blocks holds: what a view's offset reaches.
const BLOCK_MOST: usize = u32::MAX as usize;

/// The most room the first own block is given: most values out are found in the input
/// (a handle written in its value), so that the room a column of copies would need is
/// mostly never used, and pages the kernel must find for it each call cost more than the
/// block's growth (a large block grows in place).
const FIRST_BLOCK: usize = 1 << 20;

pub struct Views {
    views: Vec<u128>,
    nulls: NullBufferBuilder,
    /// The input's buffers a value may be found in: buffers `0..shared.len()`.
    shared: Arc<[Buffer]>,
    /// The shared buffer the last value was found in (most follow one another there).
    last: usize,
    /// The shared buffers' addresses, `(start, end, index)` by start, where there are
    /// several: a value not in `last` is looked for by halves, not buffer by buffer (a
    /// column pyarrow makes of views has a buffer for each 32 KiB, and a handle cleaned
    /// into the column's own bytes is in none of them).
    by_address: Vec<(usize, usize, usize)>,
    /// The addresses from the first of the shared buffers to the end of the last.
    spanned: core::ops::Range<usize>,
    /// The own blocks filled, buffers `shared.len()..`; then `block`, being filled.
    blocks: Vec<Buffer>,
    block: Vec<u8>,
    /// The most bytes of a value (a view's length is 32-bit; less in tests).
    pub(crate) most: usize,
    /// A value was longer than `most`: written as null, and the column refused.
    pub(crate) overflow: bool,
}

/// The view of `value` (at most `INLINE` bytes) that holds it.
#[inline]
fn inline(value: &[u8]) -> u128 {
    let mut bytes = [0u8; 16];
    bytes[..4].copy_from_slice(&(value.len() as u32).to_le_bytes());
    bytes[4..4 + value.len()].copy_from_slice(value);
    u128::from_le_bytes(bytes)
}

/// The view of a value longer than `INLINE` at `offset` in buffer `index`.
#[inline]
fn pointing(value: &[u8], index: usize, offset: usize) -> u128 {
    let mut prefix = [0u8; 4];
    prefix.copy_from_slice(&value[..4]);
    (value.len() as u128)
        | (u128::from(u32::from_le_bytes(prefix)) << 32)
        | ((index as u128) << 64)
        | ((offset as u128) << 96)
}

impl Views {
    /// Room for `rows` values, `bytes` of them the column's own; values found in `shared`
    /// point there.
    pub fn with_capacity(rows: usize, bytes: usize, shared: Arc<[Buffer]>) -> Self {
        let mut by_address = Vec::new();
        if shared.len() > 1 {
            by_address.extend(shared.iter().enumerate().map(|(i, buffer)| {
                let start = buffer.as_ptr() as usize;
                (start, start + buffer.len(), i)
            }));
            by_address.sort_unstable();
        }
        let spanned = by_address.first().map_or(0, |&(start, ..)| start)
            ..by_address.iter().map(|&(_, end, _)| end).max().unwrap_or(0);
        Self {
            views: Vec::with_capacity(rows),
            nulls: NullBufferBuilder::new(rows),
            shared,
            last: 0,
            by_address,
            spanned,
            blocks: Vec::new(),
            block: Vec::with_capacity(bytes.min(FIRST_BLOCK)),
            most: u32::MAX as usize,
            overflow: false,
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.views.len()
    }

    /// `value`, its bytes copied into the column's own (or held by its view).
    #[inline]
    pub fn append_value(&mut self, value: &str) {
        let b = value.as_bytes();
        if b.len() <= INLINE {
            self.push(inline(b));
        } else if let Some(view) = self.own(b) {
            self.push(view);
        }
    }

    /// `value`, pointing into the input's buffer where it is a slice of one, else as
    /// `append_value`.
    #[inline]
    pub fn append_found(&mut self, value: &str) {
        let b = value.as_bytes();
        if b.len() <= INLINE {
            return self.push(inline(b));
        }
        match self.find(b) {
            Some(view) => self.push(view),
            None => self.append_value(value),
        }
    }

    pub fn append_null(&mut self) {
        self.views.push(0);
        self.nulls.append_null();
    }

    /// `n` nulls at once (a column of errors is most of it nulls: one at a time cost a
    /// call and a bit's write each).
    pub fn append_nulls(&mut self, n: usize) {
        self.views.resize(self.views.len() + n, 0);
        self.nulls.append_n_nulls(n);
    }

    #[inline]
    fn push(&mut self, view: u128) {
        self.views.push(view);
        self.nulls.append_non_null();
    }

    /// The view of `b` copied into the own bytes (a new block where the one being filled
    /// would pass what a view's offset reaches); `None`, a null written, where it is
    /// longer than a view's length says.
    fn own(&mut self, b: &[u8]) -> Option<u128> {
        if b.len() > self.most {
            self.overflow = true;
            self.append_null();
            return None;
        }
        if self.block.len() + b.len() > BLOCK_MOST {
            self.seal();
        }
        let index = self.shared.len() + self.blocks.len();
        let view = pointing(b, index, self.block.len());
        self.block.extend_from_slice(b);
        Some(view)
    }

    /// The view of `b` where it lies in a shared buffer, at an offset a view reaches.
    #[inline]
    fn find(&mut self, b: &[u8]) -> Option<u128> {
        let at = b.as_ptr() as usize;
        let within = |buffer: &Buffer| {
            let start = buffer.as_ptr() as usize;
            (at >= start && at + b.len() <= start + buffer.len()).then(|| at - start)
        };
        let (index, offset) = match self.shared.get(self.last).and_then(within) {
            Some(offset) => (self.last, offset),
            // (A value made here, not found: most input columns have one buffer, and a value
            // cleaned into a buffer of its own is out of the span of all of them.)
            None if self.shared.len() < 2 || !self.spanned.contains(&at) => return None,
            None => {
                // (The last buffer to start at or before the value: where buffers overlap,
                // a value it does not hold is copied, as one in none is.)
                let before = self.by_address.partition_point(|&(start, ..)| start <= at);
                let (start, end, index) = *self.by_address.get(before.checked_sub(1)?)?;
                if at + b.len() > end {
                    return None;
                }
                self.last = index;
                (index, at - start)
            }
        };
        (offset + b.len() <= BLOCK_MOST).then(|| pointing(b, index, offset))
    }

    /// The block being filled, made one of the filled (none where it is empty), holding no
    /// more than it was filled with (its room was the most it might need).
    fn seal(&mut self) {
        if !self.block.is_empty() {
            let mut block = std::mem::take(&mut self.block);
            block.shrink_to_fit();
            self.blocks.push(Buffer::from_vec(block));
        }
    }

    /// `other`'s values after these (built over the same shared buffers): its own blocks
    /// taken as they are, after these, its views into them renumbered.
    pub fn append(&mut self, mut other: Self) {
        debug_assert_eq!(self.shared.len(), other.shared.len());
        self.overflow |= other.overflow;
        self.seal();
        other.seal();
        let (shared, before) = (self.shared.len() as u128, self.blocks.len() as u128);
        if before > 0 && !other.blocks.is_empty() {
            for &view in &other.views {
                let long = (view as u32 as usize) > INLINE;
                let index = (view >> 64) as u32 as u128;
                let view = if long && index >= shared {
                    view + (before << 64)
                } else {
                    view
                };
                self.views.push(view);
            }
        } else {
            self.views.extend_from_slice(&other.views);
        }
        self.blocks.append(&mut other.blocks);
        validity::append(&mut self.nulls, other.nulls);
    }

    /// The column (the caller refuses it where `overflow`).
    pub fn finish(&mut self) -> ArrayRef {
        self.seal();
        let buffers: Arc<[Buffer]> = self.shared.iter().chain(&self.blocks).cloned().collect();
        let views = ScalarBuffer::from(std::mem::take(&mut self.views));
        // SAFETY: each view holds its value (up to 12 bytes of a `str`, or the first four
        // and where the rest is): the bytes of a `str` copied into an own block, at the
        // index that block has among the buffers (renumbered when blocks were joined), or
        // those of a `str` found lying wholly in a shared buffer, the input's, which holds
        // UTF-8 there (at an offset from the buffer's start, as it is exported); every
        // offset and length within what 32 bits reach.
        Arc::new(unsafe { StringViewArray::new_unchecked(views, buffers, self.nulls.finish()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;

    /// Views of values found in `input`, copied and null, built in two parts and
    /// joined, read back as they were given, and the result as arrow-rs checks an array.
    #[test]
    fn views_read_back_as_given_however_built() {
        let input = Buffer::from_vec(b"doi:10.1000/abcdefghij and 10.1000/klmnopqrstu".to_vec());
        let text = std::str::from_utf8(input.as_slice()).unwrap();
        let shared: Arc<[Buffer]> = Arc::from(vec![input.clone()]);
        let (found, also) = (&text[4..22], &text[27..]);
        let build = |values: &[Option<&str>]| {
            let mut v = Views::with_capacity(4, 64, shared.clone());
            for value in values {
                match value {
                    None => v.append_null(),
                    Some(s) if s.starts_with("copy:") => v.append_value(&s[5..]),
                    Some(s) => v.append_found(s),
                }
            }
            v
        };
        let first = [Some(found), Some("copy:a value longer than twelve"), None];
        let second = [Some("copy:another long value"), Some("short"), Some(also)];
        let mut column = build(&first);
        column.append(build(&second));
        let array = column.finish();
        array
            .to_data()
            .validate_full()
            .expect("a valid string_view array");
        let array = array.as_any().downcast_ref::<StringViewArray>().unwrap();
        let got: Vec<Option<&str>> = array.iter().collect();
        assert_eq!(
            got,
            [
                Some(found),
                Some("a value longer than twelve"),
                None,
                Some("another long value"),
                Some("short"),
                Some(also),
            ]
        );
        // The found values point into the input, not copied: its buffer is the first.
        assert_eq!(array.data_buffers()[0].as_ptr(), input.as_ptr());
        let view = arrow_data::ByteView::from(array.views()[0]);
        assert_eq!((view.buffer_index, view.offset), (0, 4));
        // Each part's copies in its own block, joined as they are.
        assert_eq!(array.data_buffers().len(), 3);
    }

    /// Over many shared buffers (a column pyarrow makes of views), a value in any of them
    /// points there, in whatever order they come, and one in none is copied.
    #[test]
    fn values_are_found_among_many_buffers() {
        let buffers: Vec<Buffer> = (0..40)
            .map(|i| Buffer::from_vec(format!("10.1000/in-buffer-number-{i:02}").into_bytes()))
            .collect();
        let shared: Arc<[Buffer]> = Arc::from(buffers.clone());
        let text = |i: usize| std::str::from_utf8(buffers[i].as_slice()).unwrap();
        let elsewhere = String::from("10.1000/made-elsewhere-and-long");
        let mut v = Views::with_capacity(8, 64, shared.clone());
        let order = [3, 39, 0, 17, 17, 2];
        for &i in &order {
            v.append_found(&text(i)[8..]);
        }
        v.append_found(&elsewhere);
        let array = v.finish();
        array
            .to_data()
            .validate_full()
            .expect("a valid string_view array");
        let array = array.as_any().downcast_ref::<StringViewArray>().unwrap();
        for (row, &i) in order.iter().enumerate() {
            assert_eq!(array.value(row), &text(i)[8..]);
            let view = arrow_data::ByteView::from(array.views()[row]);
            assert_eq!((view.buffer_index, view.offset), (i as u32, 8), "row {row}");
        }
        assert_eq!(array.value(order.len()), elsewhere);
        let view = arrow_data::ByteView::from(array.views()[order.len()]);
        assert_eq!(view.buffer_index, 40, "copied into the column's own block");
    }

    #[test]
    fn a_value_longer_than_a_view_says_is_refused() {
        let mut v = Views::with_capacity(0, 0, Arc::from(Vec::new()));
        v.most = 13;
        v.append_value("thirteen byte");
        assert!(!v.overflow);
        v.append_value("fourteen bytes");
        assert!(v.overflow);
        assert_eq!(v.len(), 2);
    }
}
