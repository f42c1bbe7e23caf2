//! The keyword arguments Polars hands a plugin function: the `dict` given to
//! `register_plugin_function`, as `pickle.dumps(kwargs, protocol=5)` writes it (no bytes at
//! all for none). Read here is the part of pickle such a `dict` is written in: `str` keys;
//! `None`, `bool`, `int`, `str` and `list` values (what the Polars namespace passes). Any
//! other opcode is refused by name, never guessed at.
//!
//! Every length is checked against the bytes left before anything is made of it; nesting, the
//! values kept and the bytes copied from them are bounded: any bytes give a value or an
//! error (the `plugin_kwargs` fuzz target). A list or dict referred to again (pickle's memo)
//! is refused: its value is the one it has at the end, which reading in order cannot give.
//! No dependency beyond `std`, so that the fuzz target takes this file as it is.

use std::fmt;

/// A value of the keyword arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kwarg {
    None,
    Bool(bool),
    Int(i64),
    /// An integer beyond 64 bits (Python's own functions raise `OverflowError` for one).
    Big,
    Str(String),
    List(Vec<Kwarg>),
    /// Keys in the order written (pickle writes a `dict` in its order).
    Dict(Vec<(String, Kwarg)>),
}

/// Why bytes are not keyword arguments this reader takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreadable {
    /// Where in the bytes.
    pub at: usize,
    pub why: &'static str,
}

impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "keyword arguments unreadable at byte {}: {}",
            self.at, self.why
        )
    }
}

/// The most lists and dicts open at once (the namespace's are two deep).
const MOST_OPEN: usize = 32;

/// The most values on the stack, or kept, at once.
const MOST_VALUES: usize = 1 << 16;

/// The most bytes of strings copied from those kept, for each byte read: what is made stays
/// within a constant factor of the bytes.
const COPIED_PER_BYTE: usize = 64;

/// The keyword arguments in `bytes`: an empty `Dict` for no bytes (none given).
pub fn read(bytes: &[u8]) -> Result<Kwarg, Unreadable> {
    if bytes.is_empty() {
        return Ok(Kwarg::Dict(Vec::new()));
    }
    Reader {
        bytes,
        at: 0,
        stack: Vec::new(),
        open: 0,
        marks: Vec::new(),
        memo: Vec::new(),
        copied: 0,
    }
    .run()
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    stack: Vec<Kwarg>,
    /// How many lists and dicts are on the stack.
    open: usize,
    /// Where each open MARK is on the stack.
    marks: Vec<usize>,
    /// The values kept (MEMOIZE): a string, or `None` for a list or dict.
    memo: Vec<Option<Kwarg>>,
    /// The bytes of strings copied from `memo`.
    copied: usize,
}

fn is_container(v: &Kwarg) -> bool {
    matches!(v, Kwarg::List(_) | Kwarg::Dict(_))
}

