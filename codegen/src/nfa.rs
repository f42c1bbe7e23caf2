//! pest AST → nondeterministic automaton over symbols (Thompson's construction).

use std::collections::HashMap;

use pest_meta::ast::{Expr, Rule};

use crate::charset::{builtin, CharSet};

/// A nondeterministic automaton: state 0 is the start, `accept` the only accepting state.
pub struct Nfa {
    /// Per state: the ε-moves, and the moves on a symbol set.
    pub states: Vec<State>,
    /// The accepting state.
    pub accept: usize,
    /// The rule names states are labelled with; the entry rule first.
    pub labels: Vec<String>,
}

/// One NFA state.
#[derive(Default)]
pub struct State {
    /// ε-moves.
    pub eps: Vec<usize>,
    /// Moves on one symbol of the set.
    pub edges: Vec<(CharSet, usize)>,
    /// For a state entered by consuming a character: the innermost rule that is not silent
    /// (`_{}`) which consumed it, as (nesting depth, index into `Nfa::labels`).
    pub label: Option<(usize, usize)>,
}

/// Compiles rules of one grammar.
pub struct Compiler<'g> {
    rules: &'g HashMap<String, Rule>,
    states: Vec<State>,
    /// The rules being compiled, outermost first: a reference to one of them is recursion.
    stack: Vec<String>,
    /// The rules that label consumed characters: the non-silent rules on `stack`, as indices
    /// into `labels`.
    label_stack: Vec<usize>,
    labels: Vec<String>,
}

impl<'g> Compiler<'g> {
    /// A compiler for `rules`.
    pub fn new(rules: &'g HashMap<String, Rule>) -> Self {
        Self {
            rules,
            states: Vec::new(),
            stack: Vec::new(),
            label_stack: Vec::new(),
            labels: Vec::new(),
        }
    }

    /// Enters rule `name`: it is on the stack, and labels what it consumes unless silent.
    fn enter(&mut self, name: &str) {
        self.stack.push(name.to_owned());
        let silent = self
            .rules
            .get(name)
            .is_some_and(|r| r.ty == pest_meta::ast::RuleType::Silent);
        if !silent {
            let index = match self.labels.iter().position(|l| l == name) {
                Some(i) => i,
                None => {
                    self.labels.push(name.to_owned());
                    self.labels.len() - 1
                }
            };
            self.label_stack.push(index);
        }
    }

    fn leave(&mut self) {
        let name = self.stack.pop().expect("entered");
        let silent = self
            .rules
            .get(&name)
            .is_some_and(|r| r.ty == pest_meta::ast::RuleType::Silent);
        if !silent {
            self.label_stack.pop();
        }
    }

    /// A move from `from` on `set` to a new state, labelled with the current rule.
    fn edge(&mut self, from: usize, set: CharSet) -> usize {
        let to = self.new_state();
        self.states[from].edges.push((set, to));
        self.states[to].label = self
            .label_stack
            .last()
            .map(|&l| (self.label_stack.len(), l));
        to
    }

    /// Compiles the entry rule `name`, which must read `SOI ~ … ~ EOI`.
    pub fn compile_entry(self, name: &str) -> Result<Nfa, String> {
        self.compile(name, true)
    }

    /// Compiles the rule `name` as matching the whole input (no `SOI`/`EOI` of its own: a
    /// rule other rules use, such as a class of characters).
    pub fn compile_whole(self, name: &str) -> Result<Nfa, String> {
        self.compile(name, false)
    }

