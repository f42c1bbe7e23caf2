//! Markup as the reference proxy's own reader takes it (SPEC D8), which the proxy's path
//! reads every `10320/loc`, `10320/links` and namespace value with: that reader (`XParser`)
//! knows no well-formedness (a bare `&`, an unknown entity, an unquoted or repeated
//! attribute, an element never closed), reads tags one after the other, gives a tag the
//! text up to the next `<`, and makes an element of the tags between a start tag and the
//! next end tag of its name. Read here into a tree of the same shape, and written out as XML
//! that says the same (names as written, values as that reader decodes them), for the XML
//! reader to read.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::markup::escape_markup;

/// A tag as that reader keeps it: its name, its attributes (a name given again keeps its
/// last value, in its first place), its text (trimmed as Java trims; none for `<x/>` and
/// for a tag that gathered others) and the tags it gathered.
struct Tag {
    name: String,
    attributes: Vec<(String, String)>,
    text: Option<String>,
    children: Vec<Tag>,
    /// The levels of elements it is, itself one: kept within the most read as the tree is
    /// made, so that no tree deeper is made (or dropped, which recurses on depth).
    height: usize,
}

/// One tag as read, before it is placed.
enum Read {
    /// `<!-- … -->`, with white space after its `<!--`: passed over.
    Comment,
    Tag {
        name: String,
        attributes: Vec<(String, String)>,
        /// `</x>`: ends the element of the nearest open `<x>`.
        closes: bool,
        /// `<x/>` (a `/` anywhere in the tag after its name's first character).
        empty: bool,
    },
}

/// Why the reading stops.
enum Stop {
    /// The input ended inside a tag, a quoted string or a tag's text: that reader then
    /// fails and the value gives nothing.
    Ended,
    /// A tag with more attributes than are read.
    Attributes,
    /// Elements nested deeper than are read.
    Deep,
    /// More tags than are read.
    Tags,
}

/// Why a value gives no document as the reference's reader reads it.
#[derive(Debug)]
pub(crate) enum Unread {
    /// That reader fails on it: the text ends inside a tag, a quoted string or a tag's text
    /// (which runs to a `<`). The reference proxy then answers 500 (D8).
    Unfinished,
    /// No tag in it: that reader finds no element.
    Empty,
    /// Its tree is deeper than the most read.
    TooDeep,
    /// A tag has more attributes than the most read.
    TooManyAttributes,
    /// More tags than the most read.
    TooManyTags,
    /// The XML its tree writes does not read: it holds a character that XML has not (a
    /// control, given as it is or as a reference), names that XML's namespaces refuse, or
    /// more nodes than the XML reader reads.
    Xml(roxmltree::Error),
}

/// `text` as the reference proxy's reader reads it, written as XML (whose document is the
/// tree that reader makes), and whether a name written in it has a prefix (which XML asks
/// to be declared).
pub(crate) fn as_xml(text: &str, most: Most) -> Result<(String, bool), Unread> {
    let root = read(past_prolog(text), most)
        .map_err(|stop| match stop {
            Stop::Ended => Unread::Unfinished,
            Stop::Attributes => Unread::TooManyAttributes,
            Stop::Deep => Unread::TooDeep,
            Stop::Tags => Unread::TooManyTags,
        })?
        .ok_or(Unread::Empty)?;
    let mut out = Xml {
        text: String::with_capacity(text.len() + 64),
        prefixed: false,
    };
    out.write(&root);
    Ok((out.text, out.prefixed))
}

/// The most of a value that is read: each bounds the time or memory one value costs, or the
/// stack (the XML reader recurses on depth).
#[derive(Clone, Copy)]
pub(crate) struct Most {
    /// Levels of elements.
    pub depth: usize,
    /// Attributes of one tag.
    pub attributes: usize,
    /// Tags in all.
    pub tags: usize,
}

/// `text` past the XML declaration, processing instructions and comments before its first
/// element, which the proxy's path reads past in any value (D8: the reference's reader
/// takes `<?xml …?>`, and a comment without white space, for an element holding the rest).
fn past_prolog(mut text: &str) -> &str {
    loop {
        let rest = text.trim_start_matches(|c: char| c.is_ascii_whitespace());
        let past = |open: &str, close: &str| {
            let inside = rest.strip_prefix(open)?;
            inside.find(close).map(|i| &inside[i + close.len()..])
        };
        match past("<?", "?>").or_else(|| past("<!--", "-->")) {
            Some(after) => text = after,
            None => return text,
        }
    }
}

