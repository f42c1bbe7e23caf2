//! `clean_into` over each line of standard input, `REPS` times (0: the lines read and
//! nothing cleaned, the count to subtract), for `benches/clean-instructions.sh`: the
//! library alone, counted by callgrind. Prints how many lines cleaned and a checksum.
//!
//!     cargo run --release --example clean_lines REPS < LINES

use std::io::Read;

fn main() {
    let reps: usize = std::env::args()
        .nth(1)
        .map_or(1, |a| a.parse().expect("REPS: a number"));
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .expect("UTF-8 lines");
    let lines: Vec<&str> = text.lines().collect();
    let options = handle_id::Options::new();
    let (mut handle, mut fixes) = (String::new(), Vec::new());
    let (mut cleaned, mut sum) = (0_usize, 0_usize);
    for _ in 0..reps {
        for line in &lines {
            if handle_id::clean_into(line, &options, false, &mut handle, &mut fixes).is_ok() {
                cleaned += 1;
                sum += handle.len() + fixes.len();
            }
        }
    }
    println!("{cleaned} {sum}");
}
