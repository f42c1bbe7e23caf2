//! NFA → minimal DFA over bytes: subset construction, Moore's partition refinement, byte
//! classes, and the states from which everything is accepted.

use std::collections::{BTreeSet, HashMap};

use crate::charset::{NON_ASCII, SYMBOLS};
use crate::nfa::Nfa;

/// The dead state: every table has it at index 0.
pub const DEAD: usize = 0;

/// A minimal deterministic automaton over the bytes of a UTF-8 string.
#[derive(Debug)]
pub struct Dfa {
    /// The class of each byte.
    pub classes: [u8; 256],
    /// The number of byte classes.
    pub class_count: usize,
    /// The row length of `transitions`: `class_count` rounded up to a power of two, so that
    /// a row starts at `state << shift`.
    pub stride: usize,
    /// `stride == 1 << shift`.
    pub shift: u32,
    /// `transitions[state * stride + class]`.
    pub transitions: Vec<u8>,
    /// Whether each state accepts.
    pub accepting: Vec<bool>,
    /// The start state.
    pub start: u8,
    /// Per state, whether every continuation from it is accepted: the walk ends there.
    pub accepts_all: Vec<bool>,
    /// Each state's label: the rule that consumed the character that led there (see
    /// `nfa::State::label`), as an index into `label_names`; the entry rule for the start.
    pub labels: Vec<u8>,
    /// The rule names of `labels`.
    pub label_names: Vec<String>,
}

impl Dfa {
    /// Determinises and minimises `nfa`.
    ///
    /// # Errors
    ///
    /// When the minimal automaton has more than 256 states.
    pub fn from_nfa(nfa: &Nfa) -> Result<Self, String> {
        let (table, accepting, labels, start) = determinise(nfa);
        let (table, accepting, labels, start) = minimise(&table, &accepting, &labels, start);
        if accepting.len() > 256 || nfa.labels.len() > 256 {
            return Err(format!(
                "{} states do not fit the u8 tables",
                accepting.len()
            ));
        }
        let mut dfa = Self::with_byte_classes(&table, accepting, start);
        dfa.labels = labels.iter().map(|&l| u8::try_from(l).unwrap()).collect();
        dfa.label_names.clone_from(&nfa.labels);
        Ok(dfa)
    }

    /// Runs the automaton over `input` with the tables: the index
    /// where it fails, if it does. For tests of the generator itself.
    pub fn run(&self, input: &str) -> Result<(), usize> {
        let mut state = usize::from(self.start);
        for (i, &b) in input.as_bytes().iter().enumerate() {
            state = usize::from(
                self.transitions[state * self.stride + usize::from(self.classes[usize::from(b)])],
            );
            if state == DEAD {
                return Err(i);
            }
        }
        if self.accepting[state] {
            Ok(())
        } else {
            Err(input.len())
        }
    }

    /// Byte level: ASCII bytes are their symbol, a lead byte is `NON_ASCII`, and a
    /// continuation byte leaves every state as it is. Bytes that act alike share a class.
    fn with_byte_classes(table: &[[usize; SYMBOLS]], accepting: Vec<bool>, start: usize) -> Self {
        let column = |b: usize| -> Vec<usize> {
            (0..table.len())
                .map(|s| match b {
                    0..=0x7f => table[s][b],
                    0x80..=0xbf => s,
                    _ => table[s][NON_ASCII],
                })
                .collect()
        };
        let mut class_of_column: HashMap<Vec<usize>, u8> = HashMap::new();
        let mut columns = Vec::new();
        let mut classes = [0_u8; 256];
        for (b, class) in classes.iter_mut().enumerate() {
            let col = column(b);
            let next = u8::try_from(class_of_column.len()).expect("at most 256 classes");
            *class = *class_of_column.entry(col.clone()).or_insert_with(|| {
                columns.push(col);
                next
            });
        }
        let class_count = columns.len();
        let stride = class_count.next_power_of_two();
        let shift = stride.trailing_zeros();
        let mut transitions = vec![0_u8; table.len() * stride];
        for (class, col) in columns.iter().enumerate() {
            for (s, &to) in col.iter().enumerate() {
                transitions[s * stride + class] = u8::try_from(to).expect("at most 256 states");
            }
        }
        // The states from which every continuation is accepted: accepting, and every byte
        // leads to such a state (a fixpoint from "accepting and loops on every byte").
        let mut accepts_all: Vec<bool> = accepting.clone();
        loop {
            let next: Vec<bool> = (0..table.len())
                .map(|s| {
                    accepts_all[s]
                        && (0..256).all(|b| {
                            accepts_all
                                [usize::from(transitions[s * stride + usize::from(classes[b])])]
                        })
                })
                .collect();
            if next == accepts_all {
                break;
            }
            accepts_all = next;
        }
        Self {
            accepts_all,
            classes,
            class_count,
            stride,
            shift,
            transitions,
            accepting,
            start: u8::try_from(start).expect("at most 256 states"),
            labels: Vec::new(),
            label_names: Vec::new(),
        }
    }
}

