//! The runtime of the validators generated from the grammar files at build time
//! (`build.rs`, `codegen/`): a byte-class table, a transition table, and per state a fast
//! skip. Nothing here knows a rule; the tables do.

/// What a state may do before stepping byte by byte (see `codegen/src/automaton.rs`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Skip {
    /// Step one byte.
    None,
    /// Every continuation is accepted: the rest of the input is.
    AcceptRest,
    /// Every byte but these three stays here: jump to the next of them.
    Until(u8, u8, u8),
}

/// A generated validator: a minimal DFA over the bytes of a UTF-8 string.
#[derive(Debug)]
pub(crate) struct Dfa {
    /// The entry rule it was generated from.
    pub(crate) rule: &'static str,
    pub(crate) start: u8,
    /// A state's row starts at `state << shift` in `transitions`.
    pub(crate) shift: u32,
    pub(crate) classes: &'static [u8; 256],
    pub(crate) transitions: &'static [u8],
    pub(crate) accepting: &'static [bool],
    /// Per state, the byte classes that keep it in place, as a bit mask.
    pub(crate) stays: &'static [u64],
    pub(crate) skips: &'static [Skip],
    /// Per state, the grammar rule that consumed the character leading there (the entry
    /// rule for the start), as an index into `label_names`: what a rejection was inside.
    pub(crate) labels: &'static [u8],
    pub(crate) label_names: &'static [&'static str],
}

/// Where and in what a validator rejected its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reject {
    /// The index of the first byte no match can contain, or the length when the input ends
    /// too early.
    pub(crate) index: usize,
    /// The grammar rule the validator was inside (see `Dfa::labels`).
    pub(crate) rule: &'static str,
}

/// State 0 of every table: nothing can follow.
const DEAD: usize = 0;

impl Dfa {
    /// Whether `input` (the bytes of a `str`) matches the rule.
    ///
    /// A run of bytes that keep the state is stepped over with one table lookup a byte and no
    /// chain of dependent loads, or with `memchr3` when it is long and only a few bytes leave
    /// the state; a state from which everything is accepted ends the walk at once.
    #[inline]
    pub(crate) fn run(&self, input: &[u8]) -> Result<(), Reject> {
        /// Runs longer than this are finished by `memchr3` where the state allows it;
        /// shorter ones are stepped through, where `memchr3` would cost more than it saves.
        const LONG_RUN: usize = 32;
        let (classes, transitions, shift) = (self.classes, self.transitions, self.shift);
        let (stays, skips) = (self.stays, self.skips);
        let mut state = usize::from(self.start);
        let mut i = 0;
        if matches!(skips[state], Skip::AcceptRest) {
            return Ok(());
        }
        loop {
            // The bytes that keep the state: no dependent loads, so they pipeline.
            let stay = stays[state];
            loop {
                let end = input.len().min(i + LONG_RUN);
                while i < end && stay >> classes[usize::from(input[i])] & 1 == 1 {
                    i += 1;
                }
                if i < end || i == input.len() {
                    break;
                }
                if let Skip::Until(a, b, c) = skips[state] {
                    i = memchr::memchr3(a, b, c, &input[i..]).map_or(input.len(), |k| i + k);
                    break;
                }
            }
            let Some(&byte) = input.get(i) else { break };
            let next = usize::from(
                transitions[(state << shift) | usize::from(classes[usize::from(byte)])],
            );
            if next == DEAD {
                return Err(self.reject(i, state));
            }
            state = next;
            i += 1;
            if matches!(skips[state], Skip::AcceptRest) {
                return Ok(());
            }
        }
        if self.accepting[state] {
            Ok(())
        } else {
            Err(self.reject(input.len(), state))
        }
    }

    #[cold]
    fn reject(&self, index: usize, state: usize) -> Reject {
        let label = usize::from(self.labels[state]);
        Reject {
            index,
            rule: self.label_names[label],
        }
    }

    /// Whether the grammar reads `c` somewhere as the first character of one of the rules
    /// `rules`: some state moves on it to a state labelled with one of them.
    pub(crate) fn leads_to(&self, c: char, rules: &[&str]) -> bool {
        let mut buf = [0; 4];
        let class = usize::from(self.classes[usize::from(c.encode_utf8(&mut buf).as_bytes()[0])]);
        (1..self.labels.len()).any(|state| {
            let to = usize::from(self.transitions[(state << self.shift) | class]);
            to != DEAD && rules.contains(&self.label_names[usize::from(self.labels[to])])
        })
    }

    /// The length of the prefix after which every continuation is accepted, for the form
    /// rules `SOI ~ prefix ~ ANY* ~ EOI`; `None` when `input` does not start with the prefix.
    pub(crate) fn accepted_prefix(&self, input: &[u8]) -> Option<usize> {
        let mut state = usize::from(self.start);
        for (i, &byte) in input.iter().enumerate() {
            if matches!(self.skips[state], Skip::AcceptRest) {
                return Some(i);
            }
            let class = usize::from(self.classes[usize::from(byte)]);
            state = usize::from(self.transitions[(state << self.shift) | class]);
            if state == DEAD {
                return None;
            }
        }
        let done = matches!(self.skips[state], Skip::AcceptRest) || self.accepting[state];
        done.then_some(input.len())
    }
}

/// The validators, one per entry rule, generated by `build.rs`.
pub(crate) mod generated {
    include!(concat!(env!("OUT_DIR"), "/validators.rs"));
}
