//! A conflict, told in the notebook's terms: which evidence asked for what, and why the
//! releases it allows cannot be installed on the target.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use pep508_rs::pep440_rs::Version;
use pubgrub::{
    DefaultStringReporter, DerivationTree, Derived, External, Map, Ranges, ReportFormatter,
    Reporter, Term,
};

use super::exclusion::Exclusion;
use super::package::Package;
use super::provider::Provider;
use crate::names::DistName;

type Tree = DerivationTree<Package, Ranges<Version>, Exclusion>;
type Ext = External<Package, Ranges<Version>, Exclusion>;
type Terms = Map<Package, Term<Ranges<Version>>>;

/// Evidence labels quoted per requirement before the rest are counted.
const LABELS_SHOWN: usize = 3;
/// Versions listed one by one in a group before it is summarized as a span.
const VERSIONS_LISTED: usize = 3;

/// The derivation of a failed resolution as numbered sentences, and the distributions it
/// names whose releases were out only for want of a wheel, with an sdist the rules refused
/// (`--allow-sdist` would admit them).
pub(crate) fn explain(mut tree: Tree, provider: &Provider<'_>) -> (String, Vec<DistName>) {
    fold_absences(&mut tree, provider);
    let formatter = Formatter {
        provider,
        sdists_refused: RefCell::default(),
    };
    let text = DefaultStringReporter::report_with_formatter(&tree, &formatter);
    (
        text,
        formatter.sdists_refused.into_inner().into_iter().collect(),
    )
}

/// Folds "no release of P in R" into its neighbour when R holds no release at all, so that
/// nothing is lost: with `tf ==1.15.0 depends on np <1.19` it reads `tf <2 depends on np
/// <1.19`; with `the notebook needs app`, it goes (the need is the same over the releases that
/// exist); with a derived cause, that cause's conclusion widens to the current one. An absence
/// that holds releases ruled out for a reason stays, to say that reason. (PubGrub's own
/// `collapse_no_versions` folds both kinds and leaves derived causes.)
fn fold_absences(tree: &mut Tree, provider: &Provider<'_>) {
    let DerivationTree::Derived(derived) = tree else {
        return;
    };
    let absence = |cause: &Tree| match cause {
        DerivationTree::External(External::NoVersions(p, r))
            if holds_no_release(p, r, provider) =>
        {
            Some((p.clone(), r.clone()))
        }
        _ => None,
    };
    let (absent, other) = match (absence(&derived.cause1), absence(&derived.cause2)) {
        (Some(a), _) => (a, derived.cause2.clone()),
        (None, Some(a)) => (a, derived.cause1.clone()),
        (None, None) => {
            fold_absences(Arc::make_mut(&mut derived.cause1), provider);
            fold_absences(Arc::make_mut(&mut derived.cause2), provider);
            return;
        }
    };
    let (p, r) = absent;
    let folded = match &*other {
        DerivationTree::External(External::FromDependencyOf(p1, r1, p2, r2)) if p1 == &p => {
            DerivationTree::External(External::FromDependencyOf(
                p1.clone(),
                r1.union(&r),
                p2.clone(),
                r2.clone(),
            ))
        }
        DerivationTree::External(External::FromDependencyOf(_, _, p2, _)) if p2 == &p => {
            (*other).clone()
        }
        DerivationTree::Derived(inner) if inner.shared_id.is_none() => {
            let mut inner = inner.clone();
            inner.terms = derived.terms.clone();
            inner.shared_id = derived.shared_id;
            DerivationTree::Derived(inner)
        }
        _ => {
            let other = if Arc::ptr_eq(&other, &derived.cause1) {
                &mut derived.cause1
            } else {
                &mut derived.cause2
            };
            fold_absences(Arc::make_mut(other), provider);
            return;
        }
    };
    *tree = folded;
    fold_absences(tree, provider);
}

/// Whether `range` holds none of the package's known releases.
fn holds_no_release(package: &Package, range: &Ranges<Version>, provider: &Provider<'_>) -> bool {
    match package.dist() {
        Some(d) => provider
            .with_candidates(d, |c| {
                !c.not_found && c.versions().iter().all(|v| !range.contains(*v))
            })
            .unwrap_or(false),
        None => false,
    }
}