fn closure(nfa: &Nfa, set: &mut BTreeSet<usize>) {
    let mut todo: Vec<usize> = set.iter().copied().collect();
    while let Some(s) = todo.pop() {
        for &t in &nfa.states[s].eps {
            if set.insert(t) {
                todo.push(t);
            }
        }
    }
}

/// The label of a set of NFA states: the deepest label among them, the entry rule if none.
fn label_of(nfa: &Nfa, set: &BTreeSet<usize>) -> usize {
    set.iter()
        .filter_map(|&s| nfa.states[s].label)
        .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
        .map_or(0, |(_, label)| label)
}

/// Subset construction. State 0 is the dead (empty) set.
fn determinise(nfa: &Nfa) -> (Vec<[usize; SYMBOLS]>, Vec<bool>, Vec<usize>, usize) {
    let mut ids: HashMap<BTreeSet<usize>, usize> = HashMap::new();
    let mut sets: Vec<BTreeSet<usize>> = Vec::new();
    let mut intern = |set: BTreeSet<usize>, sets: &mut Vec<BTreeSet<usize>>| -> usize {
        *ids.entry(set.clone()).or_insert_with(|| {
            sets.push(set);
            sets.len() - 1
        })
    };
    intern(BTreeSet::new(), &mut sets);
    let mut start = BTreeSet::from([0]);
    closure(nfa, &mut start);
    let start = intern(start, &mut sets);
    let mut table = Vec::new();
    let mut next = 0;
    while next < sets.len() {
        let mut row = [DEAD; SYMBOLS];
        for (symbol, cell) in row.iter_mut().enumerate() {
            let mut to = BTreeSet::new();
            for &s in &sets[next] {
                for (set, t) in &nfa.states[s].edges {
                    if set.contains(symbol) {
                        to.insert(*t);
                    }
                }
            }
            closure(nfa, &mut to);
            *cell = intern(to, &mut sets);
        }
        table.push(row);
        next += 1;
    }
    let accepting = sets.iter().map(|s| s.contains(&nfa.accept)).collect();
    let labels = sets.iter().map(|s| label_of(nfa, s)).collect();
    (table, accepting, labels, start)
}

/// Moore's partition refinement, starting from (accepting, label) so that labels survive;
/// the dead state's block becomes state 0.
fn minimise(
    table: &[[usize; SYMBOLS]],
    accepting: &[bool],
    labels: &[usize],
    start: usize,
) -> (Vec<[usize; SYMBOLS]>, Vec<bool>, Vec<usize>, usize) {
    let mut first: HashMap<(bool, usize), usize> = HashMap::new();
    let mut block: Vec<usize> = (0..table.len())
        .map(|s| {
            let n = first.len();
            *first.entry((accepting[s], labels[s])).or_insert(n)
        })
        .collect();
    loop {
        let mut ids: HashMap<(usize, Vec<usize>), usize> = HashMap::new();
        // Number blocks in order of first appearance, so the dead state (0) stays block 0.
        let refined: Vec<usize> = (0..table.len())
            .map(|s| {
                let signature = (block[s], table[s].iter().map(|&t| block[t]).collect());
                let n = ids.len();
                *ids.entry(signature).or_insert(n)
            })
            .collect();
        let stable = ids.len() == block.iter().collect::<BTreeSet<_>>().len();
        block = refined;
        if stable {
            break;
        }
    }
    let count = block.iter().max().map_or(0, |m| m + 1);
    let mut new_table = vec![[DEAD; SYMBOLS]; count];
    let mut new_accepting = vec![false; count];
    let mut new_labels = vec![0; count];
    for s in 0..table.len() {
        for symbol in 0..SYMBOLS {
            new_table[block[s]][symbol] = block[table[s][symbol]];
        }
        new_accepting[block[s]] = accepting[s];
        new_labels[block[s]] = labels[s];
    }
    (new_table, new_accepting, new_labels, block[start])
}
