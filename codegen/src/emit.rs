//! DFA → Rust source.

use std::fmt::Write;

use crate::automaton::Dfa;

/// The `static` that names `dfa`'s walker and holds the tables a rejection is explained
/// with, for the runtime in the library's `src/dfa.rs`.
pub fn validator(path: &str, rule: &str, dfa: &Dfa) -> String {
    let name = rule.to_ascii_uppercase();
    let mut s = String::new();
    writeln!(
        s,
        "\n/// The validator of rule `{rule}` in `{path}`: {} states, {} byte classes.",
        dfa.accepting.len(),
        dfa.class_count
    )
    .unwrap();
    writeln!(
        s,
        "pub(crate) static {name}: crate::dfa::Dfa = crate::dfa::Dfa {{"
    )
    .unwrap();
    writeln!(s, "    rule: Rule::{},", variant(rule)).unwrap();
    writeln!(s, "    walk: run_{rule},").unwrap();
    writeln!(s, "    classes: &CLASSES_{name},").unwrap();
    writeln!(s, "    start: {},", dfa.start).unwrap();
    writeln!(s, "    shift: {},", dfa.shift).unwrap();
    let row = 1 << dfa.shift;
    writeln!(
        s,
        "    transitions: &{},",
        rows(&dfa.transitions, row, "    ", |i| format!(
            "state {}",
            i / row
        ))
    )
    .unwrap();
    writeln!(s, "    accepting: &{:?},", dfa.accepting).unwrap();
    writeln!(s, "    labels: &{:?},", dfa.labels).unwrap();
    let names: Vec<String> = dfa
        .label_names
        .iter()
        .map(|n| format!("Rule::{}", variant(n)))
        .collect();
    writeln!(s, "    label_names: &[{}],", names.join(", ")).unwrap();
    s.push_str("};\n");
    s
}

/// A state whose main move takes at least this many bytes tests them first, by the table.
const MAIN_BYTES: usize = 8;

/// A state that moves on by at least this many bytes to one state, and rejects the others,
/// tests them by the table.
const STEP_BYTES: usize = 3;

/// `items` as a Rust array expression, `per_line` to a line, each line after a comment
/// that `name`s its first index, indented by `indent`: tables a reader can find a byte in.
fn rows<T: std::fmt::Debug>(
    items: &[T],
    per_line: usize,
    indent: &str,
    name: impl Fn(usize) -> String,
) -> String {
    let mut s = String::from("[\n");
    for (n, line) in items.chunks(per_line.max(1)).enumerate() {
        let values: Vec<String> = line.iter().map(|v| format!("{v:?}")).collect();
        writeln!(
            s,
            "{indent}    /* {} */ {},",
            name(n * per_line),
            values.join(", ")
        )
        .unwrap();
    }
    s.push_str(indent);
    s.push(']');
    s
}

/// A table with an entry per byte, sixteen bytes to a line.
fn byte_rows<T: std::fmt::Debug>(table: &[T]) -> String {
    rows(table, 16, "", |i| format!("{i:#04x}"))
}

