//! The runtime of the validators generated from the grammar files (`crate::generated`,
//! written by `cargo run -p handle-id-codegen`).
//! Each entry rule becomes a function, `scan_<rule>`, that walks the rule's minimal state
//! machine as code (a loop per state, with a `match` on the byte or its class) and reports
//! the rules it enters to a [`Sink`]; `run_<rule>`, the same walk reporting nothing; and a
//! `Dfa` value that names it and keeps the tables a rejection is explained with. Nothing
//! here knows a rule; the generated code does (`R`, the generated `Rule`, names them).

/// A generated validator.
#[derive(Debug)]
pub(crate) struct Dfa<R: 'static = crate::generated::Rule> {
    /// The entry rule it was generated from.
    pub(crate) rule: R,
    /// The state machine as code (`run_<rule>` in the generated file), over the bytes of a
    /// `str` (only those: a continuation byte is looked for only after a lead byte). `Ok`
    /// holds where it accepted: the end of the input, or the index after which every
    /// continuation is accepted.
    pub(crate) walk: fn(&[u8]) -> Result<usize, Reject<R>>,
    /// The class of each byte.
    pub(crate) classes: &'static [u8; 256],
    /// The start state.
    pub(crate) start: u8,
    /// A state's row starts at `state << shift` in `transitions`.
    pub(crate) shift: u32,
    /// The next state for each state and class; state 0 is the dead state.
    pub(crate) transitions: &'static [u8],
    /// Per state, whether an input that ends there matches the rule.
    pub(crate) accepting: &'static [bool],
    /// Per state, the grammar rule that consumed the character leading there (the entry
    /// rule for the start), as an index into `label_names`: what a rejection was inside.
    pub(crate) labels: &'static [u8],
    pub(crate) label_names: &'static [R],
}

/// Where and in what a validator rejected its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reject<R = crate::generated::Rule> {
    /// The index of the first byte no match can contain, or the length when the input ends
    /// too early.
    pub(crate) index: usize,
    /// The grammar rule the validator was inside (see `Dfa::labels`).
    pub(crate) rule: R,
}

/// What a walk reports as it goes (`scan_<rule>` in the generated code): each move into a
/// state of another rule than the one it was in, and each character the entry rule itself
/// consumes (the delimiters it writes as literals), with the byte's index and the byte.
/// Readers use it to find the parts of a text in the pass that validates it. `L` names the
/// rules (the generated `Rule`): the runtime knows no grammar.
pub(crate) trait Sink<L> {
    /// The walk moved into rule `label` on the byte `byte` at `at`.
    fn enter(&mut self, label: L, at: usize, byte: u8);
}

/// The sink of a plain validation: reports cost nothing.
impl<L> Sink<L> for () {
    #[inline(always)]
    fn enter(&mut self, _: L, _: usize, _: u8) {}
}

/// The index of the first byte from `i` on that leaves a run state (or the length):
/// the bytes whose entry in `table` has a bit of `mask`, the first four one at a time (most
/// runs are short: a naming authority's segment, a word), then four at a time.
#[inline(always)]
pub(crate) fn skip<W: Copy + Into<u64>>(
    input: &[u8],
    i: usize,
    table: &[W; 256],
    mask: u64,
) -> usize {
    let stays = |b: u8| table[usize::from(b)].into() & mask != 0;
    let mut n = i;
    for _ in 0..4 {
        match input.get(n) {
            Some(&b) if stays(b) => n += 1,
            _ => return n,
        }
    }
    let rest = input.get(n..).unwrap_or_default();
    let mut chunks = rest.chunks_exact(4);
    for c in &mut chunks {
        if !stays(c[0]) {
            return n;
        }
        if !stays(c[1]) {
            return n + 1;
        }
        if !stays(c[2]) {
            return n + 2;
        }
        if !stays(c[3]) {
            return n + 3;
        }
        n += 4;
    }
    for &b in chunks.remainder() {
        if !stays(b) {
            return n;
        }
        n += 1;
    }
    n
}

/// State 0 of every table: nothing can follow.
const DEAD: usize = 0;

impl<R: Copy + PartialEq> Dfa<R> {
    /// Whether `input` (the bytes of a `str`) matches the rule.
    #[inline]
    pub(crate) fn run(&self, input: &[u8]) -> Result<(), Reject<R>> {
        (self.walk)(input).map(|_| ())
    }

    /// Whether the grammar reads `c` somewhere as the first character of one of the rules
    /// `rules`: some state moves on it to a state labelled with one of them.
    pub(crate) fn leads_to(&self, c: char, rules: &[R]) -> bool {
        let mut buf = [0; 4];
        let class = usize::from(self.classes[usize::from(c.encode_utf8(&mut buf).as_bytes()[0])]);
        (1..self.labels.len()).any(|state| {
            let to = usize::from(self.transitions[(state << self.shift) | class]);
            to != DEAD && rules.contains(&self.label_names[usize::from(self.labels[to])])
        })
    }

    /// Whether an input that starts with `input`'s first two bytes may match: the tables
    /// tell, without the walk (extraction asks it of every word before a '/' or ':').
    #[inline]
    pub(crate) fn may_start(&self, input: &[u8]) -> bool {
        let mut state = usize::from(self.start);
        for &b in input.iter().take(2) {
            let class = usize::from(self.classes[usize::from(b)]);
            state = usize::from(self.transitions[(state << self.shift) | class]);
            if state == DEAD {
                return false;
            }
        }
        true
    }

    /// The state after `byte` from `state` (0, the dead state, when no match holds it), by
    /// the tables: for a walk that does not start at the input's first byte.
    #[inline]
    pub(crate) fn step(&self, state: usize, byte: u8) -> usize {
        let class = usize::from(self.classes[usize::from(byte)]);
        usize::from(self.transitions[(state << self.shift) | class])
    }

    /// The state after `input` from `state`, by the tables, or the index of the first byte
    /// no match can contain.
    pub(crate) fn walk_from(&self, mut state: usize, input: &[u8]) -> Result<usize, usize> {
        for (i, &b) in input.iter().enumerate() {
            state = self.step(state, b);
            if state == DEAD {
                return Err(i);
            }
        }
        Ok(state)
    }

    /// The length of the prefix after which every continuation is accepted, for the form
    /// rules `SOI ~ prefix ~ ANY* ~ EOI`; `None` when `input` does not start with the prefix.
    pub(crate) fn accepted_prefix(&self, input: &[u8]) -> Option<usize> {
        // Most texts are refused at their first byte: the tables tell, without the walk.
        if let Some(&first) = input.first() {
            let class = usize::from(self.classes[usize::from(first)]);
            let row = usize::from(self.start) << self.shift;
            if usize::from(self.transitions[row | class]) == DEAD {
                return None;
            }
        }
        (self.walk)(input).ok()
    }
}
