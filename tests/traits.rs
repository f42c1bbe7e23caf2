//! Every public type is `Send + Sync` (and the small ones `Copy`), so that services can share
//! them across threads.

use handle_id::*;

fn send_sync<T: Send + Sync>() {}
fn copy<T: Copy>() {}

#[test]
fn public_types_are_send_and_sync() {
    send_sync::<Handle>();
    send_sync::<HandleRef<'static>>();
    send_sync::<HdlUri<'static>>();
    send_sync::<Caseless<Handle>>();
    send_sync::<ParseError>();
    send_sync::<ParseErrorKind>();
    send_sync::<Rendered<'static>>();
    send_sync::<Form>();
    send_sync::<Options>();
    send_sync::<ProxyBase>();
    send_sync::<ProxyQuery>();
    send_sync::<Action>();
    send_sync::<LintCode>();
    send_sync::<Warning>();
    send_sync::<escape::EscapeSet>();
    send_sync::<escape::Encoded<'static>>();
    copy::<HandleRef<'static>>();
    copy::<ParseError>();
    copy::<Warning>();
    copy::<Form>();
}
