//! From the library's byte offsets (UTF-8) to Python's string offsets (code points).

/// Converts byte offsets into one text to code point offsets. Offsets asked for in
/// increasing order cost one pass over the text in all; ASCII text costs nothing.
pub struct CharIndex<'a> {
    text: &'a str,
    ascii: bool,
    /// The last offset converted, in bytes and in code points.
    byte: usize,
    chars: usize,
}

impl<'a> CharIndex<'a> {
    /// A converter for offsets into `text`.
    pub fn new(text: &'a str) -> Self {
        Self {
            text,
            ascii: text.is_ascii(),
            byte: 0,
            chars: 0,
        }
    }

    /// The code point offset of byte offset `byte`: the number of code points before it.
    /// An offset inside a character (which the library does not give) counts that
    /// character as before it; an offset past the end is the length in code points.
    pub fn at(&mut self, byte: usize) -> usize {
        if self.ascii {
            return byte.min(self.text.len());
        }
        let byte = byte.min(self.text.len());
        if byte < self.byte {
            self.byte = 0;
            self.chars = 0;
        }
        // The bytes between that are not UTF-8 continuation bytes start characters.
        let between = &self.text.as_bytes()[self.byte..byte];
        self.chars += between.iter().filter(|&&b| (b & 0xC0) != 0x80).count();
        self.byte = byte;
        self.chars
    }
}

/// The code point offset of byte offset `byte` into `text`.
pub fn char_index(text: &str, byte: usize) -> usize {
    CharIndex::new(text).at(byte)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_offsets_are_byte_offsets() {
        let mut c = CharIndex::new("doi:10.1000/182");
        assert_eq!((c.at(4), c.at(15), c.at(99)), (4, 15, 15));
    }

    #[test]
    fn offsets_count_code_points_in_any_order() {
        // 'é' is 2 bytes, '€' 3, '𝄞' 4.
        let text = "é€𝄞 doi:10.1/x";
        let mut c = CharIndex::new(text);
        assert_eq!(c.at(2), 1);
        assert_eq!(c.at(5), 2);
        assert_eq!(c.at(9), 3);
        assert_eq!(c.at(text.len()), text.chars().count());
        assert_eq!(c.at(0), 0);
        assert_eq!(c.at(5), 2);
        for (chars, (byte, _)) in text.char_indices().enumerate() {
            assert_eq!(char_index(text, byte), chars);
        }
    }
}