struct Reader<'t> {
    chars: core::iter::Peekable<core::str::Chars<'t>>,
    /// The most attributes a tag may have.
    max_attributes: usize,
}

/// `gathered` (the tags above `first`, in their order) made `first`'s children, its height
/// counting theirs: more than `most` levels stop the reading.
fn gather(first: &mut Tag, gathered: Vec<Tag>, most: usize) -> Result<(), Stop> {
    if gathered.is_empty() {
        return Ok(());
    }
    // (That reader's tag keeps no text once it holds others.)
    first.text = None;
    let below = gathered.iter().map(|t| t.height).max().unwrap_or(0);
    first.height = first.height.max(below + 1);
    first.children.extend(gathered);
    if first.height > most {
        return Err(Stop::Deep);
    }
    Ok(())
}

impl Reader<'_> {
    fn next(&mut self) -> Result<char, Stop> {
        self.chars.next().ok_or(Stop::Ended)
    }

    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }

    /// The next tag, past anything before its `<`; `None` where no `<` is left.
    fn tag(&mut self) -> Result<Option<Read>, Stop> {
        if !self.chars.by_ref().any(|c| c == '<') {
            return Ok(None);
        }
        let mut name = String::new();
        let (mut closes, mut empty) = (false, false);
        let mut attributes = Vec::new();
        loop {
            match self.next()? {
                '>' => break,
                '/' if name.is_empty() => closes = true,
                '/' => empty = true,
                c if java_whitespace(c) && name.is_empty() => {}
                c if java_whitespace(c) => {
                    if name.starts_with("!--") {
                        // (What follows, up to the first `-->`, is the comment.)
                        let mut last = ['\0'; 3];
                        while last != ['-', '-', '>'] {
                            last = [last[1], last[2], self.next()?];
                        }
                        return Ok(Some(Read::Comment));
                    }
                    empty |= self.attributes(&mut attributes)?;
                    break;
                }
                c => name.push(c),
            }
        }
        Ok(Some(Read::Tag {
            name,
            attributes,
            closes,
            empty,
        }))
    }

    /// A tag's attributes, up to and through its `>`: whether a `/` was among them. More
    /// than `max_attributes` stop the reading (each is looked up among those kept).
    fn attributes(&mut self, into: &mut Vec<(String, String)>) -> Result<bool, Stop> {
        let mut empty = false;
        // The name read last and the value given it, not yet kept.
        let mut name: Option<String> = None;
        let mut value: Option<String> = None;
        let most = self.max_attributes;
        let keep = |into: &mut Vec<(String, String)>, name: String, value: Option<String>| {
            let value = value.unwrap_or_else(|| "NULL".into());
            match into.iter().position(|(n, _)| *n == name) {
                Some(at) => into[at].1 = value,
                None if into.len() == most => return Err(Stop::Attributes),
                None => into.push((name, value)),
            }
            Ok(())
        };
        loop {
            match self.next()? {
                '>' => {
                    if let Some(n) = name {
                        keep(into, n, value)?;
                    }
                    return Ok(empty);
                }
                '=' => {
                    name.get_or_insert_with(String::new);
                    value = Some(self.token()?);
                }
                '/' => {
                    if let Some(n) = name.take() {
                        keep(into, n, value.take())?;
                    }
                    empty = true;
                }
                '\t' | '\r' | '\n' | ' ' => {}
                q @ ('"' | '\'') => {
                    // (A quoted string is a name; the name before it is kept, as it was.)
                    if let Some(n) = name.clone() {
                        keep(into, n, value.take())?;
                    }
                    name = Some(self.quoted(q)?);
                }
                c => {
                    if let Some(n) = name.take() {
                        keep(into, n, value.take())?;
                    }
                    name = Some(self.token_from(Some(c))?);
                }
            }
        }
    }

    fn token(&mut self) -> Result<String, Stop> {
        self.token_from(None)
    }

    /// A name or value: up to white space, a quote, `=`, `<` or `>` (each of which, first,
    /// is the token itself, or for a quote the string it opens), decoded.
    fn token_from(&mut self, first: Option<char>) -> Result<String, Stop> {
        let mut token = String::new();
        let mut first = first;
        loop {
            let c = match first.take() {
                Some(c) => c,
                None => {
                    if !token.is_empty() && self.peek().is_some_and(ends_token) {
                        // (The character that ends it is read again by the caller.)
                        return Ok(decode(&token));
                    }
                    self.next()?
                }
            };
            match c {
                c if java_whitespace(c) => {
                    if !token.is_empty() {
                        return Ok(decode(&token));
                    }
                }
                q @ ('"' | '\'') if token.is_empty() => return self.quoted(q),
                c @ ('=' | '<' | '>') if token.is_empty() => return Ok(c.to_string()),
                c => token.push(c),
            }
        }
    }

    /// A string opened by `quote`, up to the next one, decoded.
    fn quoted(&mut self, quote: char) -> Result<String, Stop> {
        let mut s = String::new();
        loop {
            match self.next()? {
                c if c == quote => return Ok(decode(&s)),
                c => s.push(c),
            }
        }
    }

    /// A tag's text: up to the next `<` (which the input must have), less one line end.
    fn text(&mut self) -> Result<String, Stop> {
        let mut s = String::new();
        while self.peek() != Some('<') {
            s.push(self.next()?);
        }
        let s = s
            .strip_suffix("\r\n")
            .or_else(|| s.strip_suffix('\n'))
            .unwrap_or(&s);
        Ok(decode(s))
    }
}