impl Reader<'_> {
    fn fail<T>(&self, at: usize, why: &'static str) -> Result<T, Unreadable> {
        Err(Unreadable { at, why })
    }

    /// The next `n` bytes.
    fn take(&mut self, n: usize) -> Result<&[u8], Unreadable> {
        if self.bytes.len() - self.at < n {
            return self.fail(self.at, "the bytes end inside an argument");
        }
        let taken = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(taken)
    }

    /// A little-endian unsigned length of `n` bytes (1, 4 or 8).
    fn length(&mut self, n: usize) -> Result<usize, Unreadable> {
        let at = self.at;
        let mut word = [0_u8; 8];
        word[..n].copy_from_slice(self.take(n)?);
        usize::try_from(u64::from_le_bytes(word)).or_else(|_| self.fail(at, "a length too long"))
    }

    fn string(&mut self, len: usize) -> Result<Kwarg, Unreadable> {
        let at = self.at;
        let bytes = self.take(len)?;
        match std::str::from_utf8(bytes) {
            Ok(s) => Ok(Kwarg::Str(s.to_owned())),
            Err(_) => self.fail(at, "a string that is not UTF-8"),
        }
    }

    fn pop(&mut self, at: usize) -> Result<Kwarg, Unreadable> {
        let above_mark = self.marks.last().is_none_or(|&m| m < self.stack.len());
        match self.stack.pop() {
            Some(v) if above_mark => {
                self.open -= usize::from(is_container(&v));
                Ok(v)
            }
            _ => self.fail(at, "a value taken that is not there"),
        }
    }

    /// The values since the last MARK, taken off the stack.
    fn since_mark(&mut self, at: usize) -> Result<Vec<Kwarg>, Unreadable> {
        let Some(mark) = self.marks.pop() else {
            return self.fail(at, "no mark");
        };
        let items = self.stack.split_off(mark);
        self.open -= items.iter().filter(|v| is_container(v)).count();
        Ok(items)
    }

    fn push(&mut self, value: Kwarg, at: usize) -> Result<(), Unreadable> {
        let container = is_container(&value);
        if self.open + usize::from(container) > MOST_OPEN {
            return self.fail(at, "nested too deep");
        }
        if self.stack.len() >= MOST_VALUES {
            return self.fail(at, "too many values");
        }
        self.open += usize::from(container);
        self.stack.push(value);
        Ok(())
    }

    /// `items` appended to the list or set into the dict below them.
    fn extend(&mut self, items: Vec<Kwarg>, at: usize) -> Result<(), Unreadable> {
        if self.marks.last().is_some_and(|&m| m >= self.stack.len()) {
            return self.fail(at, "nothing to add to");
        }
        match self.stack.last_mut() {
            Some(Kwarg::List(list)) => list.extend(items),
            Some(Kwarg::Dict(dict)) => {
                if !items.len().is_multiple_of(2) {
                    return self.fail(at, "a key with no value");
                }
                let mut items = items.into_iter();
                while let (Some(key), Some(value)) = (items.next(), items.next()) {
                    let Kwarg::Str(key) = key else {
                        return self.fail(at, "a key that is not a string");
                    };
                    match dict.iter_mut().find(|(k, _)| *k == key) {
                        Some(entry) => entry.1 = value,
                        None => dict.push((key, value)),
                    }
                }
            }
            _ => return self.fail(at, "items added to what is not a list or dict"),
        }
        Ok(())
    }

    fn run(mut self) -> Result<Kwarg, Unreadable> {
        loop {
            let at = self.at;
            let [op] = self.take(1)? else { unreachable!() };
            let op = *op;
            let value = match op {
                0x80 => {
                    // PROTO: any version of these opcodes.
                    self.take(1)?;
                    continue;
                }
                0x95 => {
                    // FRAME: its length, then what it frames, read as it comes.
                    self.take(8)?;
                    continue;
                }
                b'.' => {
                    // STOP: one value, and nothing after it.
                    let value = self.pop(at)?;
                    if !self.stack.is_empty() || !self.marks.is_empty() {
                        return self.fail(at, "values left at the end");
                    }
                    if self.at != self.bytes.len() {
                        return self.fail(self.at, "bytes after the end");
                    }
                    return Ok(value);
                }
                0x94 => {
                    // MEMOIZE: the value on top, kept for BINGET (a list or dict as such).
                    let kept = match self.stack.last() {
                        Some(v) if is_container(v) => None,
                        Some(v) => Some(v.clone()),
                        None => return self.fail(at, "nothing to keep"),
                    };
                    if self.memo.len() >= MOST_VALUES {
                        return self.fail(at, "too many values kept");
                    }
                    self.memo.push(kept);
                    continue;
                }
                b'h' | b'j' => {
                    let n = self.length(if op == b'h' { 1 } else { 4 })?;
                    let value = match self.memo.get(n) {
                        Some(Some(v)) => v.clone(),
                        Some(None) => return self.fail(at, "a list or dict referred to again"),
                        None => return self.fail(at, "a kept value that is not there"),
                    };
                    if let Kwarg::Str(s) = &value {
                        self.copied += s.len();
                        if self.copied > COPIED_PER_BYTE * self.bytes.len() {
                            return self.fail(at, "too many bytes copied");
                        }
                    }
                    value
                }
                b'(' => {
                    self.marks.push(self.stack.len());
                    continue;
                }
                b'N' => Kwarg::None,
                0x88 => Kwarg::Bool(true),
                0x89 => Kwarg::Bool(false),
                b'K' => Kwarg::Int(self.length(1)? as i64),
                b'M' => Kwarg::Int(self.length(2)? as i64),
                b'J' => Kwarg::Int(i64::from(i32::from_le_bytes(
                    self.take(4)?.try_into().expect("four bytes"),
                ))),
                0x8a | 0x8b => {
                    // LONG1, LONG4: a little-endian two's complement integer of n bytes.
                    let n = self.length(if op == 0x8a { 1 } else { 4 })?;
                    integer(self.take(n)?)
                }
                0x8c => {
                    let n = self.length(1)?;
                    self.string(n)?
                }
                b'X' => {
                    let n = self.length(4)?;
                    self.string(n)?
                }
                0x8d => {
                    let n = self.length(8)?;
                    self.string(n)?
                }
                b']' => Kwarg::List(Vec::new()),
                b'}' => Kwarg::Dict(Vec::new()),
                b'a' | b's' => {
                    let n = if op == b'a' { 1 } else { 2 };
                    let mut items = Vec::with_capacity(n);
                    for _ in 0..n {
                        items.push(self.pop(at)?);
                    }
                    items.reverse();
                    self.extend(items, at)?;
                    continue;
                }
                b'e' | b'u' => {
                    let items = self.since_mark(at)?;
                    self.extend(items, at)?;
                    continue;
                }
                _ => {
                    return self.fail(
                        at,
                        "a value of a type not read here (None, a bool, an int of 64 bits, a \
                         str, a list of them)",
                    )
                }
            };
            self.push(value, at)?;
        }
    }
}