struct Formatter<'p, 'a> {
    provider: &'p Provider<'a>,
    /// Distributions a told absence left out for their refused sdists.
    sdists_refused: RefCell<BTreeSet<DistName>>,
}

impl Formatter<'_, '_> {
    /// `scikit-learn <0.20`, with ranges told over the distribution's known releases.
    fn package_range(&self, package: &Package, range: &Ranges<Version>) -> String {
        let described = match package {
            Package::Dist(d) | Package::Extra(d, _) => self
                .provider
                .with_candidates(d, |c| describe_over(range, &c.versions()))
                .unwrap_or_else(|_| describe_plain(range)),
            Package::Python | Package::Root => describe_plain(range),
        };
        if described.is_empty() {
            package.to_string()
        } else {
            format!("{package} {described}")
        }
    }

    /// Why `package` has nothing installable in `range`.
    fn no_versions(&self, package: &Package, range: &Ranges<Version>) -> String {
        let target = self.provider.target;
        let Some(dist) = package.dist() else {
            return format!(
                "the target is {target}, outside {}",
                self.package_range(package, range)
            );
        };
        let told = self.provider.with_candidates(dist, |c| {
            if c.not_found {
                return format!("{dist} is not on the index");
            }
            let mut groups: BTreeMap<String, Vec<&Version>> = BTreeMap::new();
            let mut order: Vec<String> = Vec::new();
            for (version, why) in c.excluded_in(range) {
                if let Exclusion::NoWheel { sdist: Some(_), .. } = why {
                    self.sdists_refused.borrow_mut().insert(dist.clone());
                }
                let key = why.to_string();
                if !groups.contains_key(&key) {
                    order.push(key.clone());
                }
                groups.entry(key).or_default().push(version);
            }
            let what = self.package_range(package, range);
            match (order.as_slice(), &groups.values().next().map(Vec::as_slice)) {
                ([], _) => return format!("{package} has no release {}", describe_plain(range)),
                ([why], Some([version])) => {
                    return format!("{package} {version} cannot be installed on {target} ({why})")
                }
                _ => {}
            }
            let reasons: Vec<String> = order
                .iter()
                .map(|why| format!("{}: {why}", list_versions(&groups[why])))
                .collect();
            format!(
                "{what} has no release installable on {target} ({})",
                reasons.join("; ")
            )
        });
        told.unwrap_or_else(|e| format!("{package} is unknown ({e})"))
    }

    /// The evidence behind the root's requirement on `package` in `range`.
    fn root_need(&self, package: &Package, range: &Ranges<Version>) -> String {
        let Some(dist) = package.dist() else {
            return format!("the notebook needs {}", self.package_range(package, range));
        };
        let root_ranges = self.provider.root_ranges();
        let roots = self.provider.roots;
        let of_dist = || roots.iter().enumerate().filter(|(_, r)| &r.dist == dist);
        let exact: Vec<&String> = of_dist()
            .filter(|(i, _)| root_ranges.get(*i) == Some(range))
            .flat_map(|(_, r)| &r.evidence)
            .collect();
        let labels = if exact.is_empty() {
            of_dist().flat_map(|(_, r)| &r.evidence).collect()
        } else {
            exact
        };
        let mut text = format!("the notebook needs {}", self.package_range(package, range));
        if !labels.is_empty() {
            let shown: Vec<&str> = labels
                .iter()
                .take(LABELS_SHOWN)
                .map(|s| s.as_str())
                .collect();
            text.push_str(&format!(" ({}", shown.join("; ")));
            if labels.len() > LABELS_SHOWN {
                text.push_str(&format!("; and {} more", labels.len() - LABELS_SHOWN));
            }
            text.push(')');
        }
        text
    }

