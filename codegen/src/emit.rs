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
    writeln!(s, "    rule: {rule:?},").unwrap();
    writeln!(s, "    walk: run_{rule},").unwrap();
    writeln!(s, "    classes: &CLASSES_{name},").unwrap();
    writeln!(s, "    shift: {},", dfa.shift).unwrap();
    writeln!(s, "    transitions: &{:?},", dfa.transitions).unwrap();
    writeln!(s, "    labels: &{:?},", dfa.labels).unwrap();
    writeln!(s, "    label_names: &{:?},", dfa.label_names).unwrap();
    s.push_str("};\n");
    s
}

/// The state machine as code: a `match` on the state, and in each state a loop with a
/// `match` on the byte (or, where many ranges lead apart, on its class), whose arms are the
/// moves. The compiler turns these into the comparisons a hand-written loop would make,
/// with no table walk. It returns where it accepted: the end of the input, or the index
/// after which every continuation is accepted.
pub fn walker(rule: &str, dfa: &Dfa) -> String {
    let mut s = String::new();
    let label = |state: usize| dfa.label_names[usize::from(dfa.labels[state])].as_str();
    let accept_rest = |state: usize| dfa.accepts_all[state];
    writeln!(s, "\n/// The byte classes of rule `{rule}`.").unwrap();
    writeln!(
        s,
        "static CLASSES_{}: [u8; 256] = {:?};",
        rule.to_ascii_uppercase(),
        dfa.classes
    )
    .unwrap();
    writeln!(
        s,
        "\n/// The validator of rule `{rule}` as code (see `{}`).",
        rule.to_ascii_uppercase()
    )
    .unwrap();
    s.push_str("#[allow(clippy::all, clippy::pedantic, unused_mut, unreachable_code)]\n");
    writeln!(
        s,
        "pub(crate) fn run_{rule}(input: &[u8]) -> Result<usize, crate::dfa::Reject> {{"
    )
    .unwrap();
    let start = usize::from(dfa.start);
    if accept_rest(start) {
        s.push_str("    let _ = input;\n    return Ok(0);\n}\n");
        return s;
    }
    let classes = format!("CLASSES_{}", rule.to_ascii_uppercase());
    s.push_str("    let mut i = 0_usize;\n");
    writeln!(s, "    let mut state = {start}_u8;").unwrap();
    s.push_str("    loop {\n        match state {\n");
    for state in 1..dfa.accepting.len() {
        if accept_rest(state) {
            continue;
        }
        let reject = |at: &str| {
            format!(
                "return Err(crate::dfa::Reject {{ index: {at}, rule: {:?} }})",
                label(state)
            )
        };
        writeln!(s, "            {state} => loop {{").unwrap();
        let at_end = if dfa.accepting[state] {
            "return Ok(i)".to_owned()
        } else {
            reject("i")
        };
        writeln!(
            s,
            "                let Some(&b) = input.get(i) else {{ {at_end} }};"
        )
        .unwrap();
        // The byte ranges that lead to each target, in byte order.
        let target = |b: usize| {
            usize::from(dfa.transitions[(state << dfa.shift) | usize::from(dfa.classes[b])])
        };
        let mut arms: Vec<(usize, Vec<(usize, usize)>)> = Vec::new();
        let mut b = 0;
        while b < 256 {
            let t = target(b);
            let mut end = b;
            while end + 1 < 256 && target(end + 1) == t {
                end += 1;
            }
            match arms.iter_mut().find(|(to, _)| *to == t) {
                Some((_, ranges)) => ranges.push((b, end)),
                None => arms.push((t, vec![(b, end)])),
            }
            b = end + 1;
        }
        // The move most bytes take goes last, as the catch-all.
        arms.sort_by_key(|(_, ranges)| ranges.iter().map(|(lo, hi)| hi - lo + 1).sum::<usize>());
        let last = arms.len() - 1;
        let action = |to: usize| {
            if to == 0 {
                reject("i")
            } else if to == state {
                "i += 1".to_owned()
            } else if accept_rest(to) {
                "return Ok(i + 1)".to_owned()
            } else {
                format!("{{ i += 1; state = {to}; break; }}")
            }
        };
        let few = arms[..last].iter().map(|(_, r)| r.len()).sum::<usize>() <= 4;
        if few {
            // A few bytes to tell apart: compare the byte itself.
            s.push_str("                match b {\n");
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
                writeln!(s, "                    {pattern} => {},", action(*to)).unwrap();
            }
        } else {
            // Many: look the byte's class up, and tell the classes apart.
            writeln!(s, "                match {classes}[usize::from(b)] {{").unwrap();
            for (k, (to, _)) in arms.iter().enumerate() {
                let pattern = if k == last {
                    "_".to_owned()
                } else {
                    let mut cs: Vec<usize> = (0..dfa.class_count)
                        .filter(|&c| usize::from(dfa.transitions[(state << dfa.shift) | c]) == *to)
                        .collect();
                    cs.dedup();
                    cs.iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(" | ")
                };
                writeln!(s, "                    {pattern} => {},", action(*to)).unwrap();
            }
        }
        s.push_str("                }\n            },\n");
    }
    s.push_str(
        "            _ => unreachable!(\"a state of this validator\"),\n        }\n    }\n}\n",
    );
    s
}
