//! pest's parsers of the URI and URL grammars, derived from the same files the library's
//! validators are generated from: the reference the tests hold those to.

/// grammar/hdl-uri.pest.
pub mod hdl {
    #[derive(pest_derive::Parser)]
    #[grammar = "grammar/hdl-uri.pest"]
    pub struct G;
}

/// grammar/cordra-uri.pest.
pub mod cordra {
    #[derive(pest_derive::Parser)]
    #[grammar = "grammar/cordra-uri.pest"]
    pub struct G;
}

/// grammar/info-uri.pest.
pub mod info {
    #[derive(pest_derive::Parser)]
    #[grammar = "grammar/info-uri.pest"]
    pub struct G;
}

/// grammar/proxy-url.pest.
pub mod proxy {
    #[derive(pest_derive::Parser)]
    #[grammar = "grammar/proxy-url.pest"]
    pub struct G;
}

/// grammar/forms.pest.
pub mod forms {
    #[derive(pest_derive::Parser)]
    #[grammar = "grammar/forms.pest"]
    pub struct G;
}
