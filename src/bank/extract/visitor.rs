//! Reads one parsed module into a [`FileSummary`].
//!
//! Only module-level statements are read, plus the bodies of module-level `if`, `try` and
//! `with` blocks (conditional imports such as `try: from ._speedups import f` are common);
//! what `if TYPE_CHECKING:` binds is marked as such.
//! Loops, function bodies and `setattr` calls are not evaluated: names created that way are left
//! to runtime introspection rather than guessed.

use std::collections::HashMap;

use ruff_python_ast::{ExceptHandler, Expr, PySourceType, Stmt};

use super::all_names::{self, AllNames};
use super::class_body::{
    first_parameter, is_overload, namedtuple_class, sets_computed_attributes, summarize_class,
};
use super::deprecation::{Shim, Warned};
use super::dotted::dotted_name;
use super::import_structure::{self, ImportStructure};
use super::is_private;
use super::module_effects::{self as effects, ModulesWrite};
use super::signature::Signature;
use super::summary::{
    Binding, FileSummary, Function, Import, ImportFrom, ImportedName, Member, MemberKind, Variable,
};
use crate::names::is_identifier;

/// Summarizes one source file. Never fails: the recovering parser keeps every statement it can
/// read (Python 2 files keep their definitions) and the summary counts the syntax errors.
pub fn summarize_source(source: &str, is_stub: bool) -> FileSummary {
    let source_type = if is_stub {
        PySourceType::Stub
    } else {
        PySourceType::Python
    };
    let _clock = crate::timings::start(crate::timings::Stage::Parsing);
    let Ok(parsed) = crate::parse::unchecked_source(source, source_type) else {
        // Nothing in it could be read: what it binds is unknown, not absent.
        return FileSummary {
            parse_errors: 1,
            dynamic_exports: true,
            ..FileSummary::default()
        };
    };
    let mut visitor = ModuleVisitor {
        is_stub,
        source,
        ..ModuleVisitor::default()
    };
    visitor.visit_body(&parsed.syntax().body, false);
    if visitor.module_getattr {
        match super::module_getattr::served_bindings(&parsed.syntax().body) {
            Some(served) => {
                for binding in served {
                    visitor.push(binding, true);
                }
            }
            None => visitor.dynamic_exports = true,
        }
    }
    FileSummary {
        parse_errors: u32::try_from(parsed.errors().len()).unwrap_or(u32::MAX),
        dynamic_exports: visitor.dynamic_exports,
        replaces_itself: visitor.replaces_itself,
        wrapped_by: visitor.wrapped_by,
        registers_modules: visitor.registers_modules,
        extends_path: visitor.extends_path,
        absolute_import: visitor.absolute_import,
        raises: visitor.raises,
        all: visitor.all,
        bindings: visitor.bindings,
        fallbacks: visitor.fallbacks,
        lazy: visitor.lazy,
        eager_imports: visitor.eager_imports,
        top_calls: visitor.top_calls,
        passes: visitor.passes,
        mirrors: visitor.mirrors,
        stub_from: None,
    }
}

/// Like [`summarize_source`], for raw file bytes: a UTF-8 byte-order mark is skipped, and bytes
/// that are not UTF-8 (Python 2 files in Latin-1) are replaced rather than rejected.
pub fn summarize_bytes(bytes: &[u8], is_stub: bool) -> FileSummary {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => summarize_source(text, is_stub),
        Err(_) => summarize_source(&String::from_utf8_lossy(bytes), is_stub),
    }
}