/// The name of the `Rule` variant of rule `rule`: `u_na_segment` → `UNaSegment`.
pub fn variant(rule: &str) -> String {
    rule.split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

/// A rule's documentation: the `///` lines before it in the first grammar file that has
/// it, and that file's path.
pub type RuleDocs = std::collections::BTreeMap<String, (String, Vec<String>)>;

/// The `Rule` enum: one variant per rule of the grammars, documented as the grammar
/// documents it (as pest's derive does), which the walkers report and rejections name;
/// and its `name`, the rule as the grammar files write it.
pub fn rules(rules: &RuleDocs) -> String {
    let mut s = String::from(
        "\n/// A rule of the grammars: what a walk reports entering (see `crate::dfa::Sink`) and\n\
         /// what a rejection was inside. Code names rules by these variants, never by strings,\n\
         /// so that a rule renamed in a grammar fails to compile where it is used.\n",
    );
    s.push_str("#[allow(dead_code, clippy::enum_variant_names)]\n");
    s.push_str("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]\npub(crate) enum Rule {\n");
    for (rule, (path, doc)) in rules {
        for line in doc {
            writeln!(
                s,
                "    ///{}",
                if line.is_empty() {
                    String::new()
                } else {
                    format!(" {line}")
                }
            )
            .unwrap();
        }
        if !doc.is_empty() {
            s.push_str("    ///\n");
        }
        writeln!(s, "    /// `{rule}` in `{path}`.\n    {},", variant(rule)).unwrap();
    }
    s.push_str("}\n\nimpl Rule {\n");
    s.push_str("    /// The rule's name in its grammar file.\n");
    s.push_str("    pub(crate) const fn name(self) -> &'static str {\n        match self {\n");
    for rule in rules.keys() {
        writeln!(s, "            Self::{} => {rule:?},", variant(rule)).unwrap();
    }
    s.push_str("        }\n    }\n}\n");
    s
}

/// The state machine as code. Each state is a loop over the bytes: the bytes of its main
/// move, or of its one move, are tested by a per-rule table of byte sets (a run the state
/// stays on is skipped at once), and the other moves by a `match` on the byte or, where many
/// ranges lead apart, on its class. States are laid out in chains of nested labelled loops
/// (see [`chains`]), so that most moves are a `break` or a `continue` and only a few go
/// through the `match` on the state. It returns where it accepted: the end of the input, or
/// the index after which every continuation is accepted.
///
/// `scan_<rule>` reports to a `Sink` each move into a state of another rule, and each
/// character the entry rule consumes itself (its delimiters), with the index and the byte:
/// what a reader needs to find the parts in the same pass. `run_<rule>` is the walk with a
/// sink that ignores them, which the compiler removes.
pub fn walker(rule: &str, dfa: &Dfa) -> String {
    let mut s = String::new();
    let accept_rest = |state: usize| dfa.accepts_all[state];
    writeln!(s, "\n/// The byte classes of rule `{rule}`.").unwrap();
    writeln!(
        s,
        "static CLASSES_{}: [u8; 256] = {};",
        rule.to_ascii_uppercase(),
        byte_rows(&dfa.classes)
    )
    .unwrap();
    writeln!(
        s,
        "\n/// The validator of rule `{rule}` as code (see `{}`).",
        rule.to_ascii_uppercase()
    )
    .unwrap();
    s.push_str("#[allow(dead_code)]\n#[inline]\n");
    writeln!(
        s,
        "pub(crate) fn run_{rule}(input: &[u8]) -> Result<usize, crate::dfa::Reject> {{\n    scan_{rule}(input, &mut ())\n}}"
    )
    .unwrap();
    let header = format!(
        "\n/// The validator of rule `{rule}`, reporting the rules it enters to `sink`.\n\
         #[allow(clippy::all, clippy::pedantic, unused_mut, unused_variables, unused_labels, unreachable_code)]\n\
         pub(crate) fn scan_{rule}<S: crate::dfa::Sink<Rule>>(input: &[u8], sink: &mut S) -> Result<usize, crate::dfa::Reject> {{\n"
    );
    let start = usize::from(dfa.start);
    if accept_rest(start) {
        s.push_str(&header);
        s.push_str("    let _ = input;\n    return Ok(0);\n}\n");
        return s;
    }
    let classes = format!("CLASSES_{}", rule.to_ascii_uppercase());
    // Byte sets a table tells, one bit per set in `SETS_<RULE>[b]`:
    // - a state's main move, the one most bytes take (at least MAIN_BYTES of them), is
    //   tested first. When the state stays on them (a run of "any character but these"),
    //   the rest of the run is skipped at once, four bytes a step;
    // - a state that moves on by one set of bytes and rejects the others (the hex digits of
    //   an escape) tests only that set.
    let target = |state: usize, b: usize| {
        usize::from(dfa.transitions[(state << dfa.shift) | usize::from(dfa.classes[b])])
    };
    let has_code = |state: usize| !accept_rest(state);
    let moves_of = |state: usize| -> Vec<(usize, usize)> {
        let mut counts: Vec<(usize, usize)> = Vec::new();
        for b in (0..256).filter(|&b| reads(dfa, state, b) && target(state, b) != 0) {
            match counts.iter_mut().find(|(to, _)| *to == target(state, b)) {
                Some((_, n)) => *n += 1,
                None => counts.push((target(state, b), 1)),
            }
        }
        counts
    };
    let steps: Vec<usize> = (1..dfa.accepting.len())
        .filter(|&state| has_code(state))
        .filter(|&state| {
            let moves = moves_of(state);
            moves.len() == 1 && moves[0].0 != state && moves[0].1 >= STEP_BYTES
        })
        .collect();
    let firsts: Vec<(usize, usize)> = (1..dfa.accepting.len())
        .filter(|&state| has_code(state) && !steps.contains(&state))
        .filter_map(|state| {
            let (to, n) = moves_of(state)
                .into_iter()
                .max_by_key(|&(to, n)| (n, to == state))?;
            (n >= MAIN_BYTES).then_some((state, to))
        })
        .collect();
    let mut sets: Vec<(usize, Vec<usize>)> = firsts
        .iter()
        .map(|&(state, to)| {
            // A run's set holds every byte that keeps the state (continuation bytes too):
            // the skip reads them.
            let bytes = (0..256)
                .filter(|&b| target(state, b) == to && (to == state || reads(dfa, state, b)))
                .collect();
            (state, bytes)
        })
        .chain(steps.iter().map(|&state| {
            let bytes = (0..256)
                .filter(|&b| reads(dfa, state, b) && target(state, b) != 0)
                .collect();
            (state, bytes)
        }))
        .collect();
    sets.truncate(64);
    let word = match sets.len() {
        0..=8 => "u8",
        9..=16 => "u16",
        17..=32 => "u32",
        _ => "u64",
    };
    let table_name = format!("SETS_{}", rule.to_ascii_uppercase());
    if !sets.is_empty() {
        let table: Vec<u64> = (0..256)
            .map(|b| {
                sets.iter()
                    .enumerate()
                    .filter(|(_, (_, bytes))| bytes.contains(&b))
                    .map(|(k, _)| 1_u64 << k)
                    .sum()
            })
            .collect();
        writeln!(
            s,
            "\n/// Per byte, the sets of rule `{rule}`'s states it is in (bit k: the kth set).\nstatic {table_name}: [{word}; 256] = {};",
            byte_rows(&table)
        )
        .unwrap();
    }
    let bit = |state: usize| sets.iter().position(|(st, _)| *st == state);
    let tables = Tables {
        first: firsts
            .iter()
            .filter_map(|&(state, to)| Some((state, to, bit(state)?)))
            .collect(),
        step: steps
            .iter()
            .filter_map(|&state| Some((state, bit(state)?)))
            .collect(),
        name: table_name,
    };
    s.push_str(&header);
    s.push_str("    let mut i = 0_usize;\n");
    writeln!(s, "    let mut state = {start}_u8;").unwrap();
    s.push_str("    'walk: loop {\n        match state {\n");
    let chains = chains(dfa);
    for chain in &chains {
        writeln!(s, "            {} => {{", chain[0]).unwrap();
        for (place, &state) in chain.iter().enumerate() {
            let moves = Moves {
                next: chain.get(place + 1).copied(),
                earlier: &chain[..=place],
            };
            // Each state of the chain is a labelled loop nested in the one before.
            let indent = " ".repeat(16 + 4 * place);
            let rule = &dfa.label_names[usize::from(dfa.labels[state])];
            writeln!(s, "{indent}// State {state}, in `{rule}`.").unwrap();
            writeln!(s, "{indent}'s{state}: loop {{").unwrap();
            let mut code = String::new();
            walker_state(&mut code, dfa, state, &moves, &tables, &classes);
            for line in code.lines() {
                writeln!(s, "{indent}    {line}").unwrap();
            }
        }
        for place in (0..chain.len()).rev() {
            writeln!(s, "{}}}", " ".repeat(16 + 4 * place)).unwrap();
        }
        s.push_str("            }\n");
    }
    s.push_str(
        "            _ => unreachable!(\"a state of this validator\"),\n        }\n    }\n}\n",
    );
    s
}

/// The byte sets of a rule's table: per state, its main move `(state, to, bit)` and its
/// step `(state, bit)`; and the table's name.
struct Tables {
    first: Vec<(usize, usize, usize)>,
    step: Vec<(usize, usize)>,
    name: String,
}

/// Where the code of a state in a chain can move without the dispatch on the state.
struct Moves<'c> {
    /// The state whose code follows (`break` out of the byte loop).
    next: Option<usize>,
    /// The states of the chain up to this one, each the head of a labelled loop that
    /// encloses the rest (`continue 's<state>`).
    earlier: &'c [usize],
}