    fn depends(
        &self,
        p: &Package,
        rp: &Ranges<Version>,
        q: &Package,
        rq: &Ranges<Version>,
    ) -> String {
        match (p, q) {
            (Package::Root, _) => self.root_need(q, rq),
            (_, Package::Python) => format!(
                "{} requires {}",
                self.package_range(p, rp),
                self.package_range(q, rq)
            ),
            (Package::Extra(d, _), Package::Dist(base)) if d == base => format!(
                "{} is {} at the same version",
                self.package_range(p, rp),
                base
            ),
            (Package::Dist(parent), Package::Dist(dist)) => {
                match self.provider.imported_modules(parent, rp, dist) {
                    Some(modules) => format!(
                        "{} imports {} whenever it is imported (as the bank read its code), so depends on {}",
                        self.package_range(p, rp),
                        modules.join(", "),
                        self.package_range(q, rq)
                    ),
                    None => format!(
                        "{} depends on {}",
                        self.package_range(p, rp),
                        self.package_range(q, rq)
                    ),
                }
            }
            _ => format!(
                "{} depends on {}",
                self.package_range(p, rp),
                self.package_range(q, rq)
            ),
        }
    }

    fn term(&self, package: &Package, term: &Term<Ranges<Version>>) -> String {
        match term {
            Term::Positive(r) => self.package_range(package, r),
            Term::Negative(r) => format!("{package} outside {}", describe_plain(r)),
        }
    }
}

impl ReportFormatter<Package, Ranges<Version>, Exclusion> for Formatter<'_, '_> {
    type Output = String;

    fn format_external(&self, external: &Ext) -> String {
        match external {
            External::NotRoot(..) => {
                format!("the notebook is resolved for {}", self.provider.target)
            }
            External::NoVersions(p, r) => self.no_versions(p, r),
            External::Custom(p, r, why) => {
                format!("{} cannot be used ({why})", self.package_range(p, r))
            }
            External::FromDependencyOf(p, rp, q, rq) => self.depends(p, rp, q, rq),
        }
    }

    fn format_terms(&self, terms: &Terms) -> String {
        let terms: Vec<_> = terms.iter().collect();
        match terms.as_slice() {
            [] => "no environment can be built".into(),
            [(Package::Root, Term::Positive(_))] => format!(
                "the notebook's requirements cannot all be met on {}",
                self.provider.target
            ),
            [(p, Term::Positive(r))] => format!("{} cannot be used", self.package_range(p, r)),
            [(p, Term::Negative(r))] => format!("{} is required", self.package_range(p, r)),
            [(p, Term::Positive(rp)), (q, Term::Negative(rq))]
            | [(q, Term::Negative(rq)), (p, Term::Positive(rp))] => self.depends(p, rp, q, rq),
            many => {
                let parts: Vec<String> = many.iter().map(|(p, t)| self.term(p, t)).collect();
                format!("{} cannot all hold", parts.join(", "))
            }
        }
    }

    fn explain_both_external(&self, e1: &Ext, e2: &Ext, terms: &Terms) -> String {
        let (e1, e2) = notebook_first(e1, e2);
        format!(
            "Because {} and {}, {}.",
            self.format_external(e1),
            self.format_external(e2),
            self.format_terms(terms)
        )
    }

    fn explain_both_ref(
        &self,
        ref1: usize,
        d1: &Derived<Package, Ranges<Version>, Exclusion>,
        ref2: usize,
        d2: &Derived<Package, Ranges<Version>, Exclusion>,
        terms: &Terms,
    ) -> String {
        format!(
            "Because {} ({ref1}) and {} ({ref2}), {}.",
            self.format_terms(&d1.terms),
            self.format_terms(&d2.terms),
            self.format_terms(terms)
        )
    }

    fn explain_ref_and_external(
        &self,
        ref_id: usize,
        derived: &Derived<Package, Ranges<Version>, Exclusion>,
        external: &Ext,
        terms: &Terms,
    ) -> String {
        format!(
            "Because {} ({ref_id}) and {}, {}.",
            self.format_terms(&derived.terms),
            self.format_external(external),
            self.format_terms(terms)
        )
    }

    fn and_explain_external(&self, external: &Ext, terms: &Terms) -> String {
        format!(
            "And because {}, {}.",
            self.format_external(external),
            self.format_terms(terms)
        )
    }

