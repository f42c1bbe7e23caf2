// hdl_uri! is a constant expression, works renamed, and holds the decoded handle.
use handle_id::hdl_uri as uri;
use handle_id::{Form, HdlUri};

const PATH: HdlUri<'static> = uri!("hdl:10.1045/april2006-paskin");
const HOST: HdlUri<'static> = handle_id::hdl_uri!("HDL://20.1000/5555%23resolve?index=1#frag");

struct Cow;
struct Option;

fn main() {
    let _ = (Cow, Option);
    assert_eq!(PATH.form(), Form::Hdl);
    assert_eq!(PATH.handle().prefix(), "10.1045");
    assert_eq!(HOST.form(), Form::HdlHost);
    assert_eq!(HOST.handle().as_str(), "20.1000/5555#resolve");
    assert_eq!((HOST.query(), HOST.fragment()), (Some("index=1"), Some("frag")));
    assert_eq!(HOST, HdlUri::parse("HDL://20.1000/5555%23resolve?index=1#frag").unwrap());
}