/// What ends a token that has begun (and is read again): a quote, `=`, `<` or `>`.
fn ends_token(c: char) -> bool {
    matches!(c, '"' | '\'' | '=' | '<' | '>')
}

/// The tree `text` makes: `Ok(None)` where it has no tag.
fn read(text: &str, most: Most) -> Result<Option<Tag>, Stop> {
    let mut reader = Reader {
        chars: text.chars().peekable(),
        max_attributes: most.attributes,
    };
    let mut tags = 0_usize;
    let mut open: Vec<Tag> = Vec::new();
    // Where the open tags that have gathered none are, by name, in order: what an end tag
    // looks for, found without a walk down the open tags (which, for many end tags that
    // close none, would take time in the square of the tags).
    let mut childless: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    loop {
        let Some(read) = reader.tag()? else {
            // The input's end: the first tag holds the others left open.
            let mut open = open.into_iter();
            let Some(mut first) = open.next() else {
                return Ok(None);
            };
            gather(&mut first, open.collect(), most.depth)?;
            return Ok(Some(first));
        };
        let Read::Tag {
            name,
            attributes,
            closes,
            empty,
        } = read
        else {
            continue;
        };
        let name = super::loc::java_trim(&name).to_string();
        if closes {
            // The nearest tag of this name that has gathered none; an end tag that has
            // none is passed over.
            let Some(&at) = childless.get(&name).and_then(|at| at.last()) else {
                continue;
            };
            let gathered = open.split_off(at + 1);
            // (Each gathered tag that had gathered none is the last of its name's: all above
            // `at` go.)
            for tag in gathered.iter().filter(|t| t.children.is_empty()) {
                childless.get_mut(&tag.name).and_then(Vec::pop);
            }
            let element = open.last_mut().expect("the tag at `at`");
            if !gathered.is_empty() {
                gather(element, gathered, most.depth)?;
                childless.get_mut(&name).and_then(Vec::pop);
            }
            if open.len() == 1 {
                // The first tag closed: the value is read (what follows is not).
                return Ok(open.pop());
            }
        } else {
            tags += 1;
            if tags > most.tags {
                return Err(Stop::Tags);
            }
            // (Its text trimmed as Java trims, as that reader's tag keeps it.)
            let text = if empty {
                None
            } else {
                Some(super::loc::java_trim(&reader.text()?).to_string())
            };
            childless.entry(name.clone()).or_default().push(open.len());
            open.push(Tag {
                name,
                attributes,
                text,
                children: Vec::new(),
                height: 1,
            });
        }
    }
}

