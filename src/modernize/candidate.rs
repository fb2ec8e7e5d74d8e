//! A successor that only a deprecation warning names ("Use .values instead"): weaker
//! evidence than a move or a shim. It is written only in a form a call can take as it is
//! written (an attribute of the same value, a method of it, another path), and kept only when
//! the modernized run passes (see [`super::trial`]).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::bank::flow::ApiKind;
use crate::bank::store::{ApiReport, VersionRun};
use crate::names::{ApiPath, DistName};
use crate::notebook::ApiUse;

/// What a named successor makes of the old API's uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "form", rename_all = "kebab-case")]
pub enum NamedForm {
    /// `x.old()` becomes `x.name`: the successor is an attribute (or property) of the same
    /// value. Only a call passing nothing can take it.
    Attribute { name: String },
    /// `x.old(args)` becomes `x.name(args)`: a method of the same value.
    Method { name: String },
    /// The old path becomes `new` wherever it is written, as a move.
    Path { new: ApiPath },
    /// `old(x, args)` becomes `x.method(args)` followed by `rest` as the notes write it
    /// (`pd.rolling_mean(df, 3)` → `df.rolling(3).mean()`): a function whose first argument
    /// becomes the value a method chain is called on.
    Chain { method: String, rest: String },
}

impl NamedForm {
    /// What takes the old API's place, as the report shows it.
    pub fn text(&self) -> String {
        match self {
            NamedForm::Attribute { name } => format!(".{name}"),
            NamedForm::Method { name } => format!(".{name}(…)"),
            NamedForm::Path { new } => new.to_string(),
            NamedForm::Chain { method, rest } => format!("x.{method}(…){rest}"),
        }
    }
}

/// The paths a warning's `candidate` may mean for the used API `used`, most likely first:
/// `.values` is a member of the same owner; a bare name a sibling (or a name of the
/// top package); a dotted name a full path, or one under the top package, its first part
/// perhaps an import alias (`np.ndarray.item`).
pub fn candidate_paths(used: &ApiPath, candidate: &str) -> Vec<ApiPath> {
    let Some((owner, _)) = used.split_last() else {
        return Vec::new();
    };
    let top = used.segments().next().unwrap_or_default();
    let mut raw: Vec<String> = Vec::new();
    if let Some(member) = candidate.strip_prefix('.') {
        raw.push(format!("{owner}.{member}"));
    } else if !candidate.contains('.') {
        raw.push(format!("{owner}.{candidate}"));
        raw.push(format!("{top}.{candidate}"));
    } else {
        raw.push(candidate.to_string());
        raw.push(format!("{top}.{candidate}"));
        if let Some((_, rest)) = candidate.split_once('.') {
            raw.push(format!("{top}.{rest}"));
        }
    }
    let mut out: Vec<ApiPath> = Vec::new();
    for r in raw {
        if let Ok(p) = ApiPath::new(&r) {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// Whether `report`'s API is in the newest release the bank indexed.
pub(super) fn in_newest(report: &ApiReport) -> bool {
    report
        .latest_indexed
        .as_ref()
        .is_some_and(|latest| VersionRun::any_contains(&report.present, latest))
}

/// The first of the paths `written` may mean for `u` whose report (of `dist`, in the newest
/// release, of a kind `fits`) takes the keywords `u`'s calls pass; `Err` says why none.
fn target<'a>(
    u: &ApiUse,
    dist: &DistName,
    written: &str,
    fits: impl Fn(ApiKind) -> bool,
    missing: &str,
    targets: &'a BTreeMap<ApiPath, Vec<ApiReport>>,
) -> Result<(ApiPath, &'a ApiReport), String> {
    let found = candidate_paths(&u.api, written).into_iter().find_map(|p| {
        let report = targets
            .get(&p)?
            .iter()
            .find(|r| r.distribution == *dist && in_newest(r) && fits(r.kind))?;
        Some((p, report))
    });
    let Some((path, report)) = found else {
        return Err(format!("the newest {dist} the bank indexed has {missing}"));
    };
    takes_the_keywords(u, &path, report)?;
    Ok((path, report))
}

/// `Err` naming the keywords `u`'s calls pass that `report`'s newest signature (of `path`)
/// does not take.
pub(super) fn takes_the_keywords(
    u: &ApiUse,
    path: &ApiPath,
    report: &ApiReport,
) -> Result<(), String> {
    let rejected = super::plan::rejected_keywords(u, report);
    if rejected.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{path} does not take the keyword{} {}",
        if rejected.len() == 1 { "" } else { "s" },
        rejected.join(", ")
    ))
}

