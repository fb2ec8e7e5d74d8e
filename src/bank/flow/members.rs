//! Class members, own and inherited from base classes of the same release.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::bank::extract::{Binding, Class, MemberKind, Signature};

use super::namespace::{DefRef, Solver, Target};

/// A member as reached from some class: its name, the class that defines it, and its kind.
pub(crate) struct ClassMember<'a> {
    pub name: &'a str,
    pub defined_in: DefRef,
    pub kind: &'a MemberKind,
}

pub(crate) struct ClassInfo<'a> {
    pub members: Vec<ClassMember<'a>>,
    /// The constructor: the first `__init__` along the bases.
    pub init: Option<&'a Signature>,
    /// Some base along the way is not a class of this release (`torch.nn.Module`, `dict`,
    /// `types.ModuleType`), or some class along the way sets members of computed names:
    /// members may exist that static reading cannot list.
    pub open_bases: bool,
    /// Some class along the way defines `__getattr__`: instances answer any name.
    pub getattr: bool,
}

/// Bases that add no public members: a class with only these is closed.
const MEMBERLESS_BASES: &[&str] = &["object", "ABC", "Generic", "Protocol"];

pub(crate) fn class_of<'a>(solver: &Solver<'a>, def: DefRef) -> Option<&'a Class> {
    let summary = solver.module(def.module).summary()?;
    match summary.bindings.get(def.binding as usize)? {
        Binding::Class(class) => Some(class),
        _ => None,
    }
}

/// Class members with inheritance, computed once per class.
#[derive(Default)]
pub(crate) struct ClassTable<'a> {
    cache: HashMap<DefRef, Rc<ClassInfo<'a>>>,
    /// Classes handed at the top level of a module to a function of the release that sets
    /// attributes of computed names on its first argument.
    given_members: HashSet<DefRef>,
}

/// The classes of the release handed to functions that set attributes of computed names on
/// their first argument, at the top level of a module (`ops.add_flex_arithmetic_methods(
/// DataFrame)` gives pandas' `DataFrame` its `add`, `sub`, ...).
fn classes_given_members(solver: &Solver<'_>) -> HashSet<DefRef> {
    let mut out = HashSet::new();
    for id in 0..solver.modules.len() as super::namespace::ModId {
        let Some(summary) = solver.module(id).summary() else {
            continue;
        };
        for (callee, arg) in &summary.passes {
            let Some(Target::Def(f)) = solver.resolve_dotted(id, callee) else {
                continue;
            };
            let sets = solver
                .module(f.module)
                .summary()
                .and_then(|s| s.bindings.get(f.binding as usize))
                .is_some_and(|b| matches!(b, Binding::Function(f) if f.sets_attributes));
            if !sets {
                continue;
            }
            if let Some(Target::Def(class)) = solver.resolve_dotted(id, arg) {
                if class_of(solver, class).is_some() {
                    out.insert(class);
                }
            }
        }
    }
    out
}

impl<'a> ClassTable<'a> {
    pub fn new(solver: &Solver<'a>) -> Self {
        Self {
            cache: HashMap::new(),
            given_members: classes_given_members(solver),
        }
    }

    pub fn info(&mut self, solver: &Solver<'a>, class: DefRef) -> Rc<ClassInfo<'a>> {
        if let Some(info) = self.cache.get(&class) {
            return info.clone();
        }
        // Depth-first, left to right, each class once: Python's MRO for all but diamonds,
        // and cycle-safe on broken code.
        let mut order = Vec::new();
        let mut seen = HashSet::new();
        let mut open_bases = false;
        linearize(solver, class, &mut seen, &mut order, &mut open_bases);
        if order
            .iter()
            .any(|(def, _)| self.given_members.contains(def))
        {
            open_bases = true;
        }
        let mut members = Vec::new();
        let mut names = HashSet::new();
        let mut init = None;
        let getattr = order.iter().any(|(_, body)| body.getattr);
        for (def, body) in order {
            if init.is_none() {
                init = body.init.as_ref();
            }
            for member in &body.members {
                if names.insert(member.name.as_str()) {
                    members.push(ClassMember {
                        name: &member.name,
                        defined_in: def,
                        kind: &member.kind,
                    });
                }
            }
        }
        let info = Rc::new(ClassInfo {
            members,
            init,
            open_bases,
            getattr,
        });
        self.cache.insert(class, info.clone());
        info
    }
}

fn linearize<'a>(
    solver: &Solver<'a>,
    def: DefRef,
    seen: &mut HashSet<DefRef>,
    order: &mut Vec<(DefRef, &'a Class)>,
    open_bases: &mut bool,
) {
    if !seen.insert(def) {
        return;
    }
    let Some(class) = class_of(solver, def) else {
        return;
    };
    order.push((def, class));
    if class.computed_members {
        *open_bases = true;
    }
    for base in &class.bases {
        // Bases are resolved where the class is written; those of other distributions
        // (`np.ndarray`, `dict`) contribute members nothing here can list.
        match solver.resolve_dotted(def.module, base) {
            Some(Target::Def(base_def)) if class_of(solver, base_def).is_some() => {
                linearize(solver, base_def, seen, order, open_bases);
            }
            _ => {
                let last = base.rsplit('.').next().unwrap_or(base);
                if !MEMBERLESS_BASES.contains(&last) {
                    *open_bases = true;
                }
            }
        }
    }
}