/// The states that have code, in chains. The code of a chain's states is nested, each in a
/// labelled loop holding the next: a state moves to the one after it by leaving its byte
/// loop, and to itself or any state before it in the chain by `continue` on that state's
/// label. Only moves to the first state of a chain go through the dispatch on the state.
/// So the letters of a scheme, the digits of an escape, and a segment with its '.' cost no
/// dispatch.
fn chains(dfa: &Dfa) -> Vec<Vec<usize>> {
    let count = dfa.accepting.len();
    let has_code = |state: usize| state != 0 && !dfa.accepts_all[state];
    let successors = |state: usize| -> Vec<usize> {
        let mut to: Vec<usize> = (0..dfa.class_count)
            .map(|c| usize::from(dfa.transitions[(state << dfa.shift) | c]))
            .filter(|&t| t != state && has_code(t))
            .collect();
        to.sort_unstable();
        to.dedup();
        to
    };
    let mut predecessors = vec![Vec::new(); count];
    for state in (1..count).filter(|&s| has_code(s)) {
        for t in successors(state) {
            predecessors[t].push(state);
        }
    }
    let start = usize::from(dfa.start);
    // Greedily: after the last state of a chain, a successor none of whose predecessors
    // is placed elsewhere.
    let mut placed = vec![false; count];
    let mut chains: Vec<Vec<usize>> = Vec::new();
    for head in std::iter::once(start).chain(1..count) {
        if placed[head] || !has_code(head) {
            continue;
        }
        let mut chain = vec![head];
        placed[head] = true;
        let mut at = head;
        while let Some(t) = successors(at).into_iter().find(|&t| {
            !placed[t] && t != start && predecessors[t].iter().all(|&p| p == at || !placed[p])
        }) {
            placed[t] = true;
            chain.push(t);
            at = t;
        }
        chains.push(chain);
    }
    // Then split chains until every move is possible: into a state that is not first in its
    // chain, only from the state before it or from states after it in the same chain.
    loop {
        let position = |state: usize| {
            chains
                .iter()
                .enumerate()
                .find_map(|(c, chain)| chain.iter().position(|&s| s == state).map(|k| (c, k)))
        };
        let bad = (1..count).filter(|&s| has_code(s)).find_map(|from| {
            let (fc, fk) = position(from)?;
            successors(from).into_iter().find_map(|t| {
                let (tc, tk) = position(t)?;
                let fine = tk == 0 || (tc == fc && (tk <= fk || tk == fk + 1));
                (!fine).then_some((tc, tk))
            })
        });
        let Some((c, k)) = bad else { break };
        let tail = chains[c].split_off(k);
        chains.push(tail);
    }
    // Last, a chain goes on with a copy of the short chain its last state most often moves
    // to (the one most bytes lead to), a few times: a segment and its '.', or '/' and the
    // local name, then run without the dispatch. The copies' moves stay possible: inside
    // the copy as in the original, and to other chains' first states.
    let originals = chains.clone();
    let leading_bytes = |from: usize, to: usize| {
        (0..256)
            .filter(|&b| {
                usize::from(dfa.transitions[(from << dfa.shift) | usize::from(dfa.classes[b])])
                    == to
            })
            .count()
    };
    for chain in &mut chains {
        for _ in 0..COPIES {
            let last = chain[chain.len() - 1];
            let best = successors(last)
                .into_iter()
                .filter_map(|t| originals.iter().find(|c| c[0] == t))
                .filter(|c| c.len() <= COPIED_LEN && c.iter().all(|s| !chain.contains(s)))
                .max_by_key(|c| leading_bytes(last, c[0]));
            let Some(copy) = best else { break };
            chain.extend_from_slice(copy);
        }
    }
    chains
}

