//! The tracer: walks each cell's statements in execution order, keeping bindings across cells,
//! and records imports and uses as it goes. Expressions are in `evaluate`, IPython escapes in
//! `escape`.
//!
//! Function bodies are analysed where they are defined, with the bindings current at that
//! point; branches of an `if` are analysed in order and the last binding wins.

use std::rc::Rc;

use ruff_python_ast::name::Name;
use ruff_python_ast::visitor::{walk_expr, walk_pattern, walk_stmt, Visitor};
use ruff_python_ast::{
    ExceptHandler, Expr, Mod, Operator, Parameters, Stmt, StmtClassDef, StmtFunctionDef,
    StmtImport, StmtImportFrom, StmtTry,
};
use ruff_python_parser::{Mode, ParseOptions};
use ruff_text_size::{Ranged, TextSize};

use crate::names::ModulePath;

use super::binding::{FrameKind, LocalClass, Scopes, Value};
use super::collect::{Evidence, RawImport};
use super::location::Location;
use super::nesting;
use super::python2;
use super::python_version::HintReason;
use super::syntax_version;
use super::usage::{ImportVia, UseKind, Warning};
use crate::python::{PythonRange, PythonVersion};

pub(crate) struct Tracer {
    pub(crate) ev: Evidence,
    pub(crate) scopes: Scopes,
    pub(crate) classes: Vec<LocalClass>,
    /// Modules of `from m import *`, latest last: unbound names may come from them.
    pub(crate) star_modules: Vec<Rc<str>>,
    /// The module of the notebook's last `from m import *`, in whatever cell: a function
    /// body's unbound names are looked up when it runs, perhaps after it.
    pub(crate) last_star_module: Option<Rc<str>>,
    /// `from __future__ import print_function` was seen.
    pub(crate) print_function: bool,
    /// Depth of `try:`/`except`/`if` blocks the current code sits in.
    pub(crate) optional_depth: u32,
    /// How imports in the code being traced come about.
    pub(crate) via: ImportVia,
    /// Code that another interpreter runs (`%%python2`): its version evidence is weak.
    pub(crate) elsewhere: bool,
    pub(crate) cell: u32,
    line_offset: u32,
    /// Set while tracing code re-parsed out of a magic: every node is on the magic's line.
    pub(crate) force_line: Option<u32>,
    line_starts: Vec<u32>,
    py2_found: Vec<(&'static str, TextSize)>,
    /// Scratch buffer for dotted paths.
    pub(crate) buf: String,
    /// Current expression nesting, bounded by `evaluate::MAX_DEPTH`.
    pub(crate) depth: u32,
    /// The current source nests deeper than that: its syntax tree is dropped on a big stack.
    pub(crate) too_deep: bool,
    /// Inside the body of an `async def` (not of a function nested in it): a `yield` there
    /// makes an async generator.
    pub(crate) in_async_def: bool,
}

/// The warning for code not parsed because it nests past what Python accepts
/// ([`nesting::MAX_DEPTH`] brackets, [`nesting::MAX_CHAIN`] operators).
fn too_deep_warning(at: Location, deep: nesting::TooDeep) -> Warning {
    let what = match deep {
        nesting::TooDeep::Brackets(_) => format!(
            "brackets nested more than {} deep (Python refuses that: too many nested \
             parentheses)",
            nesting::MAX_DEPTH
        ),
        nesting::TooDeep::Operators(_) => format!(
            "operators nested more than {} deep, such as a chain of `-` or `not` (no Python \
             compiles that)",
            nesting::MAX_CHAIN
        ),
    };
    Warning {
        at,
        message: format!("{what}; the cell was not parsed, and the other cells were analysed"),
    }
}

pub(crate) fn parse_options() -> ParseOptions {
    // The lowest target ruff knows, so that every newer construct is reported as such.
    ParseOptions::from(Mode::Ipython).with_target_version(ruff_python_ast::PythonVersion::PY37)
}

impl Tracer {
    pub(crate) fn new() -> Self {
        Self {
            ev: Evidence::default(),
            scopes: Scopes::default(),
            classes: Vec::new(),
            star_modules: Vec::new(),
            last_star_module: None,
            print_function: false,
            optional_depth: 0,
            via: ImportVia::Statement,
            elsewhere: false,
            cell: 0,
            line_offset: 0,
            force_line: None,
            line_starts: Vec::new(),
            py2_found: Vec::new(),
            buf: String::new(),
            depth: 0,
            too_deep: false,
            in_async_def: false,
        }
    }

