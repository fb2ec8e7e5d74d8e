//! Accumulating evidence while cells are traced, then turning it into a [`Usage`]. Keys are
//! looked up by `&str` so that a repeated API costs no allocation.

use std::collections::HashMap;
use std::rc::Rc;

use crate::names::{ApiPath, ModulePath};

use super::external::{FileUse, NetworkUse};
use super::location::Location;
use super::python_version::{HintReason, VersionHint};
use super::requirement::InstallRequirement;
use super::usage::{ImportVia, Note, Receiver, UseKind, Warning};
use crate::python::PythonRange;

const USE_KINDS: [UseKind; 8] = [
    UseKind::Import,
    UseKind::Call,
    UseKind::Attribute,
    UseKind::Decorator,
    UseKind::BaseClass,
    UseKind::Traced,
    UseKind::Inherited,
    UseKind::Star,
];

fn kind_bit(kind: UseKind) -> u8 {
    1 << USE_KINDS.iter().position(|k| *k == kind).unwrap_or(0)
}

pub(crate) fn kinds_of(bits: u8) -> Vec<UseKind> {
    USE_KINDS
        .iter()
        .copied()
        .filter(|k| bits & kind_bit(*k) != 0)
        .collect()
}

#[derive(Debug, Default)]
pub(crate) struct ApiAcc {
    pub(crate) count: u32,
    pub(crate) kinds: u8,
    pub(crate) keywords: Vec<Box<str>>,
    pub(crate) locations: Vec<Location>,
}

#[derive(Debug)]
pub(crate) struct MemberAcc {
    /// The API the receiver derives from; `None` when nothing is known about it.
    pub(crate) origin: Option<Rc<str>>,
    pub(crate) count: u32,
    pub(crate) called: bool,
    pub(crate) keywords: Vec<Box<str>>,
    pub(crate) example: String,
    pub(crate) locations: Vec<Location>,
}

/// An import as traced, before classification against stdlib and local modules.
#[derive(Debug, Clone)]
pub(crate) struct RawImport {
    pub(crate) module: ModulePath,
    pub(crate) name: Option<String>,
    pub(crate) alias: Option<String>,
    pub(crate) star: bool,
    pub(crate) level: u32,
    pub(crate) optional: bool,
    pub(crate) in_function: bool,
    pub(crate) via: ImportVia,
    pub(crate) at: Location,
}

/// Everything found so far in one notebook.
#[derive(Debug, Default)]
pub(crate) struct Evidence {
    pub(crate) apis: HashMap<Box<str>, ApiAcc>,
    pub(crate) members: HashMap<Box<str>, Vec<MemberAcc>>,
    pub(crate) imports: Vec<RawImport>,
    pub(crate) requirements: Vec<InstallRequirement>,
    pub(crate) notes: Vec<Note>,
    pub(crate) warnings: Vec<Warning>,
    pub(crate) hints: Vec<VersionHint>,
    /// Modules written by `%%writefile name.py`.
    pub(crate) written_modules: Vec<(String, Location)>,
    /// Directories added with `sys.path.append('...')`.
    pub(crate) sys_path_dirs: Vec<(String, Location)>,
    /// Cells that print a module's `__version__`, with the module.
    pub(crate) version_probes: Vec<(u32, Rc<str>)>,
    /// Cells whose output lists installed packages (`pip list`, `pip freeze`, `%watermark`).
    pub(crate) listing_cells: Vec<u32>,
    /// Files opened by a literal path.
    pub(crate) files: Vec<FileUse>,
    pub(crate) network: Vec<NetworkUse>,
}

impl Evidence {
    /// Records one use of `path`; `extra` is a second kind for the same use (`Traced` + `Call`).
    pub(crate) fn api<'k>(
        &mut self,
        path: &str,
        kind: UseKind,
        extra: Option<UseKind>,
        keywords: impl IntoIterator<Item = &'k str>,
        at: Location,
    ) {
        let acc = match self.apis.get_mut(path) {
            Some(acc) => acc,
            None => self.apis.entry(path.into()).or_default(),
        };
        acc.count += 1;
        acc.kinds |= kind_bit(kind) | extra.map_or(0, kind_bit);
        add_keywords(&mut acc.keywords, keywords);
        if acc.locations.last() != Some(&at) {
            acc.locations.push(at);
        }
    }

    pub(crate) fn member<'k>(
        &mut self,
        member: &str,
        origin: Option<&Rc<str>>,
        called: bool,
        keywords: impl IntoIterator<Item = &'k str>,
        example: impl FnOnce() -> String,
        at: Location,
    ) {
        let list = match self.members.get_mut(member) {
            Some(list) => list,
            None => self.members.entry(member.into()).or_default(),
        };
        let idx = match list
            .iter()
            .position(|m| m.origin.as_deref() == origin.map(|o| &**o))
        {
            Some(i) => i,
            None => {
                list.push(MemberAcc {
                    origin: origin.cloned(),
                    count: 0,
                    called: false,
                    keywords: Vec::new(),
                    example: example(),
                    locations: Vec::new(),
                });
                list.len() - 1
            }
        };
        let acc = &mut list[idx];
        acc.count += 1;
        acc.called |= called;
        add_keywords(&mut acc.keywords, keywords);
        if acc.locations.last() != Some(&at) {
            acc.locations.push(at);
        }
    }

    /// Records Python-version evidence; the same reason and detail are counted once, and are
    /// strong if any occurrence is.
    pub(crate) fn hint(
        &mut self,
        reason: HintReason,
        detail: &str,
        range: PythonRange,
        weak: bool,
        at: Option<Location>,
    ) {
        if let Some(h) = self
            .hints
            .iter_mut()
            .find(|h| h.reason == reason && h.detail == detail)
        {
            h.count += 1;
            h.weak &= weak;
            if h.at.is_none() {
                h.at = at;
            }
            return;
        }
        self.hints.push(VersionHint {
            reason,
            detail: detail.to_string(),
            range,
            weak,
            count: 1,
            at,
        });
    }
}

fn add_keywords<'k>(into: &mut Vec<Box<str>>, keywords: impl IntoIterator<Item = &'k str>) {
    for k in keywords {
        if !into.iter().any(|e| &**e == k) {
            into.push(k.into());
        }
    }
}

/// Sorted keyword names.
pub(crate) fn sorted_keywords(keywords: Vec<Box<str>>) -> Vec<String> {
    let mut out: Vec<String> = keywords.into_iter().map(String::from).collect();
    out.sort_unstable();
    out
}

/// The receiver as reported, or `None` when the path is not a valid API name.
pub(crate) fn receiver_of(origin: Option<Rc<str>>) -> Option<Receiver> {
    match origin {
        None => Some(Receiver::Unknown),
        Some(o) => ApiPath::new(&o).ok().map(Receiver::DerivedFrom),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apis_are_counted_once_per_name() {
        let mut e = Evidence::default();
        let at = Location::new(1, 2);
        e.api("a.b", UseKind::Call, None, ["x"], at);
        e.api(
            "a.b",
            UseKind::Attribute,
            None,
            ["x", "y"],
            Location::new(2, 1),
        );
        let acc = &e.apis["a.b"];
        assert_eq!(acc.count, 2);
        assert_eq!(kinds_of(acc.kinds), [UseKind::Call, UseKind::Attribute]);
        assert_eq!(acc.keywords.len(), 2);
        assert_eq!(acc.locations.len(), 2);
    }
}