/// Java's `Character.isWhitespace` (no no-break spaces; the controls from U+001C to U+001F).
fn java_whitespace(c: char) -> bool {
    matches!(c, '\t'..='\r' | '\u{1c}'..='\u{1f}')
        || (c.is_whitespace() && !matches!(c, '\u{85}' | '\u{a0}' | '\u{2007}' | '\u{202f}'))
}

/// `text` with its entities decoded as that reader decodes them: the five of XML in any
/// case, and numeric references; any other `&` (an unknown entity, or one never ended) is
/// kept as written.
fn decode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let entity = next_entity(rest);
        rest = &rest[entity.len()..];
        match entity_code(entity) {
            Some(Code::Text(s)) => out.push_str(s),
            Some(Code::Unit(u)) => match char::from_u32(u) {
                Some(c) => out.push(c),
                // (Two references to the halves of a character are the character there,
                // where a string holds UTF-16; a lone half is a `?` here, which has none, as
                // it is in whatever that proxy writes of it, its redirects and headers.)
                None => {
                    let low = next_entity(rest);
                    match entity_code(low) {
                        Some(Code::Unit(l @ 0xdc00..=0xdfff)) if (0xd800..0xdc00).contains(&u) => {
                            let c = 0x10000 + ((u - 0xd800) << 10) + (l - 0xdc00);
                            out.extend(char::from_u32(c));
                            rest = &rest[low.len()..];
                        }
                        _ => out.push('?'),
                    }
                }
            },
            None => out.push_str(entity),
        }
    }
    out.push_str(rest);
    out
}

/// The entity `text` starts with (at its `&`): to its `;`, or where none is left, to the
/// text's end. Empty where `text` does not start with `&`.
fn next_entity(text: &str) -> &str {
    if !text.starts_with('&') {
        return "";
    }
    &text[..text.find(';').map_or(text.len(), |i| i + 1)]
}

/// What an entity stands for.
enum Code {
    Text(&'static str),
    /// A UTF-16 code unit or a code point beyond them (as Java's `Character.toChars`
    /// takes one): a surrogate, alone, is half a character.
    Unit(u32),
}

fn entity_code(entity: &str) -> Option<Code> {
    // (Compared as Java compares it, upper-cased whole: `&apoſ;` is `&APOS;`.)
    let upper = entity.to_uppercase();
    for (name, text) in [
        ("&AMP;", "&"),
        ("&LT;", "<"),
        ("&GT;", ">"),
        ("&QUOT;", "\""),
        ("&APOS;", "'"),
    ] {
        if upper == name {
            return Some(Code::Text(text));
        }
    }
    // (That reader takes the number as what lies between `&#` or `&#x` and the entity's
    // last UTF-16 unit, which is the `;`, or at the text's end the number's own last
    // digit; a last character beyond U+FFFF leaves half of it, and no number.)
    let number = entity.strip_prefix("&#")?;
    let (cut, last) = number.char_indices().last()?;
    if u32::from(last) > 0xffff {
        return None;
    }
    let number = &number[..cut];
    let (digits, radix) = match number.strip_prefix(['x', 'X']) {
        Some(hex) => (hex, 16),
        None => (number, 10),
    };
    let digits = digits.strip_prefix('+').unwrap_or(digits);
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u32::from_str_radix(digits, radix)
        .ok()
        .filter(|&u| u <= 0x10_ffff)
        .map(Code::Unit)
}

/// XML written of a tree.
struct Xml {
    text: String,
    /// A name written has a prefix.
    prefixed: bool,
}

impl Xml {
    /// `tag` as XML (its depth bounded as it was made). A name that is no XML name (that
    /// reader takes anything) is written `_`, an attribute's such name not at all: neither
    /// names anything the proxy reads. An attribute `xmlns` or `xmlns:p`, an attribute to
    /// that reader, declares a namespace to XML, as the value meant it to: one that XML
    /// refuses (an empty one for a prefix, `xml` or `xmlns` declared, their namespaces
    /// bound to another prefix) is not written, and the prefix is declared as any other.
    fn write(&mut self, tag: &Tag) {
        let name = if is_name(&tag.name) { &tag.name } else { "_" };
        self.name('<', name);
        for (n, v) in &tag.attributes {
            if is_name(n) && declares_well(n, v) {
                self.name(' ', n);
                self.text.push_str("=\"");
                escape(v, &mut self.text);
                self.text.push('"');
            }
        }
        self.text.push('>');
        if let Some(text) = &tag.text {
            escape(text, &mut self.text);
        }
        for child in &tag.children {
            self.write(child);
        }
        self.text.push_str("</");
        self.text.push_str(name);
        self.text.push('>');
    }

