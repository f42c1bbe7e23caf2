//! Writes N handle records (REST API responses, one per line) for the load benchmark:
//! handles `20.1000/<i>`, each with an HS_ADMIN value, a URL and an e-mail address, as the
//! proxy's example record has them.
//!
//!     cargo run --release -p handle-serve --example records -- 1000000 > records.jsonl

use std::io::{BufWriter, Write};

fn main() -> std::io::Result<()> {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000_000);
    let mut out = BufWriter::new(std::io::stdout().lock());
    for i in 0..n {
        writeln!(
            out,
            r#"{{"responseCode":1,"handle":"20.1000/{i}","values":[{{"index":100,"type":"HS_ADMIN","data":{{"format":"admin","value":{{"handle":"0.NA/20.1000","index":200,"permissions":"011111111111"}}}},"ttl":86400,"timestamp":"2000-04-10T22:41:46Z"}},{{"index":1,"type":"URL","data":{{"format":"string","value":"https://example.org/objects/{i}"}},"ttl":86400,"timestamp":"2001-11-21T16:21:35Z"}},{{"index":2,"type":"EMAIL","data":{{"format":"string","value":"curator@example.org"}},"ttl":86400,"timestamp":"2000-04-10T22:41:46Z"}}]}}"#
        )?;
    }
    out.flush()
}