#[derive(Default)]
struct ModuleVisitor<'s> {
    is_stub: bool,
    /// The file's text, for the source of shims' templates.
    source: &'s str,
    dynamic_exports: bool,
    /// The module defines `__getattr__`: open, unless it serves only names it lists (see
    /// [`super::module_getattr`]).
    module_getattr: bool,
    replaces_itself: bool,
    wrapped_by: Option<String>,
    passes: Vec<(String, String)>,
    /// Modules put in place of others, forwarding to a third (see [`FileSummary::mirrors`]).
    mirrors: Vec<(String, String)>,
    /// Forwarding modules made and bound to a name, not yet seen put in `sys.modules`.
    unplaced_mirrors: HashMap<String, (String, String)>,
    /// Names bound to module objects: `sys.modules[__name__]` and `sys.modules["pkg.mod"]`.
    module_objects: Vec<String>,
    registers_modules: bool,
    extends_path: bool,
    absolute_import: bool,
    raises: Option<String>,
    all: Option<AllNames>,
    bindings: Vec<Binding>,
    fallbacks: Vec<u32>,
    lazy: Vec<u32>,
    eager_imports: Vec<u32>,
    top_calls: Vec<String>,
    /// Inside an `if TYPE_CHECKING:` block, or adding names of a literal import structure.
    in_lazy: bool,
    /// Blocks entered (`if`, `try`, `with`): 0 for statements that always run.
    depth: usize,
    /// Blocks entered that may not run when the module is imported, for what it imports:
    /// `if` branches, and `try` blocks whose handler catches a failed import (`with` blocks
    /// and `finally` always run).
    guarded: usize,
    /// Functions of this module that extend `__all__` (numpy's `extend_all`).
    all_extenders: Vec<String>,
    /// Functions whose latest binding is an `@overload` stub, by name → binding index.
    overloads: HashMap<String, usize>,
    /// Names bound to the running module (`_current_module = sys.modules[__name__]`).
    self_aliases: Vec<String>,
    /// Module-level string constants, for lazy loaders given a module by name.
    constants: HashMap<String, String>,
    /// Dictionaries that may be a lazy module's import structure.
    structures: Vec<(String, ImportStructure)>,
    /// Module-level functions that only raise, with their message.
    raising_functions: HashMap<String, String>,
    /// Module-level functions whose body warns first (a dispatcher that deprecates the
    /// function it decorates, as numpy's do), with the warning.
    warning_functions: HashMap<String, Shim>,
}