    pub(crate) fn at(&self, offset: TextSize) -> Location {
        let line = match self.force_line {
            Some(line) => line,
            None => {
                let o = offset.to_u32();
                self.line_starts.partition_point(|&s| s <= o) as u32 + self.line_offset
            }
        };
        Location::new(self.cell, line)
    }

    pub(crate) fn optional(&self) -> bool {
        self.optional_depth > 0
    }

    /// Traces Python source: a code cell (or the body of a Python cell magic) whose first line
    /// is line `line_offset + 1` of cell `cell`.
    pub(crate) fn python(&mut self, cell: u32, source: &str, line_offset: u32) {
        // Magics run through `get_ipython()` can nest a source inside another: keep the outer
        // position state.
        let saved_cell = std::mem::replace(&mut self.cell, cell);
        let saved_offset = std::mem::replace(&mut self.line_offset, line_offset);
        let saved_starts = std::mem::take(&mut self.line_starts);
        self.line_starts.push(0);
        self.line_starts.extend(
            source
                .bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i as u32 + 1),
        );
        if let Some(deep) = nesting::too_deep(source) {
            self.ev.warnings.push(too_deep_warning(
                self.at(TextSize::new(deep.offset() as u32)),
                deep,
            ));
            self.cell = saved_cell;
            self.line_offset = saved_offset;
            self.line_starts = saved_starts;
            return;
        }
        let Ok(parsed) = crate::parse::unchecked(source, parse_options()) else {
            self.ev.warnings.push(Warning {
                at: self.at(TextSize::new(0)),
                message: "the Python parser failed on the cell; nothing in it was analysed"
                    .to_string(),
            });
            self.cell = saved_cell;
            self.line_offset = saved_offset;
            self.line_starts = saved_starts;
            return;
        };

        let mut py2 = std::mem::take(&mut self.py2_found);
        py2.clear();
        python2::scan_tokens(source, parsed.tokens(), |what, at| py2.push((what, at)));
        syntax_version::scan_tokens(source, parsed.tokens(), |detail, range, offset| {
            let at = self.at(offset);
            self.ev.hint(
                HintReason::SyntaxFeature,
                detail,
                range,
                self.elsewhere,
                Some(at),
            );
        });
        for &(what, offset) in &py2 {
            let at = self.at(offset);
            self.ev.hint(
                HintReason::Python2Syntax,
                what,
                PythonRange::at_most(PythonVersion::new(2, 7)),
                self.elsewhere,
                Some(at),
            );
        }
        for e in parsed.unsupported_syntax_errors() {
            if let Some((detail, range)) = syntax_version::feature(e.kind) {
                let at = self.at(e.range.start());
                self.ev.hint(
                    HintReason::SyntaxFeature,
                    detail,
                    range,
                    self.elsewhere,
                    Some(at),
                );
            }
        }
        if let Some(first) = parsed.errors().first() {
            let n = parsed.errors().len();
            let at = self.at(first.location.start());
            let python2 = py2
                .first()
                .map(|(what, _)| format!(" (Python 2 code: {what})"))
                .unwrap_or_default();
            self.ev.warnings.push(Warning {
                at,
                message: format!(
                    "{n} syntax error{s} in the cell{python2}; first: {err}. The statements that parsed were analysed",
                    s = if n == 1 { "" } else { "s" },
                    err = first.error,
                ),
            });
        }
        self.py2_found = py2;

        if let Mod::Module(module) = parsed.syntax() {
            self.body(&module.body);
        }
        self.drop_tree(parsed);
        self.cell = saved_cell;
        self.line_offset = saved_offset;
        self.line_starts = saved_starts;
    }

    /// Traces Python that came out of a magic's arguments, all of it on `line`.
    pub(crate) fn nested_python(&mut self, source: &str, line: u32) {
        let saved = self.force_line.replace(line);
        if let Some(deep) = nesting::too_deep(source) {
            self.ev
                .warnings
                .push(too_deep_warning(self.at(TextSize::new(0)), deep));
            self.force_line = saved;
            return;
        }
        if let Ok(parsed) = crate::parse::unchecked(source, parse_options()) {
            if let Mod::Module(module) = parsed.syntax() {
                self.body(&module.body);
            }
            self.drop_tree(parsed);
        }
        self.force_line = saved;
    }