    fn compile(mut self, name: &str, entry: bool) -> Result<Nfa, String> {
        let rule = self
            .rules
            .get(name)
            .ok_or_else(|| format!("no rule named `{name}`"))?;
        let mut parts = flatten_seq(&rule.expr);
        if entry {
            let anchored = parts.len() >= 2
                && matches!(parts[0], Expr::Ident(s) if s == "SOI")
                && matches!(parts[parts.len() - 1], Expr::Ident(s) if s == "EOI");
            if !anchored {
                return Err(format!(
                    "rule `{name}`: an entry rule must read `SOI ~ … ~ EOI`"
                ));
            }
            parts = parts[1..parts.len() - 1].to_vec();
        }
        self.enter(name);
        let start = self.new_state();
        let body = self.seq(&parts, start)?;
        Ok(Nfa {
            states: self.states,
            accept: body,
            labels: self.labels,
        })
    }

    fn new_state(&mut self) -> usize {
        self.states.push(State::default());
        self.states.len() - 1
    }

    fn eps(&mut self, from: usize, to: usize) {
        self.states[from].eps.push(to);
    }

    fn rule_name(&self) -> &str {
        self.stack.last().map_or("?", String::as_str)
    }

    fn refuse(&self, what: &str) -> String {
        format!(
            "rule `{}`: {what} cannot be compiled to a state machine",
            self.rule_name()
        )
    }