    fn and_explain_ref(
        &self,
        ref_id: usize,
        derived: &Derived<Package, Ranges<Version>, Exclusion>,
        terms: &Terms,
    ) -> String {
        format!(
            "And because {} ({ref_id}), {}.",
            self.format_terms(&derived.terms),
            self.format_terms(terms)
        )
    }

    fn and_explain_prior_and_external(&self, prior: &Ext, external: &Ext, terms: &Terms) -> String {
        let (prior, external) = notebook_first(prior, external);
        format!(
            "And because {} and {}, {}.",
            self.format_external(prior),
            self.format_external(external),
            self.format_terms(terms)
        )
    }
}

/// The notebook's own requirements first, then dependencies, then what rules versions out:
/// the explanation starts from the user's evidence.
fn notebook_first<'e>(a: &'e Ext, b: &'e Ext) -> (&'e Ext, &'e Ext) {
    let rank = |e: &Ext| match e {
        External::FromDependencyOf(Package::Root, ..) => 0,
        External::FromDependencyOf(..) => 1,
        External::Custom(..) | External::NotRoot(..) => 2,
        External::NoVersions(..) => 3,
    };
    if rank(b) < rank(a) {
        (b, a)
    } else {
        (a, b)
    }
}

/// A range told over `known` releases (oldest first): as written (`<0.20`, `>=1.2, <2`) when
/// that is as short as listing the runs of known releases it holds, else by those runs
/// (`<1.2 or ==1.3`), which is how sets merged by PubGrub read best. Empty for any version.
pub(crate) fn describe_over(range: &Ranges<Version>, known: &[&Version]) -> String {
    let inside: Vec<bool> = known.iter().map(|v| range.contains(*v)).collect();
    let mut runs = Vec::new();
    let mut i = 0;
    while i < known.len() {
        if !inside[i] {
            i += 1;
            continue;
        }
        let start = i;
        while i < known.len() && inside[i] {
            i += 1;
        }
        runs.push(match (start, known.get(i)) {
            (0, None) => String::new(),
            (0, Some(next)) => format!("<{next}"),
            (s, None) => format!(">={}", known[s]),
            (s, Some(_)) if i - s == 1 => format!("=={}", known[s]),
            (s, Some(next)) => format!(">={}, <{next}", known[s]),
        });
    }
    if runs.is_empty() || range.iter().count() <= runs.len() {
        describe_plain(range)
    } else {
        runs.join(" or ")
    }
}

/// A range as its segments (`>=1.2, <2 or ==2.5`); empty for any version.
pub(crate) fn describe_plain(range: &Ranges<Version>) -> String {
    use std::ops::Bound::{Excluded, Included, Unbounded};
    if range.is_empty() {
        return "(no version)".into();
    }
    let segments: Vec<String> = range
        .iter()
        .map(|segment| match segment {
            (Unbounded, Unbounded) => String::new(),
            (Unbounded, Included(v)) => format!("<={v}"),
            (Unbounded, Excluded(v)) => format!("<{v}"),
            (Included(v), Unbounded) => format!(">={v}"),
            (Excluded(v), Unbounded) => format!(">{v}"),
            (Included(a), Included(b)) if a == b => format!("=={a}"),
            (Included(a), Included(b)) => format!(">={a}, <={b}"),
            (Included(a), Excluded(b)) => format!(">={a}, <{b}"),
            (Excluded(a), Included(b)) => format!(">{a}, <={b}"),
            (Excluded(a), Excluded(b)) => format!(">{a}, <{b}"),
        })
        .collect();
    segments.join(" or ")
}

/// `0.19.2`, `0.19.1 and 0.19.2`, or `12 releases from 0.15.0 to 0.19.2`.
fn list_versions(versions: &[&Version]) -> String {
    match versions {
        [] => String::new(),
        [one] => one.to_string(),
        few if few.len() <= VERSIONS_LISTED => {
            let (last, rest) = few.split_last().expect("not empty");
            let rest: Vec<String> = rest.iter().map(|v| v.to_string()).collect();
            format!("{} and {last}", rest.join(", "))
        }
        many => format!(
            "{} releases from {} to {}",
            many.len(),
            many[0],
            many[many.len() - 1]
        ),
    }
}
