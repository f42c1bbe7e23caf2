//! Text written into markup: the XML of `10320/loc` values and `showurls`, and the HTML
//! pages a proxy shows a record's values on.

use alloc::borrow::Cow;
use alloc::string::String;

/// `text` escaped for XML or HTML, as element text or as an attribute value in either
/// quote: `&`, `<`, `>`, `"` and `'` as references, and the white space an XML reader
/// would turn into a space in an attribute (tab, line feed, carriage return) as character
/// references. Borrowed when nothing needs escaping.
///
/// ```
/// use handle_id::record::escape_markup;
/// assert_eq!(escape_markup("a<b & \"c\"'"), "a&lt;b &amp; &quot;c&quot;&#39;");
/// assert_eq!(escape_markup("x\ty"), "x&#9;y");
/// assert!(matches!(escape_markup("plain"), std::borrow::Cow::Borrowed("plain")));
/// ```
#[must_use]
pub fn escape_markup(text: &str) -> Cow<'_, str> {
    let reference = |c: char| match c {
        '&' => Some("&amp;"),
        '<' => Some("&lt;"),
        '>' => Some("&gt;"),
        '"' => Some("&quot;"),
        '\'' => Some("&#39;"),
        '\t' => Some("&#9;"),
        '\n' => Some("&#10;"),
        '\r' => Some("&#13;"),
        _ => None,
    };
    if !text.chars().any(|c| reference(c).is_some()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match reference(c) {
            Some(r) => out.push_str(r),
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}
