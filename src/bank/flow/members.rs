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
    /// `types.ModuleType`): members may come from it that static reading cannot list.
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
}

impl<'a> ClassTable<'a> {
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