    fn name(&mut self, before: char, name: &str) {
        self.prefixed |= name.contains(':');
        self.text.push(before);
        self.text.push_str(name);
    }
}

/// Whether attribute `name` of `value` is no namespace declaration, or one XML takes.
fn declares_well(name: &str, value: &str) -> bool {
    let reserved = [
        "http://www.w3.org/XML/1998/namespace",
        "http://www.w3.org/2000/xmlns/",
    ];
    match name.strip_prefix("xmlns") {
        Some("") => !reserved.contains(&value),
        Some(prefixed) => match prefixed.strip_prefix(':') {
            Some(prefix) => {
                !value.is_empty()
                    && !matches!(prefix, "xml" | "xmlns")
                    && !reserved.contains(&value)
            }
            None => true,
        },
        None => true,
    }
}

/// `text` as XML's text or attribute value: markup escaped, and the white space that an
/// attribute's value or a line's end would lose written as references.
fn escape(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '\t' => out.push_str("&#9;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            c => {
                let mut b = [0; 4];
                out.push_str(&escape_markup(c.encode_utf8(&mut b)));
            }
        }
    }
}

/// Whether `name` is an XML name, with at most one `:`, inside it (the XML reader's
/// namespaces ask that of an element's or attribute's name).
fn is_name(name: &str) -> bool {
    // (XML 1.0's NameStartChar, less the `:`, and NameChar.)
    let start = |c: char| {
        matches!(c, 'A'..='Z' | '_' | 'a'..='z' | '\u{c0}'..='\u{d6}' | '\u{d8}'..='\u{f6}'
            | '\u{f8}'..='\u{2ff}' | '\u{370}'..='\u{37d}' | '\u{37f}'..='\u{1fff}'
            | '\u{200c}'..='\u{200d}' | '\u{2070}'..='\u{218f}' | '\u{2c00}'..='\u{2fef}'
            | '\u{3001}'..='\u{d7ff}' | '\u{f900}'..='\u{fdcf}' | '\u{fdf0}'..='\u{fffd}'
            | '\u{10000}'..='\u{effff}')
    };
    let inner = |c: char| {
        start(c)
            || matches!(c, '-' | '.' | '0'..='9' | '\u{b7}' | '\u{300}'..='\u{36f}'
                | '\u{203f}'..='\u{2040}')
    };
    let part = |p: &str| {
        let mut cs = p.chars();
        cs.next().is_some_and(start) && cs.all(inner)
    };
    match name.split_once(':') {
        Some((prefix, local)) => part(prefix) && part(local),
        None => part(name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOST: Most = Most {
        depth: 64,
        attributes: 8,
        tags: 100_000,
    };

    #[test]
    fn markup_xml_refuses_is_read_as_that_reader_reads_it() {
        let cases = [
            // A bare `&`, an unknown entity, an entity in capitals.
            (
                r#"<locations><location href="http://a/?x=1&y=2&nbsp;&AMP;" /></locations>"#,
                r#"<locations><location href="http://a/?x=1&amp;y=2&amp;nbsp;&amp;"></location></locations>"#,
            ),
            // Unquoted and repeated attributes, one without a value.
            (
                "<locations><location href=http://b/ weight=0.5 weight='1' x></locations>",
                r#"<locations><location href="http://b/" weight="1" x="NULL"></location></locations>"#,
            ),
            // Elements never closed gather under the first (whose own text goes); a tag's
            // text trimmed as Java trims.
            (
                "<locations>\u{c}x\n<location href=\"http://c/\">\u{b}a\r\nb\r\n<location href='d'/>",
                "<locations><location href=\"http://c/\">a&#13;&#10;b</location>\
                 <location href=\"d\"></location></locations>",
            ),
            // An end tag closes the nearest open tag of its name that holds none (`<b/>`,
            // twice); one that closes none is passed over; the first tag closed ends the
            // reading.
            ("<a><b>x</c><b/>y</b></b></a><z/>", "<a><b>x</b><b></b></a>"),
            // A comment needs white space after its `<!--`; a prolog is read past (D8).
            (
                "<?xml version=\"1.0\"?><!--c--><a><!-- c --><!--d--></a>",
                "<a><_></_></a>",
            ),
            // Declarations XML refuses are not written (the prefix is then declared as any
            // undeclared one); others are.
            (
                "<a xmlns:x='' xmlns:xml='u' xmlns='http://www.w3.org/2000/xmlns/' xmlns:y='urn:y'/>",
                r#"<a xmlns:y="urn:y"></a>"#,
            ),
            // Names: a quoted string is one; a name that XML has not is passed over.
            (
                "<a 'q'=1 \"b c\" x:y=2 1z=3>t</a>",
                r#"<a q="1" x:y="2">t</a>"#,
            ),
        ];
        for (lax, xml) in cases {
            let read = as_xml(lax, MOST).ok().map(|(x, _)| x);
            assert_eq!(read.as_deref(), Some(xml), "{lax}");
        }
        // The input ends inside a tag's text (which runs to a `<`), a tag or a string: that
        // reader fails. No tag at all: no element.
        for ended in ["<a><b href='d'>", "<a><b", "<a href='x>"] {
            assert!(
                matches!(as_xml(ended, MOST), Err(Unread::Unfinished)),
                "{ended}"
            );
        }
        assert!(matches!(as_xml("text", MOST), Err(Unread::Empty)));
        let shallow = Most { depth: 2, ..MOST };
        assert!(matches!(
            as_xml("<a><b><c/></b></a>", shallow),
            Err(Unread::TooDeep)
        ));
        assert!(as_xml("<a><b/></a>", shallow).is_ok());
        // Depth is counted as the tree is made (none deeper is made, or dropped, which
        // recurses), and tags as they are read.
        let deep = |n| format!("<r>{}{}</r>", "<a><b>".repeat(n), "</b></a>".repeat(n));
        assert!(matches!(as_xml(&deep(40), MOST), Err(Unread::TooDeep)));
        assert!(as_xml(&deep(31), MOST).is_ok());
        assert!(matches!(
            as_xml(&deep(60_000), MOST),
            Err(Unread::TooManyTags)
        ));
        // Tags never closed are no deeper for it: each is the one after the last.
        let unclosed = format!("<a>{}<b/>", "<b>x".repeat(100));
        assert!(as_xml(&unclosed, Most { depth: 3, ..MOST }).is_ok());
        // Whether a prefix is written, for the reader to declare.
        let prefixed = |text: &str| as_xml(text, MOST).ok().map(|(_, p)| p);
        assert_eq!(prefixed("<a><b x:y='1'/></a>"), Some(true));
        assert_eq!(prefixed("<a href='x:y'>t:u</a>"), Some(false));
    }

    #[test]
    fn entities_are_decoded_as_that_reader_decodes_them() {
        assert_eq!(decode("&#x42;&#66;&#+67;&#X44;&LT;&Quot;"), "BBCD<\"");
        // At the end, the number is what lies before the last character.
        assert_eq!(decode("a&#65"), "a\u{6}");
        for kept in [
            "&",
            "&;",
            "&#;",
            "&#x;",
            "&#-1;",
            "&#x110000;",
            "&nbsp;",
            "a & b",
        ] {
            assert_eq!(decode(kept), kept);
        }
        // Names upper-cased as Java does (a long s is an S); the halves of a character
        // joined, a lone one a `?`; a last character beyond U+FFFF ends no number.
        assert_eq!(decode("&apo\u{17f};&#xD83D;&#56832;"), "'\u{1f600}");
        assert_eq!(decode("&#xDE00;&#xD83D;x"), "??x");
        assert_eq!(decode("&#65\u{1f600}"), "&#65\u{1f600}");
        assert_eq!(decode("&#é"), "&#é");
        assert_eq!(decode("&#6é"), "\u{6}");
    }
}
