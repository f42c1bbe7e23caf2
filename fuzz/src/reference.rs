//! pest's parsers of the grammar files, derived from the same files the library's validators
//! are generated from: the reference the validators are held to.

#![allow(missing_docs)]

use pest::Parser;

// One module per grammar file, named as the generated module of its validators is (the
// names the entry rules' list, `handle_id::__entry_rules`, gives them).
pub mod handle {
    #[derive(pest_derive::Parser)]
    #[grammar = "../grammar/handle.pest"]
    pub struct G;
}
pub mod hdl_uri {
    #[derive(pest_derive::Parser)]
    #[grammar = "../grammar/hdl-uri.pest"]
    pub struct G;
}
pub mod cordra_uri {
    #[derive(pest_derive::Parser)]
    #[grammar = "../grammar/cordra-uri.pest"]
    pub struct G;
}
pub mod info_uri {
    #[derive(pest_derive::Parser)]
    #[grammar = "../grammar/info-uri.pest"]
    pub struct G;
}
pub mod proxy_url {
    #[derive(pest_derive::Parser)]
    #[grammar = "../grammar/proxy-url.pest"]
    pub struct G;
}
pub mod forms {
    #[derive(pest_derive::Parser)]
    #[grammar = "../grammar/forms.pest"]
    pub struct G;
}
pub use self::{cordra_uri as cordra, hdl_uri as hdl, info_uri as info, proxy_url as proxy};

/// pest's verdict for entry rule `rule` on `text`.
///
/// # Panics
///
/// For a rule that is not an entry rule of the grammars.
#[must_use]
pub fn accepts(rule: &str, text: &str) -> bool {
    macro_rules! try_rules {
        ($($module:ident: $($rule:ident),+;)+) => {
            match rule {
                $($(stringify!($rule) => $module::G::parse($module::Rule::$rule, text).is_ok(),)+)+
                _ => panic!("no pest rule {rule}"),
            }
        };
    }
    // The list the generator writes from its own (codegen's `GRAMMARS`).
    handle_id::__entry_rules!(try_rules)
}

/// Every entry rule with a generated validator.
pub fn entry_rules() -> impl Iterator<Item = &'static str> {
    handle_id::__reference::rules()
}

/// The generated validator of `rule` and pest's parser agree on `text`.
#[track_caller]
pub fn agree(rule: &str, text: &str) {
    let ours = handle_id::__reference::generated(rule, text).expect("a generated rule");
    assert_eq!(
        ours.is_ok(),
        accepts(rule, text),
        "rule {rule}: the generated validator and pest disagree on {text:?}"
    );
}
