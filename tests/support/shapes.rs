//! Texts that cost the most per byte to extract from, as one line: an anchor on every few
//! bytes, or identifiers that each end at a bracket or a quote, repeated. Each once cost
//! time quadratic in its length (an anchor read up to 8 KiB ahead, a closing bracket looked
//! back over the whole line); the tests hold what extraction reads on them to a constant
//! factor of their length, and the benchmark times them beside ordinary text.

/// `(name, the unit repeated)`.
pub const SHAPES: &[(&str, &str)] = &[
    ("doi: repeated", "doi:"),
    ("hdl: repeated", "hdl:"),
    ("10.1234/ repeated (one long DOI)", "10.1234/"),
    ("10.1000/) repeated", "10.1000/)"),
    ("10.1000/\" repeated", "10.1000/\""),
    ("10.1000/] repeated", "10.1000/]"),
    ("10.1000/a) repeated", "10.1000/a)"),
    ("a bracket opened after each DOI", "10.1000/a(b[c)"),
    ("hdl: URIs each refused at the same byte", "hdl:1/^,"),
    ("nested brackets", "(hdl:1/"),
    (
        "resolver URLs with an empty naming authority",
        "https://doi.org/@/",
    ),
    ("resolver URLs with a bad escape", "https://doi.org/1/%FF,"),
    (
        "resolver URLs pasted one before another",
        "https://doi.org/",
    ),
    (
        "a DOI in another site's URL before each query",
        "https://x.org/10.1000/a?",
    ),
    ("info: URIs with a bad escape", "info:hdl/1/%FF"),
    ("hdl: URIs with two fragments", "hdl:1/a#b#"),
    (
        "DOIs split by white space after labels",
        "doi: 10. 1000/a- ",
    ),
    ("DOI labels glued after full stops", ".doi :"),
    ("words glued to a DOI", "10.1000/a.URL,arXiv[doi]"),
    (
        "resolver URLs whose handle cleaning empties, each before a query",
        "https://doi.org/10.1000/%3A?",
    ),
    (
        "resolver URLs each before an opening bracket and a DOI's prefix",
        "[10.1000/%>https://doi.org/",
    ),
    (
        "hdl: URIs whose escaped sequence a query cuts",
        "hdl:29/doi%C3?",
    ),
];

/// `unit` repeated to `len` bytes (cut at a character boundary).
pub fn repeated(unit: &str, len: usize) -> String {
    let mut text = unit.repeat(len / unit.len() + 1);
    let mut end = len.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text
}