impl ModuleVisitor<'_> {
    fn visit_body(&mut self, body: &[Stmt], fallback: bool) {
        for stmt in body {
            self.visit_stmt(stmt, fallback);
        }
    }

    /// Statements of a block that may not run (`if`, `try`, `with` bodies).
    fn visit_block(&mut self, body: &[Stmt], fallback: bool) {
        self.depth += 1;
        self.visit_body(body, fallback);
        self.depth -= 1;
    }

    /// [`Self::visit_block`], for a block whose imports run only under some condition when
    /// `guarded` is set.
    fn visit_guarded(&mut self, body: &[Stmt], fallback: bool, guarded: bool) {
        self.guarded += usize::from(guarded);
        self.visit_block(body, fallback);
        self.guarded -= usize::from(guarded);
    }

    /// An `import` statement's binding: eager when nothing guards it.
    fn push_import(&mut self, binding: Binding, fallback: bool) {
        let at = self.bindings.len();
        self.push(binding, fallback);
        if self.bindings.len() > at && self.guarded == 0 && !self.in_lazy && !self.is_stub {
            self.eager_imports.push(at as u32);
        }
    }

    fn visit_stmt(&mut self, stmt: &Stmt, fallback: bool) {
        import_structure::apply_statement(&mut self.structures, stmt);
        if effects::changes_path(stmt, &self.self_aliases) {
            self.extends_path = true;
        }
        if all_names::apply_statement(&mut self.all, stmt)
            || all_names::apply_extender_call(&mut self.all, stmt, &self.all_extenders)
        {
            return;
        }
        if writes_globals(stmt) {
            self.dynamic_exports = true;
        }
        match stmt {
            Stmt::FunctionDef(def) => self.function_def(def, fallback),
            Stmt::ClassDef(class) => {
                self.push(
                    Binding::Class(summarize_class(class, self.source)),
                    fallback,
                );
            }
            Stmt::Assign(assign) => self.assign(assign, fallback),
            Stmt::Expr(expr) => self.expression_statement(stmt, expr, fallback),
            Stmt::Raise(_) if self.depth == 0 && !fallback => {
                if let Some(message) = effects::raise_text(stmt) {
                    self.raises.get_or_insert(message);
                }
            }
            // `x: int` binds nothing at run time, but declares a module attribute in a stub.
            Stmt::AnnAssign(assign) if assign.value.is_some() || self.is_stub => {
                if let Expr::Name(name) = &*assign.target {
                    let value = assign.value.as_deref();
                    self.variable(
                        name.id.as_str(),
                        value.and_then(dotted_name),
                        value.and_then(called_name),
                        fallback,
                    );
                }
            }
            Stmt::Import(import) => {
                for alias in &import.names {
                    self.push_import(
                        Binding::Import(Import {
                            module: alias.name.as_str().to_string(),
                            asname: alias.asname.as_ref().map(|a| a.as_str().to_string()),
                        }),
                        fallback,
                    );
                }
            }
            Stmt::ImportFrom(from) => self.import_from(from, fallback),
            Stmt::Delete(delete) => self.delete(delete, fallback),
            Stmt::If(stmt_if) => self.if_statement(stmt_if, fallback),
            Stmt::Try(stmt_try) => self.try_statement(stmt_try, fallback),
            Stmt::With(with) => self.visit_block(&with.body, fallback),
            // Loops are not run; what they do to `__all__` or through `globals()` only makes
            // the module's exports dynamic.
            Stmt::For(_) | Stmt::While(_) => self.scan_loop(stmt),
            _ => {}
        }
    }

    /// A function: its signature, what it raises, whether it is an overload (the implementation
    /// after its overloads takes their place), and what it tells of the module.
    fn function_def(&mut self, def: &ruff_python_ast::StmtFunctionDef, fallback: bool) {
        let name = def.name.as_str();
        if name == "__getattr__" {
            self.module_getattr = true;
        }
        if all_names::mutates_all(&def.body) {
            self.all_extenders.push(name.to_string());
        }
        if effects::registers_modules(&def.body) {
            self.registers_modules = true;
        }
        let raises = effects::raising_body(&def.body);
        if let Some(message) = &raises {
            self.raising_functions
                .insert(name.to_string(), message.clone());
        }
        let sets_attributes =
            first_parameter(def).is_some_and(|first| sets_computed_attributes(&def.body, first));
        let function = Binding::Function(Function {
            name: name.to_string(),
            signature: Signature::from_ast(&def.parameters),
            is_async: def.is_async,
            raises,
            sets_attributes,
            warned: self.warned(def),
        });
        let overload = is_overload(&def.decorator_list);
        match (self.overloads.get(name).copied(), overload) {
            // Further overloads of a name add nothing.
            (Some(_), true) => {}
            // The implementation after its overloads takes their place.
            (Some(i), false) => {
                self.bindings[i] = function;
                self.overloads.remove(name);
            }
            (None, _) => {
                if overload {
                    self.overloads.insert(name.to_string(), self.bindings.len());
                }
                self.push(function, fallback);
            }
        }
    }

    /// A forwarding module put in `sys.modules` (`sys.modules["a"] = ShimModule(src="a",
    /// mirror="b")`), directly or through a name it was bound to first.
    fn mirror(&mut self, assign: &ruff_python_ast::StmtAssign) {
        let registers = assign
            .targets
            .iter()
            .any(|t| effects::registered_module(t).is_some());
        let made = effects::module_mirror(&assign.value);
        let placed = match (&made, &*assign.value) {
            (Some(m), _) if registers => Some(m.clone()),
            (None, Expr::Name(n)) if registers => self.unplaced_mirrors.remove(n.id.as_str()),
            (Some(m), _) => {
                for t in &assign.targets {
                    if let Expr::Name(n) = t {
                        self.unplaced_mirrors.insert(n.id.to_string(), m.clone());
                    }
                }
                None
            }
            _ => None,
        };
        if let Some(m) = placed {
            if !self.mirrors.contains(&m) {
                self.mirrors.push(m);
            }
        }
    }

    /// An assignment: aliases, constants, lazy imports, classes made by `namedtuple`, and what
    /// it does to `sys.modules`.
    fn assign(&mut self, assign: &ruff_python_ast::StmtAssign, fallback: bool) {
        self.mirror(assign);
        for target in &assign.targets {
            self.class_attribute(target);
            match effects::modules_write(target, &assign.value) {
                Some(ModulesWrite::ReplacesItself) => {
                    self.replaces_itself = true;
                    self.lazy_structures(&assign.value, fallback);
                }
                Some(ModulesWrite::Registers) => self.registers_modules = true,
                Some(ModulesWrite::WrapsItself) => {
                    self.wrapped_by = called_name(&assign.value);
                }
                None => {}
            }
        }
        if let [Expr::Name(name)] = &assign.targets[..] {
            let name = name.id.as_str();
            if effects::is_this_module(&assign.value) {
                self.self_aliases.push(name.to_string());
                self.module_objects.push(name.to_string());
            }
            // `keras = sys.modules["tensorflow.keras"]`: the module registered there.
            if let Some(module) = effects::registered_module(&assign.value) {
                self.module_objects.push(name.to_string());
                self.lazy_import(name, &module, fallback);
                return;
            }
            if let Expr::StringLiteral(text) = &*assign.value {
                self.constants
                    .insert(name.to_string(), text.value.to_str().to_string());
            }
        }
        // `__getattr__, __dir__, __all__ = lazy.attach(__name__, submod_attrs=...)`.
        if self.binds_getattr(&assign.targets) {
            self.lazy_structures(&assign.value, fallback);
        }
        // `a = b = pkg.f` makes both names aliases; tuple targets never are.
        let value =
            dotted_name(&assign.value).or_else(|| rewrapped(&assign.targets, &assign.value));
        let called = called_name(&assign.value);
        let lazy_module = self.lazy_loader_module(&assign.value);
        for target in &assign.targets {
            if let Expr::Name(name) = target {
                if let Some(class) = namedtuple_class(name.id.as_str(), &assign.value) {
                    self.push(Binding::Class(class), fallback);
                    continue;
                }
                match &lazy_module {
                    Some(module) => self.lazy_import(name.id.as_str(), module, fallback),
                    None => {
                        self.variable(name.id.as_str(), value.clone(), called.clone(), fallback)
                    }
                }
                continue;
            }
            let mut names = Vec::new();
            target_names(target, &mut names);
            for name in names {
                self.variable(name, None, None, fallback);
            }
        }
    }

    /// A call at the top level (what it passes, what it raises), or a `setattr` on the module.
    fn expression_statement(
        &mut self,
        stmt: &Stmt,
        expr: &ruff_python_ast::StmtExpr,
        fallback: bool,
    ) {
        if effects::sets_computed_module_names(stmt, &self.module_objects) {
            self.dynamic_exports = true;
        }
        if let Some((name, value)) = effects::module_setattr(&expr.value, &self.self_aliases) {
            match self.lazy_loader_module(value) {
                Some(module) => self.lazy_import(name, &module, fallback),
                None => self.variable(name, dotted_name(value), called_name(value), fallback),
            }
        } else if let Expr::Call(call) = &*expr.value {
            if self.depth == 0 && !fallback {
                if let Some(callee) = dotted_name(&call.func) {
                    if let Some(Expr::Name(arg)) = call.arguments.args.first() {
                        self.passes
                            .push((callee.clone(), arg.id.as_str().to_string()));
                    }
                    match self.raising_functions.get(&callee) {
                        Some(message) => {
                            self.raises.get_or_insert_with(|| message.clone());
                        }
                        None => self.top_calls.push(callee),
                    }
                }
            }
        }
        if effects::registers_modules(std::slice::from_ref(stmt)) {
            self.registers_modules = true;
        }
    }

    /// `from M import names` (`from __future__ import absolute_import` only sets the mode).
    fn import_from(&mut self, from: &ruff_python_ast::StmtImportFrom, fallback: bool) {
        let module = from.module.as_ref().map(|m| m.as_str().to_string());
        if from.level == 0 && module.as_deref() == Some("__future__") {
            if from
                .names
                .iter()
                .any(|n| n.name.as_str() == "absolute_import")
            {
                self.absolute_import = true;
            }
            return;
        }
        let names: Vec<ImportedName> = from
            .names
            .iter()
            .filter(|alias| {
                let bound = alias.asname.as_ref().unwrap_or(&alias.name);
                alias.name.as_str() == "*" || is_identifier(bound.as_str())
            })
            .map(|alias| ImportedName {
                name: alias.name.as_str().to_string(),
                asname: alias.asname.as_ref().map(|a| a.as_str().to_string()),
            })
            .collect();
        if names.is_empty() {
            return;
        }
        self.push_import(
            Binding::ImportFrom(ImportFrom {
                level: from.level,
                module,
                names,
            }),
            fallback,
        );
    }

    /// `del names`: the names are unbound (an overload deleted is forgotten).
    fn delete(&mut self, delete: &ruff_python_ast::StmtDelete, fallback: bool) {
        let names: Vec<String> = delete
            .targets
            .iter()
            .filter_map(|t| match t {
                Expr::Name(n) => Some(n.id.as_str().to_string()),
                _ => None,
            })
            .collect();
        if !names.is_empty() {
            for name in &names {
                self.overloads.remove(name);
            }
            self.push(Binding::Delete(names), fallback);
        }
    }

    /// `if`: a branch known not to run at import time (`TYPE_CHECKING`) is guarded; the
    /// others are fallbacks.
    fn if_statement(&mut self, stmt_if: &ruff_python_ast::StmtIf, fallback: bool) {
        // The branch that runs when the test is false (an `else`), if the test is
        // known to be false at import time: `TYPE_CHECKING`, or a build flag.
        let false_test = is_type_checking(&stmt_if.test) || is_setup_flag(&stmt_if.test);
        let runs_else =
            |clause: &ruff_python_ast::ElifElseClause| false_test && clause.test.is_none();
        if is_type_checking(&stmt_if.test) {
            let outer = std::mem::replace(&mut self.in_lazy, true);
            self.visit_guarded(&stmt_if.body, fallback, true);
            self.in_lazy = outer;
            for clause in &stmt_if.elif_else_clauses {
                self.visit_guarded(&clause.body, fallback, !runs_else(clause));
            }
        } else {
            self.visit_guarded(&stmt_if.body, fallback, true);
            for clause in &stmt_if.elif_else_clauses {
                self.visit_guarded(&clause.body, true, !runs_else(clause));
            }
        }
    }

    /// `try`: its body is guarded when a handler catches a failed import.
    fn try_statement(&mut self, stmt_try: &ruff_python_ast::StmtTry, fallback: bool) {
        let guards = stmt_try.handlers.iter().any(|handler| {
            let ExceptHandler::ExceptHandler(handler) = handler;
            catches_failed_import(handler)
        });
        self.visit_guarded(&stmt_try.body, fallback, guards);
        for handler in &stmt_try.handlers {
            let ExceptHandler::ExceptHandler(handler) = handler;
            self.visit_guarded(&handler.body, true, true);
        }
        self.visit_guarded(&stmt_try.orelse, fallback, guards);
        self.visit_block(&stmt_try.finalbody, fallback);
    }

    /// `Cls.attr = value` after `class Cls` in this module (pandas 0.19's `DataFrame.plot =
    /// base.AccessorProperty(...)`): a member of the class.
    fn class_attribute(&mut self, target: &Expr) {
        let Expr::Attribute(attr) = target else {
            return;
        };
        let Expr::Name(owner) = &*attr.value else {
            return;
        };
        let name = attr.attr.as_str();
        if is_private(name) || !is_identifier(name) {
            return;
        }
        let owner = owner.id.as_str();
        let latest = self
            .bindings
            .iter_mut()
            .rev()
            .find(|b| b.bound_names().any(|n| n == owner));
        if let Some(Binding::Class(class)) = latest {
            if !class.members.iter().any(|m| m.name == name) {
                class.members.push(Member {
                    name: name.to_string(),
                    kind: MemberKind::Attribute,
                });
            }
        }
    }

    fn scan_loop(&mut self, stmt: &Stmt) {
        for body in all_names::nested_bodies(stmt) {
            if all_names::mutates_all(body) {
                self.all.get_or_insert_with(AllNames::default).dynamic = true;
            }
            for inner in body {
                if writes_globals(inner)
                    || effects::sets_computed_module_names(inner, &self.module_objects)
                {
                    self.dynamic_exports = true;
                }
                self.scan_loop(inner);
            }
        }
    }

    /// Whether assignment targets bind a module `__getattr__` (`__getattr__, __dir__, __all__ =
    /// lazy.attach(...)`).
    fn binds_getattr(&self, targets: &[Expr]) -> bool {
        targets.iter().any(|t| {
            let mut names = Vec::new();
            target_names(t, &mut names);
            names.contains(&"__getattr__")
        })
    }

    fn lazy_loader_module(&self, value: &Expr) -> Option<String> {
        effects::lazy_loader_module(value, |name| self.constants.get(name).cloned())
    }

    /// `name = LazyLoader(..., "pkg.mod")`: as `import pkg.mod as name`, since the loader
    /// stands for that module.
    fn lazy_import(&mut self, name: &str, module: &str, fallback: bool) {
        self.push(
            Binding::Import(Import {
                module: module.to_string(),
                asname: Some(name.to_string()),
            }),
            fallback,
        );
    }

    /// The names of the literal import structures a lazy module is built from, as the
    /// imports they stand for: `{"models.bert": ["BertModel"]}` is
    /// `from .models.bert import BertModel`, made on first access.
    fn lazy_structures(&mut self, value: &Expr, fallback: bool) {
        let structures = import_structure::given_to(value, &self.structures);
        let outer = std::mem::replace(&mut self.in_lazy, true);
        for structure in structures {
            for (module, names) in structure.entries {
                let names: Vec<ImportedName> = if names.is_empty() {
                    // A submodule listed on its own is bound as an attribute.
                    if module.contains('.') {
                        continue;
                    }
                    vec![ImportedName {
                        name: module.clone(),
                        asname: None,
                    }]
                } else {
                    names
                        .into_iter()
                        .filter(|n| is_identifier(n))
                        .map(|name| ImportedName { name, asname: None })
                        .collect()
                };
                let from_module = if names.len() == 1 && names[0].name == module {
                    None
                } else {
                    Some(module)
                };
                if names.is_empty() || from_module.as_deref().is_some_and(|m| !is_dotted(m)) {
                    continue;
                }
                self.push(
                    Binding::ImportFrom(ImportFrom {
                        level: 1,
                        module: from_module,
                        names,
                    }),
                    fallback,
                );
            }
        }
        self.in_lazy = outer;
    }

    fn variable(
        &mut self,
        name: &str,
        alias_of: Option<String>,
        called: Option<String>,
        fallback: bool,
    ) {
        if name == "__getattr__" {
            self.dynamic_exports = true;
        }
        self.push(
            Binding::Variable(Variable {
                name: name.to_string(),
                alias_of,
                called,
            }),
            fallback,
        );
    }

    /// What a module-level function's body (or its dispatcher's) says of its deprecation;
    /// a function whose own body warns first is remembered as a dispatcher for later ones.
    fn warned(&mut self, def: &ruff_python_ast::StmtFunctionDef) -> Option<Box<Warned>> {
        let warned = Warned::read(def, self.source);
        if let Some(shim) = warned.as_ref().and_then(|w| w.shim.as_ref()) {
            if self.depth == 0 {
                self.warning_functions
                    .insert(def.name.to_string(), shim.clone());
            }
            return warned;
        }
        match Warned::dispatched(def, self.source, &self.warning_functions) {
            Some(shim) => {
                let mut w = warned.unwrap_or_default();
                w.shim = Some(shim);
                Some(w)
            }
            None => warned,
        }
    }

    fn push(&mut self, binding: Binding, fallback: bool) {
        // Error recovery can leave a statement without a usable name (`def (x):`).
        if binding.bound_names().any(|n| !is_identifier(n)) {
            return;
        }
        if !matches!(binding, Binding::Function(_)) && !self.overloads.is_empty() {
            for name in binding.bound_names() {
                self.overloads.remove(name);
            }
        }
        if fallback {
            self.fallbacks.push(self.bindings.len() as u32);
        }
        if self.in_lazy {
            self.lazy.push(self.bindings.len() as u32);
        }
        self.bindings.push(binding);
    }
}