/// How many chains a chain may copy after it, and how long each may be.
const COPIES: usize = 3;
const COPIED_LEN: usize = 3;

/// Whether the code of `state` looks at byte `b`. A continuation byte follows a lead byte,
/// so it can only be read in a state that some lead byte leads to; elsewhere it goes with
/// whatever move is convenient.
fn reads(dfa: &Dfa, state: usize, b: usize) -> bool {
    !(0x80..0xc0).contains(&b)
        || (1..dfa.accepting.len()).any(|from| {
            (0xc0..0x100).any(|lead| {
                usize::from(dfa.transitions[(from << dfa.shift) | usize::from(dfa.classes[lead])])
                    == state
            })
        })
}

/// The code of one state: a loop over the bytes it stays on, leaving to `next` (the state
/// whose code follows) by `break` and to any other state through the dispatch.
fn walker_state(
    s: &mut String,
    dfa: &Dfa,
    state: usize,
    moves: &Moves<'_>,
    tables: &Tables,
    classes: &str,
) {
    let table = &tables.name;
    let first = tables
        .first
        .iter()
        .find(|f| f.0 == state)
        .map(|&(_, to, k)| (to, k));
    let label = |state: usize| dfa.label_names[usize::from(dfa.labels[state])].as_str();
    let accept_rest = |state: usize| dfa.accepts_all[state];
    // Whether the move from `from` to `to` is reported.
    let reported =
        |from: usize, to: usize| dfa.labels[to] == 0 || dfa.labels[to] != dfa.labels[from];
    {
        let reject = |at: &str| {
            format!(
                "return Err(crate::dfa::Reject {{ index: {at}, rule: Rule::{} }})",
                variant(label(state))
            )
        };
        s.push_str("loop {\n");
        // A byte that stays starts a run: skip the rest of it at once.
        let stay = match first {
            Some((to, k)) if to == state => {
                format!("i = crate::dfa::skip(input, i + 1, &{table}, 1 << {k})")
            }
            _ => "i += 1".to_owned(),
        };
        let at_end = if dfa.accepting[state] {
            "return Ok(i)".to_owned()
        } else {
            reject("i")
        };
        writeln!(s, "    let Some(&b) = input.get(i) else {{ {at_end} }};").unwrap();
        // The byte ranges that lead to each target, in byte order.
        let target = |b: usize| {
            usize::from(dfa.transitions[(state << dfa.shift) | usize::from(dfa.classes[b])])
        };
        let read = |b: usize| reads(dfa, state, b);
        let mut arms: Vec<(usize, Vec<(usize, usize)>)> = Vec::new();
        let mut b = 0;
        while b < 256 {
            if !read(b) {
                b += 1;
                continue;
            }
            let t = target(b);
            let mut end = b;
            while end + 1 < 256 && read(end + 1) && target(end + 1) == t {
                end += 1;
            }
            match arms.iter_mut().find(|(to, _)| *to == t) {
                Some((_, ranges)) => ranges.push((b, end)),
                None => arms.push((t, vec![(b, end)])),
            }
            b = end + 1;
        }
        let action = |to: usize| {
            let report = if reported(state, to) {
                format!(
                    "sink.enter(Rule::{}, i, b); ",
                    variant(&dfa.label_names[usize::from(dfa.labels[to])])
                )
            } else {
                String::new()
            };
            if to == 0 {
                reject("i")
            } else if to == state {
                stay.clone()
            } else if accept_rest(to) {
                format!("{{ {report}return Ok(i + 1) }}")
            } else if Some(to) == moves.next {
                format!("{{ {report}i += 1; break; }}")
            } else if moves.earlier.contains(&to) {
                format!("{{ {report}i += 1; continue 's{to}; }}")
            } else {
                format!("{{ {report}i += 1; state = {to}; continue 'walk; }}")
            }
        };
        if let Some(&(_, k)) = tables.step.iter().find(|st| st.0 == state) {
            // One set of bytes moves on, by the table; every other byte is rejected.
            let to = arms.iter().find(|(to, _)| *to != 0).map(|(to, _)| *to);
            let to = to.expect("a step state moves somewhere");
            writeln!(
                s,
                "    if {table}[usize::from(b)] & (1 << {k}) == 0 {{ {} }}",
                reject("i")
            )
            .unwrap();
            writeln!(s, "    {};\n}}", action(to)).unwrap();
            return;
        }
        if let Some((to, k)) = first {
            // The main move's bytes first, by the table: the match then tells apart the
            // other bytes, with a few comparisons rather than a jump table.
            let then = if to == state {
                format!("{stay}; continue;")
            } else {
                format!("{};", action(to))
            };
            writeln!(
                s,
                "    if {table}[usize::from(b)] & (1 << {k}) != 0 {{ {then} }}"
            )
            .unwrap();
            if arms.len() > 1 {
                arms.retain(|&(t, _)| t != to);
            }
        }
        // The move most bytes take goes last, as the catch-all.
        arms.sort_by_key(|(_, ranges)| ranges.iter().map(|(lo, hi)| hi - lo + 1).sum::<usize>());
        let last = arms.len() - 1;
        // The classes each move reads (those of bytes read here).
        let arm_classes = |to: usize| -> Vec<usize> {
            let mut cs: Vec<usize> = (0..256)
                .filter(|&b| read(b) && target(b) == to)
                .map(|b| usize::from(dfa.classes[b]))
                .collect();
            cs.sort_unstable();
            cs.dedup();
            cs
        };
        // Compare the byte itself, or look its class up and compare that: whichever makes
        // fewer comparisons before the catch-all.
        let byte_cost: usize = arms[..last]
            .iter()
            .flat_map(|(_, r)| r.iter().map(|(lo, hi)| if lo == hi { 1 } else { 2 }))
            .sum();
        let class_cost: usize = 1 + arms[..last]
            .iter()
            .map(|(to, _)| arm_classes(*to).len())
            .sum::<usize>();
        if byte_cost <= class_cost {
            // A few bytes to tell apart: compare the byte itself.
            s.push_str("    match b {\n");
            for (k, (to, ranges)) in arms.iter().enumerate() {
                let pattern = if k == last {
                    "_".to_owned()
                } else {
                    ranges
                        .iter()
                        .map(|&(lo, hi)| {
                            if lo == hi {
                                format!("{lo:#04x}")
                            } else {
                                format!("{lo:#04x}..={hi:#04x}")
                            }
                        })
                        .collect::<Vec<_>>()
                        .join(" | ")
                };
                writeln!(s, "        {pattern} => {},", action(*to)).unwrap();
            }
        } else {
            // Many: look the byte's class up, and tell the classes apart.
            writeln!(s, "    match {classes}[usize::from(b)] {{").unwrap();
            for (k, (to, _)) in arms.iter().enumerate() {
                let pattern = if k == last {
                    "_".to_owned()
                } else {
                    arm_classes(*to)
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(" | ")
                };
                writeln!(s, "        {pattern} => {},", action(*to)).unwrap();
            }
        }
        s.push_str("    }\n}\n");
    }
}