/// The integer of the little-endian two's complement `bytes`: `Big` beyond 64 bits.
fn integer(bytes: &[u8]) -> Kwarg {
    let negative = bytes.last().is_some_and(|&b| b & 0x80 != 0);
    let fill = if negative { 0xff } else { 0 };
    let (low, high) = bytes.split_at(bytes.len().min(8));
    // Beyond eight bytes, only the sign's fill, and the eighth byte's sign the same.
    let fits = high.iter().all(|&b| b == fill)
        && (high.is_empty() || low.last().is_some_and(|&b| (b & 0x80 != 0) == negative));
    if !fits {
        return Kwarg::Big;
    }
    let mut word = [fill; 8];
    word[..low.len()].copy_from_slice(low);
    Kwarg::Int(i64::from_le_bytes(word))
}

/// `value` as `pickle.dumps(value, protocol=5)` writes it, less its framing and memo (which
/// the reader passes over): what the round trip of the tests and the fuzz target reads back
/// (the plugin itself writes none).
#[allow(dead_code)]
pub fn write(value: &Kwarg) -> Vec<u8> {
    fn put(v: &Kwarg, out: &mut Vec<u8>) {
        match v {
            Kwarg::None => out.push(b'N'),
            Kwarg::Bool(true) => out.push(0x88),
            Kwarg::Bool(false) => out.push(0x89),
            Kwarg::Int(n) => {
                out.extend([0x8a, 8]);
                out.extend(n.to_le_bytes());
            }
            Kwarg::Big => out.extend([0x8a, 9, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
            Kwarg::Str(s) if s.len() < 256 => {
                out.extend([0x8c, s.len() as u8]);
                out.extend(s.as_bytes());
            }
            Kwarg::Str(s) => {
                out.push(b'X');
                out.extend((s.len() as u32).to_le_bytes());
                out.extend(s.as_bytes());
            }
            Kwarg::List(items) => {
                out.extend([b']', b'(']);
                items.iter().for_each(|v| put(v, out));
                out.push(b'e');
            }
            Kwarg::Dict(items) => {
                out.extend([b'}', b'(']);
                for (k, v) in items {
                    put(&Kwarg::Str(k.clone()), out);
                    put(v, out);
                }
                out.push(b'u');
            }
        }
    }
    let mut out = vec![0x80, 5];
    put(value, &mut out);
    out.push(b'.');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `pickle.dumps({"flag": True, "sep": ",", "names": ["a", "bc"]}, protocol=5)`
    /// gives (CPython 3.11).
    const WRITTEN: &[u8] = b"\x80\x05\x95\x2c\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x28\x8c\x04flag\x94\x88\x8c\x03sep\x94\x8c\x01,\x94\x8c\x05names\x94\x5d\x94\x28\x8c\x01a\x94\x8c\x02bc\x94\x65\x75\x2e";

    #[test]
    fn a_dict_as_python_pickles_it_reads_back() {
        let want = Kwarg::Dict(vec![
            ("flag".into(), Kwarg::Bool(true)),
            ("sep".into(), Kwarg::Str(",".into())),
            (
                "names".into(),
                Kwarg::List(vec![Kwarg::Str("a".into()), Kwarg::Str("bc".into())]),
            ),
        ]);
        assert_eq!(read(WRITTEN), Ok(want));
        assert_eq!(read(b""), Ok(Kwarg::Dict(vec![])));
    }

    #[test]
    fn what_is_written_reads_back() {
        let values = [
            Kwarg::Dict(vec![]),
            Kwarg::Dict(vec![
                ("threads".into(), Kwarg::Int(-3)),
                ("base".into(), Kwarg::None),
                ("long".into(), Kwarg::Str("é".repeat(200))),
                (
                    "nested".into(),
                    Kwarg::List(vec![Kwarg::List(vec![]), Kwarg::Dict(vec![])]),
                ),
            ]),
            Kwarg::Int(i64::MIN),
        ];
        for v in values {
            assert_eq!(read(&write(&v)), Ok(v));
        }
    }

    #[test]
    fn every_cut_and_every_changed_byte_gives_a_value_or_an_error() {
        for n in 0..WRITTEN.len() {
            assert!(read(&WRITTEN[..n]).is_err() || n == 0, "cut at {n}");
        }
        for i in 0..WRITTEN.len() {
            for b in 0..=u8::MAX {
                let mut bytes = WRITTEN.to_vec();
                bytes[i] = b;
                let _ = read(&bytes);
            }
        }
    }

    #[test]
    fn what_is_not_read_here_is_refused_by_place() {
        // A float (BINFLOAT), a tuple (TUPLE1): not what the namespace passes.
        let float = b"\x80\x05G?\xf0\x00\x00\x00\x00\x00\x00.";
        assert_eq!(read(float).unwrap_err().at, 2);
        let deep = [b"\x80\x05".as_slice(), &[b']'; 40], b"."].concat();
        assert_eq!(read(&deep).unwrap_err().why, "nested too deep");
        assert!(read(b"\x80\x05\x8c\x05ab.").is_err());
        assert!(read(b"\x80\x05N.N").is_err());
        assert_eq!(read(b"\x80\x05J\xfe\xff\xff\xff."), Ok(Kwarg::Int(-2)));
        assert_eq!(read(b"\x80\x05\x8a\x02\x00\x80."), Ok(Kwarg::Int(-32768)));
    }

    #[test]
    fn an_integer_beyond_64_bits_is_big_and_one_written_long_is_not() {
        // 2**64 and -2**64 - 1 as pickle writes them; 2**63 - 1 and -2**63 in nine bytes.
        let long = |bytes: &[u8]| {
            [
                b"\x80\x05\x8a".as_slice(),
                &[bytes.len() as u8],
                bytes,
                b".",
            ]
            .concat()
        };
        assert_eq!(read(&long(&[0, 0, 0, 0, 0, 0, 0, 0, 1])), Ok(Kwarg::Big));
        assert_eq!(
            read(&long(&[
                0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe
            ])),
            Ok(Kwarg::Big)
        );
        assert_eq!(read(&long(&[0, 0, 0, 0, 0, 0, 0, 0x80, 0])), Ok(Kwarg::Big));
        assert_eq!(
            read(&long(&[
                0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 0
            ])),
            Ok(Kwarg::Int(i64::MAX))
        );
        assert_eq!(
            read(&long(&[0, 0, 0, 0, 0, 0, 0, 0x80, 0xff])),
            Ok(Kwarg::Int(i64::MIN))
        );
        assert_eq!(read(&long(&[])), Ok(Kwarg::Int(0)));
        let long4 = [
            b"\x80\x05\x8b\x0a\x00\x00\x00".as_slice(),
            &[0; 9],
            b"\x01.",
        ]
        .concat();
        assert_eq!(read(&long4), Ok(Kwarg::Big));
    }
}