/// The chain a replacement written `Owner.method(...).rest` makes of `u`, a function of
/// `dist`: `method` a method of the distribution's in the newest release, taking the
/// keywords `u`'s calls pass; `Err` says why not.
pub fn resolve_chain(
    u: &ApiUse,
    dist: &DistName,
    head: &str,
    rest: &str,
    targets: &BTreeMap<ApiPath, Vec<ApiReport>>,
) -> Result<(ApiPath, NamedForm), String> {
    let missing = format!("no method {head}");
    let is_method = |k| k == ApiKind::Method;
    let (path, _) = target(u, dist, head, is_method, &missing, targets)?;
    let method = path.split_last().map_or("", |(_, n)| n).to_string();
    Ok((
        path,
        NamedForm::Chain {
            method,
            rest: rest.to_string(),
        },
    ))
}

/// The successor `candidate` names for `u` (an API of `dist`, a method when `method`), and
/// the form its calls take; `Err` says why none can be written.
pub fn resolve(
    u: &ApiUse,
    method: bool,
    dist: &DistName,
    candidate: &str,
    targets: &BTreeMap<ApiPath, Vec<ApiReport>>,
) -> Result<(ApiPath, NamedForm), String> {
    let (path, report) = target(u, dist, candidate, |_| true, "no such name", targets)?;
    let same_owner = path.split_last().map(|(o, _)| o) == u.api.split_last().map(|(o, _)| o);
    let name = path.split_last().map_or("", |(_, n)| n).to_string();
    match (method, same_owner, report.kind) {
        (true, true, ApiKind::Property | ApiKind::Attribute) => {
            Ok((path, NamedForm::Attribute { name }))
        }
        (true, true, ApiKind::Method | ApiKind::Function) => Ok((path, NamedForm::Method { name })),
        (true, false, _) => Err(format!(
            "{path} is not a member of the same value: its calls take another shape"
        )),
        (false, _, ApiKind::Function | ApiKind::Class) => {
            Ok((path.clone(), NamedForm::Path { new: path }))
        }
        (_, _, kind) => Err(format!(
            "{path} is {} here, which a call of {} cannot become as it is written",
            kind_text(kind),
            u.api
        )),
    }
}

fn kind_text(kind: ApiKind) -> &'static str {
    match kind {
        ApiKind::Module => "a module",
        ApiKind::Function => "a function",
        ApiKind::Class => "a class",
        ApiKind::Method => "a method",
        ApiKind::Property => "a property",
        ApiKind::Attribute => "an attribute",
        ApiKind::Unknown => "of a kind static reading cannot tell",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> ApiPath {
        ApiPath::new(s).unwrap()
    }

    #[test]
    fn where_a_candidate_may_be() {
        let frame = p("pandas.DataFrame.as_matrix");
        assert_eq!(
            candidate_paths(&frame, ".values"),
            [p("pandas.DataFrame.values")]
        );
        assert_eq!(
            candidate_paths(&frame, "to_numpy"),
            [p("pandas.DataFrame.to_numpy"), p("pandas.to_numpy")]
        );
        assert_eq!(
            candidate_paths(&p("numpy.asscalar"), "np.ndarray.item"),
            [
                p("np.ndarray.item"),
                p("numpy.np.ndarray.item"),
                p("numpy.ndarray.item")
            ]
        );
        assert_eq!(
            candidate_paths(&p("pandas.rolling_mean"), "DataFrame.rolling"),
            [
                p("DataFrame.rolling"),
                p("pandas.DataFrame.rolling"),
                p("pandas.rolling")
            ]
        );
    }
}