/// `a.b.c` made of identifiers.
fn is_dotted(text: &str) -> bool {
    text.split('.').all(is_identifier)
}

/// `X = decorate(X, ...)`: a decorator applied by hand, which as a rule returns `X` itself
/// or a stand-in for it (transformers' `AutoModel = auto_class_update(AutoModel)`), so `X`
/// keeps what it was.
fn rewrapped(targets: &[Expr], value: &Expr) -> Option<String> {
    let ([Expr::Name(target)], Expr::Call(call)) = (targets, value) else {
        return None;
    };
    match call.arguments.args.first() {
        Some(Expr::Name(arg)) if arg.id == target.id => Some(arg.id.to_string()),
        _ => None,
    }
}

/// `f.g` for a value `f.g(...)`.
fn called_name(value: &Expr) -> Option<String> {
    match value {
        Expr::Call(call) => dotted_name(&call.func),
        _ => None,
    }
}

/// The plain names an assignment target binds (`a`, `a, (b, *c)`); attributes and subscripts
/// bind no module-level name.
pub(crate) fn target_names<'a>(target: &'a Expr, out: &mut Vec<&'a str>) {
    match target {
        Expr::Name(name) => out.push(name.id.as_str()),
        Expr::Tuple(tuple) => tuple.elts.iter().for_each(|e| target_names(e, out)),
        Expr::List(list) => list.elts.iter().for_each(|e| target_names(e, out)),
        Expr::Starred(star) => target_names(&star.value, out),
        _ => {}
    }
}