    /// Syntax trees are dropped recursively; one nested thousands of levels deep (generated
    /// `a + b + …` with 100k terms) would overflow the stack, so it is dropped on a thread with
    /// a big one. Normal trees are dropped here.
    fn drop_tree<T: Send + 'static>(&mut self, tree: T) {
        if !std::mem::take(&mut self.too_deep) {
            return;
        }
        let dropper = std::thread::Builder::new()
            .stack_size(1 << 30)
            .spawn(move || drop(tree));
        if let Ok(handle) = dropper {
            let _ = handle.join();
        }
    }

    /// Runs `f` with a namespace of its own, for code the kernel does not run in the
    /// notebook's namespace (`%%writefile` modules, `%%python2` cells).
    pub(crate) fn isolated(&mut self, via: ImportVia, elsewhere: bool, f: impl FnOnce(&mut Self)) {
        let scopes = std::mem::take(&mut self.scopes);
        let stars = std::mem::take(&mut self.star_modules);
        let print_function = std::mem::replace(&mut self.print_function, false);
        let old_via = std::mem::replace(&mut self.via, via);
        let old_elsewhere = std::mem::replace(&mut self.elsewhere, elsewhere);
        f(self);
        self.scopes = scopes;
        self.star_modules = stars;
        self.print_function = print_function;
        self.via = old_via;
        self.elsewhere = old_elsewhere;
    }

    pub(crate) fn body(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn optional_body(&mut self, stmts: &[Stmt]) {
        self.optional_depth += 1;
        self.body(stmts);
        self.optional_depth -= 1;
    }

    pub(crate) fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Import(i) => self.import(i),
            Stmt::ImportFrom(i) => self.import_from(i),
            Stmt::Assign(a) => self.assign(&a.targets, &a.value),
            Stmt::AnnAssign(a) => {
                self.feature("variable annotation", 6, a.start());
                self.eval(&a.annotation);
                if let Some(value) = &a.value {
                    let v = self.eval(value);
                    self.bind_target(&a.target, v);
                }
            }
            Stmt::AugAssign(a) => {
                if a.op == Operator::MatMult {
                    self.feature("`@=` operator", 5, a.start());
                }
                let v = self.eval(&a.value);
                match &*a.target {
                    Expr::Name(n) => {
                        let current = self.scopes.lookup(&n.id).cloned().unwrap_or(Value::Unknown);
                        let new = match current.library_origin().or(v.library_origin()) {
                            Some(o) => Value::Derived(o.clone()),
                            None => current,
                        };
                        self.scopes.bind(&n.id, new);
                    }
                    target => {
                        self.eval(target);
                    }
                }
            }
            Stmt::Expr(e) => {
                self.eval(&e.value);
            }
            Stmt::FunctionDef(f) => self.function_def(f),
            Stmt::ClassDef(c) => self.class_def(c),
            Stmt::Return(r) => {
                let v = r.value.as_ref().map_or(Value::Local, |e| self.eval(e));
                if let Some(frame) = self.scopes.function_frame() {
                    let better = match (&frame.returns, &v) {
                        (None, _) => true,
                        (Some(old), new) => {
                            !old.is_library() && (new.is_library() || *new == Value::Unknown)
                        }
                    };
                    if better {
                        frame.returns = Some(v);
                    }
                }
            }
            Stmt::For(f) => {
                if f.is_async {
                    self.feature("async for", 5, f.start());
                }
                let iter = self.eval(&f.iter);
                self.bind_target(&f.target, iter.element());
                self.body(&f.body);
                self.body(&f.orelse);
            }
            Stmt::While(w) => {
                self.eval(&w.test);
                self.body(&w.body);
                self.body(&w.orelse);
            }
            Stmt::If(i) => {
                self.eval(&i.test);
                let main_guard = is_main_guard(&i.test);
                if main_guard {
                    self.body(&i.body);
                } else {
                    self.optional_body(&i.body);
                }
                for clause in &i.elif_else_clauses {
                    if let Some(test) = &clause.test {
                        self.eval(test);
                    }
                    self.optional_body(&clause.body);
                }
            }
            Stmt::With(w) => {
                if w.is_async {
                    self.feature("async with", 5, w.start());
                }
                for item in &w.items {
                    let v = self.eval(&item.context_expr);
                    if let Some(vars) = &item.optional_vars {
                        let entered = match v {
                            Value::Api(p) | Value::Bound(p, _) => Value::Derived(p),
                            other => other,
                        };
                        self.bind_target(vars, entered);
                    }
                }
                self.body(&w.body);
            }
            Stmt::Try(t) => self.try_stmt(t),
            Stmt::Raise(r) => {
                if let Some(exc) = &r.exc {
                    if let Expr::Tuple(t) = &**exc {
                        if !t.parenthesized && t.elts.len() >= 2 {
                            self.python2("`raise E, message`", r.start());
                        }
                    }
                    self.eval(exc);
                }
                if let Some(cause) = &r.cause {
                    if cause.is_none_literal_expr() {
                        self.feature("`raise ... from None`", 3, r.start());
                    } else {
                        self.feature("`raise ... from ...`", 0, r.start());
                    }
                    self.eval(cause);
                }
            }
            Stmt::Delete(d) => {
                for target in &d.targets {
                    match target {
                        Expr::Name(n) => self.scopes.unbind(&n.id),
                        other => {
                            self.eval(other);
                        }
                    }
                }
            }
            Stmt::Global(g) => {
                for name in &g.names {
                    self.scopes.declare_global(name.id());
                }
            }
            Stmt::Nonlocal(n) => self.feature("`nonlocal`", 0, n.start()),
            Stmt::Match(m) => {
                self.eval(&m.subject);
                for case in &m.cases {
                    walk_pattern(self, &case.pattern);
                    if let Some(guard) = &case.guard {
                        self.eval(guard);
                    }
                    self.optional_body(&case.body);
                }
            }
            Stmt::IpyEscapeCommand(c) => {
                let at = self.at(c.start());
                self.escape(c.kind, &c.value, at);
            }
            Stmt::Pass(_) | Stmt::Break(_) | Stmt::Continue(_) => {}
            other => walk_stmt(self, other),
        }
    }

    /// A Python 3 feature (`3.minor`) at `offset`.
    pub(crate) fn feature(&mut self, detail: &'static str, minor: u8, offset: TextSize) {
        let at = self.at(offset);
        self.ev.hint(
            HintReason::SyntaxFeature,
            detail,
            PythonRange::at_least(PythonVersion::new(3, minor)),
            self.elsewhere,
            Some(at),
        );
    }

    pub(crate) fn python2(&mut self, detail: &'static str, offset: TextSize) {
        let at = self.at(offset);
        self.ev.hint(
            HintReason::Python2Syntax,
            detail,
            PythonRange::at_most(PythonVersion::new(2, 7)),
            self.elsewhere,
            Some(at),
        );
    }

    fn assign(&mut self, targets: &[Expr], value: &Expr) {
        // `a, b = x, y`: bind element by element
        if let [target] = targets {
            let (target_elts, value_elts) = match (target, value) {
                (Expr::Tuple(t), Expr::Tuple(v)) => (&t.elts, &v.elts),
                (Expr::List(t), Expr::List(v)) => (&t.elts, &v.elts),
                (Expr::Tuple(t), Expr::List(v)) => (&t.elts, &v.elts),
                (Expr::List(t), Expr::Tuple(v)) => (&t.elts, &v.elts),
                _ => {
                    let v = self.eval(value);
                    self.bind_target(target, v);
                    return;
                }
            };
            let starred = target_elts
                .iter()
                .chain(value_elts)
                .any(Expr::is_starred_expr);
            if target_elts.len() == value_elts.len() && !starred {
                let values: Vec<Value> = value_elts.iter().map(|e| self.eval(e)).collect();
                for (t, v) in target_elts.iter().zip(values) {
                    self.bind_target(t, v);
                }
                return;
            }
        }
        let v = self.eval(value);
        for target in targets {
            self.bind_target(target, v.clone());
        }
    }

    pub(crate) fn bind_target(&mut self, target: &Expr, value: Value) {
        match target {
            Expr::Name(n) => self.scopes.bind(&n.id, value),
            Expr::Tuple(t) => self.unpack(&t.elts, &value),
            Expr::List(l) => self.unpack(&l.elts, &value),
            Expr::Starred(s) => {
                self.feature("starred assignment target", 0, s.start());
                self.bind_target(&s.value, value.element());
            }
            Expr::Attribute(a) => {
                let base = self.resolve(&a.value);
                let at = self.at(a.start());
                match base {
                    Value::LocalInstance(k) | Value::LocalClass(k) => {
                        if let Some(class) = self.classes.get_mut(k as usize) {
                            class.members.insert(a.attr.id().clone(), value);
                        }
                    }
                    Value::Api(p) => {
                        let path = self.join(&p, a.attr.as_str());
                        self.ev
                            .api(&path, UseKind::Attribute, None, std::iter::empty(), at);
                    }
                    Value::Instance(p) => {
                        let path = self.join(&p, a.attr.as_str());
                        self.ev.api(
                            &path,
                            UseKind::Traced,
                            Some(UseKind::Attribute),
                            std::iter::empty(),
                            at,
                        );
                    }
                    Value::Bound(p, inherited) => {
                        // `self.model.stop_training = True`: the inherited `model` is used
                        let how = if inherited {
                            UseKind::Inherited
                        } else {
                            UseKind::Traced
                        };
                        let base_at = self.at(a.value.start());
                        self.ev.api(
                            &p,
                            how,
                            Some(UseKind::Attribute),
                            std::iter::empty(),
                            base_at,
                        );
                    }
                    Value::Derived(o) => {
                        let value = &a.value;
                        self.ev.member(
                            a.attr.as_str(),
                            Some(&o),
                            false,
                            std::iter::empty(),
                            || super::evaluate::example(value, a.attr.as_str()),
                            at,
                        );
                    }
                    _ => {}
                }
            }
            Expr::Subscript(s) => {
                self.eval(&s.value);
                self.eval(&s.slice);
            }
            other => {
                self.eval(other);
            }
        }
    }

    fn unpack(&mut self, elts: &[Expr], value: &Value) {
        let element = value.element();
        for e in elts {
            self.bind_target(e, element.clone());
        }
    }

    fn try_stmt(&mut self, t: &StmtTry) {
        let guards = t.handlers.iter().any(handler_guards_import);
        if guards {
            self.optional_body(&t.body);
        } else {
            self.body(&t.body);
        }
        for handler in &t.handlers {
            let ExceptHandler::ExceptHandler(h) = handler;
            let mut caught = Value::Local;
            if let Some(ty) = &h.type_ {
                if let Expr::Tuple(tuple) = &**ty {
                    let python2 = !tuple.parenthesized
                        && tuple.elts.len() == 2
                        && h.name.is_none()
                        && matches!(&tuple.elts[1], Expr::Name(n) if n.id.starts_with(|c: char| c.is_lowercase()));
                    if python2 {
                        self.python2("`except X, e`", h.start());
                        // the second name is the bound exception
                        self.eval(&tuple.elts[0]);
                        if let Expr::Name(n) = &tuple.elts[1] {
                            self.scopes.bind(&n.id, Value::Local);
                        }
                    } else {
                        self.eval(ty);
                    }
                } else {
                    caught = match self.eval(ty) {
                        Value::Api(p) => Value::Instance(p),
                        _ => Value::Local,
                    };
                }
            }
            if let Some(name) = &h.name {
                self.scopes.bind(name.id(), caught);
            }
            self.optional_body(&h.body);
        }
        if guards {
            self.optional_body(&t.orelse);
        } else {
            self.body(&t.orelse);
        }
        self.body(&t.finalbody);
    }

    fn record_import(
        &mut self,
        module: &str,
        name: Option<&str>,
        alias: Option<&str>,
        star: bool,
        level: u32,
        at: Location,
    ) {
        let Ok(module) = ModulePath::new(module) else {
            return;
        };
        self.ev.imports.push(RawImport {
            module,
            name: name.map(str::to_owned),
            alias: alias.map(str::to_owned),
            star,
            level,
            optional: self.optional(),
            in_function: self.scopes.in_function(),
            via: self.via,
            at,
        });
    }

    /// An import that a magic implies (`%matplotlib` → `matplotlib`).
    pub(crate) fn implied_import(&mut self, module: &str, via: ImportVia, at: Location) {
        let saved = std::mem::replace(&mut self.via, via);
        self.record_import(module, None, None, false, 0, at);
        self.via = saved;
    }

    fn import(&mut self, i: &StmtImport) {
        let at = self.at(i.start());
        for alias in &i.names {
            let full = alias.name.as_str();
            if full.is_empty() {
                continue;
            }
            let asname = alias.asname.as_ref().map(|a| a.as_str());
            self.record_import(full, None, asname, false, 0, at);
            match &alias.asname {
                Some(a) => self.scopes.bind(a.id(), Value::Api(full.into())),
                None => {
                    let top = full.split('.').next().unwrap_or(full);
                    self.scopes.bind(&Name::new(top), Value::Api(top.into()));
                }
            }
        }
    }

    fn import_from(&mut self, i: &StmtImportFrom) {
        let at = self.at(i.start());
        let module = i.module.as_ref().map(|m| m.as_str());
        if i.level > 0 {
            for alias in &i.names {
                let name = alias.name.as_str();
                let asname = alias.asname.as_ref().map(|a| a.as_str());
                match module {
                    Some(m) => self.record_import(m, Some(name), asname, name == "*", i.level, at),
                    None => self.record_import(name, None, asname, false, i.level, at),
                }
                let bound = alias.asname.as_ref().unwrap_or(&alias.name);
                if name != "*" {
                    self.scopes.bind(bound.id(), Value::Local);
                }
            }
            return;
        }
        let Some(module) = module.filter(|m| !m.is_empty()) else {
            return;
        };
        if module == "__future__" && i.names.iter().any(|a| a.name.as_str() == "print_function") {
            self.print_function = true;
        }
        if module == "__future__" {
            // Features later Pythons added: an older one refuses the import (a SyntaxError).
            for alias in &i.names {
                match alias.name.as_str() {
                    "annotations" => {
                        self.feature("`from __future__ import annotations`", 7, i.start())
                    }
                    "generator_stop" => {
                        self.feature("`from __future__ import generator_stop`", 5, i.start())
                    }
                    _ => {}
                }
            }
        }
        for alias in &i.names {
            let name = alias.name.as_str();
            if name.is_empty() {
                continue;
            }
            let asname = alias.asname.as_ref().map(|a| a.as_str());
            if name == "*" {
                self.record_import(module, None, None, true, 0, at);
                self.star_modules.push(module.into());
                continue;
            }
            self.record_import(module, Some(name), asname, false, 0, at);
            let path: Rc<str> = self.join(module, name);
            self.ev
                .api(&path, UseKind::Import, None, std::iter::empty(), at);
            let bound = alias.asname.as_ref().unwrap_or(&alias.name);
            self.scopes.bind(bound.id(), Value::Api(path));
        }
    }

    fn function_def(&mut self, f: &StmtFunctionDef) {
        for d in &f.decorator_list {
            self.eval_as(&d.expression, UseKind::Decorator);
        }
        if f.is_async {
            self.feature("async def", 5, f.start());
        }
        self.parameter_defaults(&f.parameters);
        if let Some(returns) = &f.returns {
            self.eval(returns);
        }
        let class = self.scopes.innermost_class_body();
        let decorated = |name: &str| {
            f.decorator_list
                .iter()
                .any(|d| matches!(&d.expression, Expr::Name(n) if n.id == name))
        };
        let receiver = match class {
            Some(_) if decorated("staticmethod") => None,
            Some(k) if decorated("classmethod") => Some(Value::LocalClass(k)),
            Some(k) => Some(Value::LocalInstance(k)),
            None => None,
        };
        self.scopes
            .push(FrameKind::Function, class.or(self.scopes.current_class()));
        self.bind_parameters(&f.parameters, receiver);
        let in_async_def = std::mem::replace(&mut self.in_async_def, f.is_async);
        self.body(&f.body);
        self.in_async_def = in_async_def;
        let frame = self.scopes.pop();
        let returns = frame
            .returns
            .filter(|v| v.is_library() || *v == Value::Unknown);
        self.scopes
            .bind(f.name.id(), Value::Function(returns.map(Rc::new)));
    }

    pub(crate) fn parameter_defaults(&mut self, p: &Parameters) {
        if !p.kwonlyargs.is_empty() {
            self.feature("keyword-only parameters", 0, p.start());
        }
        for param in p.posonlyargs.iter().chain(&p.args).chain(&p.kwonlyargs) {
            if let Some(default) = &param.default {
                self.eval(default);
            }
            if let Some(ann) = &param.parameter.annotation {
                self.eval(ann);
            }
        }
    }

    /// Binds parameters in the new frame: the first one to `receiver` (a method's `self`),
    /// the others to unknown values.
    pub(crate) fn bind_parameters(&mut self, p: &Parameters, receiver: Option<Value>) {
        let mut receiver = receiver;
        let names = p
            .posonlyargs
            .iter()
            .chain(&p.args)
            .map(|a| &a.parameter.name)
            .chain(p.vararg.iter().map(|v| &v.name))
            .chain(p.kwonlyargs.iter().map(|a| &a.parameter.name))
            .chain(p.kwarg.iter().map(|v| &v.name));
        for name in names {
            let v = receiver.take().unwrap_or(Value::Unknown);
            self.scopes.bind(name.id(), v);
        }
    }

    fn class_def(&mut self, c: &StmtClassDef) {
        for d in &c.decorator_list {
            self.eval_as(&d.expression, UseKind::Decorator);
        }
        let mut class = LocalClass::default();
        if let Some(args) = &c.arguments {
            for base in &args.args {
                match self.eval_as(base, UseKind::BaseClass) {
                    Value::Api(p) => {
                        class.library_base.get_or_insert(p);
                    }
                    Value::LocalClass(k) if class.local_base.is_none() => {
                        class.local_base = Some(k);
                        if class.library_base.is_none() {
                            class.library_base = self.classes[k as usize].library_base.clone();
                        }
                    }
                    _ => {}
                }
            }
            for kw in &args.keywords {
                self.eval(&kw.value);
            }
        }
        let k = self.classes.len() as u32;
        self.classes.push(class);
        self.scopes.push(FrameKind::Class, Some(k));
        self.body(&c.body);
        let frame = self.scopes.pop();
        let names = Scopes::into_names(frame);
        self.classes[k as usize].members.extend(names);
        self.scopes.bind(c.name.id(), Value::LocalClass(k));
    }

    /// `prefix.name` as a shared path.
    pub(crate) fn join(&mut self, prefix: &str, name: &str) -> Rc<str> {
        self.buf.clear();
        self.buf.push_str(prefix);
        self.buf.push('.');
        self.buf.push_str(name);
        Rc::from(self.buf.as_str())
    }
}

