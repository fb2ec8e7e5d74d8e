//! Successors in another distribution, as the old one's own code named them: a module that
//! some releases put in place of itself with one forwarding every name to another module
//! (IPython 4.0-7.34's `IPython.html.widgets`, forwarded to `ipywidgets`). What was
//! `IPython.html.widgets.interact` there was `ipywidgets.interact`, the same object; once
//! IPython dropped the forwarding, the successor is the mirror's name, found in the newest
//! release of the distribution that has it.

use std::collections::BTreeMap;

use crate::bank::flow::ApiKind;
use crate::bank::store::{ApiReport, Mirrored};
use crate::names::{ApiPath, DistName};
use crate::notebook::ApiUse;

/// The forwarding that covers `api` (the deepest module it is under) and the path it
/// forwarded `api` to: `ipywidgets.interact` for `IPython.html.widgets.interact`.
pub fn mirror_of<'a>(mirrors: &'a [Mirrored], api: &ApiPath) -> Option<(&'a Mirrored, ApiPath)> {
    mirrors
        .iter()
        .filter_map(|m| {
            let rest = api
                .as_str()
                .strip_prefix(m.module.as_str())?
                .strip_prefix('.')?;
            Some((m, ApiPath::new(&format!("{}.{rest}", m.mirror)).ok()?))
        })
        .max_by_key(|(m, _)| m.module.as_str().len())
}

/// The successor a forwarding names for `u`, in the newest release of a distribution the bank
/// indexed, with that distribution; `Err` says why it cannot be written.
pub fn successor(
    u: &ApiUse,
    new: &ApiPath,
    targets: &BTreeMap<ApiPath, Vec<ApiReport>>,
) -> Result<DistName, String> {
    let Some(reports) = targets.get(new) else {
        return Err(format!("no release the bank indexed has {new}"));
    };
    let Some(report) = reports
        .iter()
        .find(|r| super::candidate::in_newest(r) && r.kind != ApiKind::Module)
    else {
        let dists: Vec<&str> = reports.iter().map(|r| r.distribution.as_str()).collect();
        return Err(format!(
            "the newest {} the bank indexed has no {new}",
            dists.join(", ")
        ));
    };
    super::candidate::takes_the_keywords(u, new, report)?;
    Ok(report.distribution.clone())
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use pep440_rs::Version;

    use super::*;
    use crate::bank::store::VersionRun;

    fn p(s: &str) -> ApiPath {
        ApiPath::new(s).unwrap()
    }

    fn v(s: &str) -> Version {
        Version::from_str(s).unwrap()
    }

    fn forwarding(module: &str, mirror: &str) -> Mirrored {
        Mirrored {
            module: p(module),
            mirror: p(mirror),
            by: p("IPython.html"),
            releases: vec![VersionRun {
                first: v("4.0.0"),
                last: v("7.34.0"),
            }],
            last: v("7.34.0"),
        }
    }

    #[test]
    fn the_deepest_forwarded_module_names_the_successor() {
        let m = [
            forwarding("IPython.html", "notebook"),
            forwarding("IPython.html.widgets", "ipywidgets"),
        ];
        let (found, new) = mirror_of(&m, &p("IPython.html.widgets.interact")).unwrap();
        assert_eq!(found.mirror, p("ipywidgets"));
        assert_eq!(new, p("ipywidgets.interact"));
        let (_, new) = mirror_of(&m, &p("IPython.html.notebookapp.main")).unwrap();
        assert_eq!(new, p("notebook.notebookapp.main"));
        // A name beside the module, or the module itself, is not under it.
        assert!(mirror_of(&m, &p("IPython.htmlx.f")).is_none());
        assert!(mirror_of(&m, &p("IPython.display.HTML")).is_none());
    }
}