/// `globals()[name] = ...` or `globals().update(...)`: names no static reading can list.
/// `globals()[k] = v`, `globals().update(d)`, and the same through `locals()` or `vars()`,
/// which at module level are the module's globals (matplotlib's `locals().update(cmap_d)`
/// makes `cm.viridis`; scipy 1.16's `vars()[name] = f`).
fn writes_globals(stmt: &Stmt) -> bool {
    let is_globals_call = |e: &Expr| {
        matches!(e, Expr::Call(c) if c.arguments.args.is_empty()
            && matches!(&*c.func, Expr::Name(n) if matches!(n.id.as_str(), "globals" | "locals" | "vars")))
    };
    match stmt {
        Stmt::Assign(assign) => assign
            .targets
            .iter()
            .any(|t| matches!(t, Expr::Subscript(s) if is_globals_call(&s.value))),
        Stmt::Expr(expr) => matches!(
            &*expr.value,
            Expr::Call(call) if matches!(&*call.func, Expr::Attribute(a)
                if a.attr.as_str() == "update" && is_globals_call(&a.value))
        ),
        _ => false,
    }
}

/// A handler that goes on when an import fails: it catches `ImportError` (or
/// `ModuleNotFoundError`, `Exception`, anything) and does not end by raising again.
fn catches_failed_import(handler: &ruff_python_ast::ExceptHandlerExceptHandler) -> bool {
    let catches = |e: &Expr| {
        dotted_name(e).is_some_and(|name| {
            matches!(
                name.rsplit('.').next(),
                Some("ImportError" | "ModuleNotFoundError" | "Exception" | "BaseException")
            )
        })
    };
    let caught = match handler.type_.as_deref() {
        None => true,
        Some(Expr::Tuple(types)) => types.elts.iter().any(catches),
        Some(other) => catches(other),
    };
    caught && !matches!(handler.body.last(), Some(Stmt::Raise(_)))
}

/// `__SKLEARN_SETUP__`, `__NUMPY_SETUP__`: a flag a package's setup script sets while it
/// builds, unset (false) whenever the package is imported for use.
fn is_setup_flag(test: &Expr) -> bool {
    matches!(test, Expr::Name(name) if {
        let id = name.id.as_str();
        id.len() > "____SETUP__".len() && id.starts_with("__") && id.ends_with("_SETUP__")
    })
}

fn is_type_checking(test: &Expr) -> bool {
    match test {
        Expr::Name(name) => name.id.as_str() == "TYPE_CHECKING",
        Expr::Attribute(attr) => attr.attr.as_str() == "TYPE_CHECKING",
        _ => false,
    }
}