    /// The set of characters `expr` matches, when it matches exactly one character.
    fn class(&mut self, expr: &Expr) -> Result<Option<CharSet>, String> {
        Ok(match expr {
            Expr::Str(s) | Expr::Insens(s) if s.chars().count() == 1 => {
                let c = s.chars().next().unwrap();
                let set = if matches!(expr, Expr::Str(_)) {
                    CharSet::char(c)
                } else {
                    CharSet::char_insensitive(c)
                };
                Some(set.ok_or_else(|| self.non_ascii_literal(s))?)
            }
            Expr::Range(lo, hi) => {
                let (lo, hi) = (single_char(lo), single_char(hi));
                Some(
                    CharSet::range(lo, hi)
                        .map_err(|e| format!("rule `{}`: {e}", self.rule_name()))?,
                )
            }
            Expr::Ident(name) => match builtin(name) {
                Some(set) => Some(set),
                None => match self.rules.get(name) {
                    Some(rule) if !self.stack.contains(name) => {
                        self.stack.push(name.clone());
                        let set = self.class(&rule.expr);
                        self.stack.pop();
                        set?
                    }
                    _ => None,
                },
            },
            Expr::Choice(a, b) => match (self.class(a)?, self.class(b)?) {
                (Some(a), Some(b)) => Some(a.union(b)),
                _ => None,
            },
            Expr::Seq(a, b) => match &**a {
                Expr::NegPred(not) => match (self.class(not)?, self.class(b)?) {
                    (Some(not), Some(b)) => Some(b.minus(not)),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        })
    }

    fn non_ascii_literal(&self, s: &str) -> String {
        format!(
            "rule `{}`: the literal {s:?} holds a non-ASCII character; the generator treats all \
             non-ASCII characters alike",
            self.rule_name()
        )
    }

    /// Compiles `expr` starting at state `from`; returns the state it ends in.
    fn expr(&mut self, expr: &Expr, from: usize) -> Result<usize, String> {
        if let Some(set) = self.class(expr)? {
            // A one-character rule reference still labels with its own name.
            if let Expr::Ident(name) = expr {
                if self.rules.contains_key(name) {
                    self.enter(name);
                    let to = self.edge(from, set);
                    self.leave();
                    return Ok(to);
                }
            }
            return Ok(self.edge(from, set));
        }
        match expr {
            Expr::Str(s) | Expr::Insens(s) => {
                let mut at = from;
                for c in s.chars() {
                    let set = if matches!(expr, Expr::Str(_)) {
                        CharSet::char(c)
                    } else {
                        CharSet::char_insensitive(c)
                    }
                    .ok_or_else(|| self.non_ascii_literal(s))?;
                    at = self.edge(at, set);
                }
                Ok(at)
            }
            Expr::Ident(name) if name == "SOI" || name == "EOI" => {
                Err(self.refuse(&format!("`{name}` inside an entry rule's body")))
            }
            Expr::Ident(name) => {
                if self.stack.contains(name) {
                    return Err(self.refuse(&format!("the recursive reference to `{name}`")));
                }
                let rule = self
                    .rules
                    .get(name)
                    .ok_or_else(|| self.refuse(&format!("the unknown rule `{name}`")))?;
                let expr = &rule.expr;
                self.enter(name);
                let end = self.expr(expr, from);
                self.leave();
                end
            }
            Expr::Seq(..) => self.seq(&flatten_seq(expr), from),
            Expr::Choice(..) => {
                let end = self.new_state();
                for alternative in flatten_choice(expr) {
                    let start = self.new_state();
                    self.eps(from, start);
                    let out = self.expr(alternative, start)?;
                    self.eps(out, end);
                }
                Ok(end)
            }
            Expr::Opt(e) => self.repeat(e, from, 0, Some(1)),
            Expr::Rep(e) => self.repeat(e, from, 0, None),
            Expr::RepOnce(e) => self.repeat(e, from, 1, None),
            Expr::RepExact(e, n) => self.repeat(e, from, *n, Some(*n)),
            Expr::RepMin(e, n) => self.repeat(e, from, *n, None),
            Expr::RepMax(e, n) => self.repeat(e, from, 0, Some(*n)),
            Expr::RepMinMax(e, m, n) => self.repeat(e, from, *m, Some(*n)),
            Expr::NegPred(_) => {
                Err(self.refuse("a negative lookahead not followed by one character"))
            }
            Expr::PosPred(_) => Err(self.refuse("a positive lookahead")),
            other => Err(self.refuse(&format!("{other:?}"))),
        }
    }

    /// A sequence, where `!a ~ b` of single characters is one class.
    fn seq(&mut self, parts: &[&Expr], from: usize) -> Result<usize, String> {
        let mut at = from;
        let mut i = 0;
        while i < parts.len() {
            if let (Expr::NegPred(_), Some(next)) = (parts[i], parts.get(i + 1)) {
                let pair = Expr::Seq(Box::new(parts[i].clone()), Box::new((*next).clone()));
                if self.class(&pair)?.is_none() {
                    return Err(self.refuse("a negative lookahead not followed by one character"));
                }
                at = self.expr(&pair, at)?;
                i += 2;
            } else {
                at = self.expr(parts[i], at)?;
                i += 1;
            }
        }
        Ok(at)
    }

    /// `e` at least `min` and at most `max` times (no limit for `None`).
    fn repeat(
        &mut self,
        e: &Expr,
        from: usize,
        min: u32,
        max: Option<u32>,
    ) -> Result<usize, String> {
        let mut at = from;
        for _ in 0..min {
            at = self.expr(e, at)?;
        }
        match max {
            None => {
                let loop_start = self.new_state();
                self.eps(at, loop_start);
                let body_end = self.expr(e, loop_start)?;
                self.eps(body_end, loop_start);
                Ok(loop_start)
            }
            Some(max) => {
                let end = self.new_state();
                self.eps(at, end);
                for _ in min..max {
                    at = self.expr(e, at)?;
                    self.eps(at, end);
                }
                Ok(end)
            }
        }
    }
}

/// The unescaped text of a range bound is one character.
fn single_char(s: &str) -> char {
    s.chars()
        .next()
        .expect("pest_meta gives one character per range bound")
}

fn flatten_seq(expr: &Expr) -> Vec<&Expr> {
    match expr {
        Expr::Seq(a, b) => {
            let mut v = flatten_seq(a);
            v.extend(flatten_seq(b));
            v
        }
        e => vec![e],
    }
}

fn flatten_choice(expr: &Expr) -> Vec<&Expr> {
    match expr {
        Expr::Choice(a, b) => {
            let mut v = flatten_choice(a);
            v.extend(flatten_choice(b));
            v
        }
        e => vec![e],
    }
}
