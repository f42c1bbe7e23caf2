//! DOIs in real reference lists (SPEC C3): handle-id's extraction beside the patterns other
//! projects use, on references nobody here wrote (tests/corpus/references/: GROBID's and
//! AnyStyle's parser training data, with the DOIs their sources annotate), the same labels
//! and the same matching rule for each. Tuned on one part, reported on both; the benchmark
//! prints the same tables.

mod support;

use support::references::{references, table};

#[test]
fn f1_on_real_references_at_least_095_and_above_every_peer() {
    let refs = references();
    assert!(refs.len() > 2500, "{} references", refs.len());
    for held_out in [false, true] {
        let (t, f1s) = table(&refs, held_out);
        println!("{t}");
        let (ours, peers) = f1s.split_first().expect("handle-id first");
        assert!(ours.1 >= 0.95, "{t}");
        for peer in peers {
            assert!(ours.1 > peer.1, "{} at or above handle-id:\n{t}", peer.0);
        }
    }
}
