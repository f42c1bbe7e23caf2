//! DFA → Rust source.

use std::fmt::Write;

use crate::automaton::{Dfa, Skip};

/// The `static` that holds `dfa`, for the runtime in the library's `src/dfa.rs`.
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
    writeln!(s, "    start: {},", dfa.start).unwrap();
    writeln!(s, "    shift: {},", dfa.shift).unwrap();
    writeln!(s, "    classes: &{:?},", dfa.classes).unwrap();
    writeln!(s, "    transitions: &{:?},", dfa.transitions).unwrap();
    writeln!(s, "    accepting: &{:?},", dfa.accepting).unwrap();
    writeln!(s, "    stays: &{:?},", dfa.stays).unwrap();
    writeln!(s, "    labels: &{:?},", dfa.labels).unwrap();
    writeln!(s, "    label_names: &{:?},", dfa.label_names).unwrap();
    s.push_str("    skips: &[");
    for skip in &dfa.skips {
        match skip {
            Skip::None => s.push_str("crate::dfa::Skip::None, "),
            Skip::AcceptRest => s.push_str("crate::dfa::Skip::AcceptRest, "),
            Skip::Until(bytes) => {
                let b = |i: usize| bytes.get(i).or(bytes.last()).copied().unwrap();
                write!(s, "crate::dfa::Skip::Until({}, {}, {}), ", b(0), b(1), b(2)).unwrap();
            }
        }
    }
    s.push_str("],\n};\n");
    s
}