/// The ASCII characters the one-character rule `rule` matches, as a `u128` constant named
/// after the rule in upper case (bit n: the character n), its characters in its doc.
pub fn char_set(rule: &str, dfa: &Dfa) -> String {
    let chars: Vec<char> = (0_u8..128)
        .map(char::from)
        .filter(|c| dfa.run(&c.to_string()).is_ok())
        .collect();
    let bits = chars
        .iter()
        .fold(0_u128, |bits, &c| bits | 1 << u32::from(c));
    let shown: String = chars.iter().collect();
    format!(
        "\n/// The ASCII characters rule `{rule}` matches (bit n: the character n):\n\
         /// `{shown}`.\n\
         pub(crate) const {}: u128 = {bits:#034x};\n",
        rule.to_ascii_uppercase()
    )
}

/// The first two bytes of the inputs rule `rule` may match (what `Dfa::may_start` tells
/// of two bytes, worked out here): for each first byte that can start a match (and a
/// character), the second bytes that can follow, as four 64-bit words (bit `b` of word
/// `b / 64`).
pub fn start_pairs(rule: &str, dfa: &Dfa) -> String {
    let step = |state: usize, b: usize| {
        usize::from(dfa.transitions[state * dfa.stride + usize::from(dfa.classes[b])])
    };
    let mut rows = Vec::new();
    // (A character never starts with a continuation byte: no row for them.)
    for first in (0..256).filter(|b| !(0x80..0xc0).contains(b)) {
        let state = step(usize::from(dfa.start), first);
        if state == 0 {
            continue;
        }
        let mut words = [0_u64; 4];
        for second in 0..256 {
            if step(state, second) != 0 {
                words[second / 64] |= 1 << (second % 64);
            }
        }
        let words: Vec<String> = words.iter().map(|w| format!("{w:#018x}")).collect();
        rows.push(format!("    ({first:#04x}, [{}]),", words.join(", ")));
    }
    format!(
        "\n/// The first two bytes of the inputs rule `{rule}` may match: for each first byte, the\n\
         /// second bytes, four 64-bit words (see `crate::pairs`).\n\
         #[allow(dead_code)]\n\
         pub(crate) const PAIRS_{}: &[(u8, [u64; 4])] = &[\n{}\n];\n",
        rule.to_ascii_uppercase(),
        rows.join("\n")
    )
}
