//! Sets of input symbols: the 128 ASCII characters and `NON_ASCII`, which stands for every
//! other character.

/// The number of symbols: ASCII, then `NON_ASCII`.
pub const SYMBOLS: usize = 129;
/// The symbol of every non-ASCII character.
pub const NON_ASCII: usize = 128;

/// A set of symbols.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CharSet {
    ascii: u128,
    non_ascii: bool,
}

impl CharSet {
    /// Every character (`ANY`).
    pub const ANY: Self = Self {
        ascii: u128::MAX,
        non_ascii: true,
    };

    /// One ASCII character; `None` for any other.
    pub fn char(c: char) -> Option<Self> {
        c.is_ascii().then(|| Self {
            ascii: 1 << (c as u32),
            non_ascii: false,
        })
    }

    /// One character, either ASCII case (`^"a"`).
    pub fn char_insensitive(c: char) -> Option<Self> {
        Some(Self::char(c.to_ascii_lowercase())?.union(Self::char(c.to_ascii_uppercase())?))
    }

    /// The characters `lo..=hi`.
    ///
    /// # Errors
    ///
    /// When the range holds some non-ASCII characters but not all of them.
    pub fn range(lo: char, hi: char) -> Result<Self, String> {
        let (lo, hi) = (u32::from(lo), u32::from(hi));
        let mut set = Self::default();
        for c in lo..=hi.min(127) {
            set.ascii |= 1 << c;
        }
        if hi >= 128 {
            if lo > 128 || hi != 0x10FFFF {
                return Err(format!(
                    "the range U+{lo:04X}..U+{hi:04X} holds some non-ASCII characters but not all; \
                     the generator treats all non-ASCII characters alike"
                ));
            }
            set.non_ascii = true;
        }
        Ok(set)
    }

    /// Both sets' symbols.
    pub fn union(self, other: Self) -> Self {
        Self {
            ascii: self.ascii | other.ascii,
            non_ascii: self.non_ascii || other.non_ascii,
        }
    }

    /// This set's symbols that are not in `other`.
    pub fn minus(self, other: Self) -> Self {
        Self {
            ascii: self.ascii & !other.ascii,
            non_ascii: self.non_ascii && !other.non_ascii,
        }
    }

    /// Whether `symbol` is in the set.
    pub fn contains(self, symbol: usize) -> bool {
        if symbol == NON_ASCII {
            self.non_ascii
        } else {
            self.ascii >> symbol & 1 == 1
        }
    }
}

/// pest's builtin character classes, by name.
pub fn builtin(name: &str) -> Option<CharSet> {
    let range = |lo, hi| CharSet::range(lo, hi).expect("ASCII ranges");
    Some(match name {
        "ANY" => CharSet::ANY,
        "ASCII" => range('\0', '\x7f'),
        "ASCII_DIGIT" => range('0', '9'),
        "ASCII_NONZERO_DIGIT" => range('1', '9'),
        "ASCII_BIN_DIGIT" => range('0', '1'),
        "ASCII_OCT_DIGIT" => range('0', '7'),
        "ASCII_HEX_DIGIT" => range('0', '9')
            .union(range('a', 'f'))
            .union(range('A', 'F')),
        "ASCII_ALPHA_LOWER" => range('a', 'z'),
        "ASCII_ALPHA_UPPER" => range('A', 'Z'),
        "ASCII_ALPHA" => range('a', 'z').union(range('A', 'Z')),
        "ASCII_ALPHANUMERIC" => range('a', 'z')
            .union(range('A', 'Z'))
            .union(range('0', '9')),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        let s = CharSet::range('\u{41}', '\u{10FFFF}').unwrap();
        assert!(s.contains(0x41) && s.contains(127) && s.contains(NON_ASCII) && !s.contains(0x40));
        assert!(CharSet::range('é', 'ü').is_err());
        assert!(CharSet::range('a', 'é').is_err());
        let hex = builtin("ASCII_HEX_DIGIT").unwrap();
        assert!(hex.contains(usize::from(b'F')) && !hex.contains(usize::from(b'g')));
        assert_eq!(CharSet::ANY.minus(CharSet::ANY), CharSet::default());
        assert!(CharSet::char('é').is_none());
        let a = CharSet::char_insensitive('a').unwrap();
        assert!(a.contains(usize::from(b'A')) && a.contains(usize::from(b'a')));
    }
}