/// Whether a `try:` tolerates a failed import: `except ImportError`, `ModuleNotFoundError`,
/// `Exception`, `BaseException` or a bare `except:`.
fn handler_guards_import(handler: &ExceptHandler) -> bool {
    let ExceptHandler::ExceptHandler(h) = handler;
    let Some(ty) = &h.type_ else {
        return true;
    };
    let catches = |e: &Expr| {
        let name = match e {
            Expr::Name(n) => n.id.as_str(),
            Expr::Attribute(a) => a.attr.as_str(),
            _ => return false,
        };
        matches!(
            name,
            "ImportError" | "ModuleNotFoundError" | "Exception" | "BaseException"
        )
    };
    match &**ty {
        Expr::Tuple(t) => t.elts.iter().any(catches),
        other => catches(other),
    }
}

/// `if __name__ == "__main__":` always runs in a notebook.
fn is_main_guard(test: &Expr) -> bool {
    let Expr::Compare(c) = test else {
        return false;
    };
    matches!(&*c.left, Expr::Name(n) if n.id == "__name__")
        && c.comparators
            .iter()
            .any(|e| matches!(e, Expr::StringLiteral(s) if s.value.to_str() == "__main__"))
}

impl<'a> Visitor<'a> for Tracer {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        self.stmt(stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        self.eval(expr);
    }
}

/// Recurse into an expression's children with the default walk (each child is evaluated).
pub(crate) fn walk_children(tracer: &mut Tracer, expr: &Expr) {
    walk_expr(tracer, expr);
}
