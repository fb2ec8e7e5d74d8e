//! What a failed run teaches the next resolution. An environment failure becomes evidence the
//! static reading lacked or the bank got wrong: a module nothing installed provides is an
//! import to resolve; an API the installed release lacks is API evidence, a keyword it refuses
//! is keyword evidence, and that release of the distribution that provides it is ruled out.
//! A failure the bank could not place (class unknown) teaches the same, so that a round may
//! try it. Other classes teach nothing: the run stops there.

use pep508_rs::pep440_rs::Version;
use serde::Serialize;

use crate::bank::store::FailedStep;
use crate::names::{ApiPath, DistName, ModulePath};
use crate::notebook::failure::{Cause, Failure, InstallReason};
use crate::notebook::{
    ApiUse, Import, ImportVia, InstallRequirement, Installer, Lacked, Location, Origin, Refusal,
    ThirdPartyImport, Usage, UseKind,
};
use crate::resolve::infer::Inference;

/// One thing learned from a failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Lesson {
    /// The notebook needs `api`; the release installed (`lacked_by`, when the environment's
    /// pins name it) lacked it.
    Api {
        api: ApiPath,
        cell: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        lacked_by: Option<(DistName, Version)>,
    },
    /// The notebook passes `keyword` to `api`; the release installed (`refused_by`, when
    /// the environment's pins name it) refused it.
    Keyword {
        api: ApiPath,
        keyword: String,
        cell: u32,
        refused_by: Option<(DistName, Version)>,
    },
    /// The notebook imports `module`, which nothing installed provides.
    Module { module: ModulePath, cell: u32 },
    /// A library the notebook runs asked for `requirement` to be installed (`pyzmq>=2.1.11`):
    /// a distribution to resolve, as if the notebook installed it.
    Install { requirement: String, cell: u32 },
    /// A release of the environment depends on `dist` without declaring it (the installer
    /// pulled it in, as `by` when it said which): resolve it as the rest, as if the notebook
    /// installed it.
    Undeclared {
        dist: DistName,
        #[serde(skip_serializing_if = "Option::is_none")]
        by: Option<(DistName, Version)>,
    },
    /// The notebook imports `module`, which the run's Python no longer has in its standard
    /// library (`distutils` from 3.12): a Python in `range` is needed.
    Python {
        module: ModulePath,
        range: crate::python::PythonRange,
        cell: u32,
    },
    /// The run's Python cannot run the code (a Python 2 builtin on 3, a source file without
    /// an encoding line on 2): a Python in `range` is needed.
    Interpreter {
        detail: String,
        range: crate::python::PythonRange,
        cell: u32,
    },
    /// This release failed the notebook: resolve without it.
    Exclude { dist: DistName, version: Version },
    /// This release is broken on the run's Python, whatever the notebook (it failed to
    /// install, or to import beside the rest of the environment): recorded in the bank, so
    /// that later resolutions for that Python pass it over too.
    Broken {
        dist: DistName,
        version: Version,
        step: FailedStep,
    },
}

/// The lessons of `failure` for a run of `inference`'s environment on `python`.
pub fn lessons(
    failure: &Failure,
    inference: &Inference,
    python: crate::python::PythonVersion,
) -> Vec<Lesson> {
    if !failure.may_repair() {
        return Vec::new();
    }
    let cell = failure.cell.unwrap_or(0);
    let api = match &failure.cause {
        Cause::MissingModule { module, .. } => {
            let top = ModulePath::new(module.top_level()).ok();
            let pinned = top.as_ref().and_then(|t| provider(inference, t.as_str()));
            return match pinned {
                // A submodule the installed release lacks.
                Some(_) => with_exclusion(
                    inference,
                    Lesson::Api {
                        api: ApiPath::new(module.as_str()).expect("a module path is an API path"),
                        cell,
                        lacked_by: None,
                    },
                ),
                // A submodule of a distribution the environment holds only as another's
                // dependency (umap's `tqdm.auto`, beside the era's tqdm 4.23): the notebook
                // needs that distribution, with a release that has the submodule.
                None => match top {
                    Some(top) if &top != module => vec![
                        Lesson::Module { module: top, cell },
                        Lesson::Api {
                            api: ApiPath::new(module.as_str())
                                .expect("a module path is an API path"),
                            cell,
                            lacked_by: dependency(inference, module.top_level()),
                        },
                    ],
                    top => vec![Lesson::Module {
                        module: top.unwrap_or_else(|| module.clone()),
                        cell,
                    }],
                },
            };
        }
        // A module a later Python dropped from its standard library: an earlier Python.
        Cause::StdlibModule { module, .. } => {
            return crate::notebook::stdlib_range(module.as_str())
                .or_else(|| crate::notebook::stdlib_range(module.top_level()))
                .map(|range| Lesson::Python {
                    module: module.clone(),
                    range,
                    cell,
                })
                .into_iter()
                .collect()
        }
        // A name a later Python removed from its standard library (`inspect.getargspec`
        // under IPython 3 on 3.11): a Python that still has it. The library's newer releases
        // may not need it, but the release the evidence chose does.
        Cause::StdlibApi { api } => {
            return stdlib_api_lesson(api, python, cell).into_iter().collect()
        }
        // A program a distribution on PyPI ships a build of: that distribution, on the
        // Pythons it installs on.
        Cause::MissingProgram { program } => {
            return crate::notebook::failure::known_program(program)
                .and_then(|p| p.pypi.as_ref())
                .filter(|build| (python.major, python.minor) >= build.min_python)
                .map(|build| Lesson::Install {
                    requirement: build.dist.to_string(),
                    cell,
                })
                .into_iter()
                .collect()
        }
        Cause::WrongPython { detail, needs } => {
            return vec![Lesson::Interpreter {
                detail: detail.clone(),
                range: *needs,
                cell,
            }]
        }
        // What pip installs: a distribution to resolve, never a module to import (`pyzmq`
        // installs `zmq`).
        Cause::PackageAsked { requirement, .. } => {
            return vec![Lesson::Install {
                requirement: requirement.clone(),
                cell,
            }];
        }
        Cause::MissingApi { api, .. } => api.clone(),
        Cause::MissingMember { api: Some(api), .. } => api.clone(),
        Cause::BadKeyword {
            api: Some(api),
            keyword,
            ..
        } => {
            return with_exclusion(
                inference,
                Lesson::Keyword {
                    api: api.clone(),
                    keyword: keyword.clone(),
                    cell,
                    refused_by: provider(inference, api.top_level()),
                },
            )
        }
        Cause::BadArguments { api, .. } => api.clone(),
        // A call the installed release of a library takes otherwise than others do: this
        // notebook does without that release.
        Cause::ChangedApi { api, .. } => {
            return provider(inference, api.top_level())
                .map(|(dist, version)| Lesson::Exclude { dist, version })
                .into_iter()
                .collect()
        }
        // A binary built against other releases than those installed beside it: the
        // release that says so is broken here.
        Cause::IncompatibleBuild {
            library: Some(library),
            ..
        } => {
            return provider(inference, library.top_level())
                .map(|(dist, version)| Lesson::Broken {
                    dist,
                    version,
                    step: FailedStep::Import,
                })
                .into_iter()
                .collect()
        }
        // A library calling another in a way the installed release of it does not take:
        // this notebook does without the release that raised.
        // The library's import line names what another distribution's installed release
        // lacks: that distribution, with the API, is what to resolve (the library itself
        // stays).
        Cause::LibraryMismatch {
            wanted: Some(api), ..
        } => {
            let top = api.top_level();
            return wanted_lessons(
                api,
                cell,
                provider(inference, top).or_else(|| dependency(inference, top)),
            );
        }
        Cause::LibraryMismatch { library, .. } => {
            return provider(inference, library.top_level())
                .map(|(dist, version)| Lesson::Exclude { dist, version })
                .into_iter()
                .collect()
        }
        _ => return Vec::new(),
    };
    with_exclusion(
        inference,
        Lesson::Api {
            api,
            cell,
            lacked_by: None,
        },
    )
}

/// What a library asked of another distribution (`wanted`) and did not get, seen in `cell`:
/// that distribution is needed, with a release that has the API, and the release the run
/// had (`lacked_by`, when nbenv pinned it) is refuted. Without the refusal a resolution that
/// the bank cannot steer away from that release (tornado 6.1 for bokeh 0.11's
/// `tornado.concurrent.return_future`) asks for it again, and the search never reaches it.
pub fn wanted_lessons(
    wanted: &ApiPath,
    cell: u32,
    lacked_by: Option<(DistName, Version)>,
) -> Vec<Lesson> {
    let module = wanted
        .split_last()
        .and_then(|(m, _)| ModulePath::new(m).ok());
    module
        .map(|module| Lesson::Module { module, cell })
        .into_iter()
        .chain([Lesson::Api {
            api: wanted.clone(),
            cell,
            lacked_by: lacked_by.clone(),
        }])
        .chain(lacked_by.map(|(dist, version)| Lesson::Exclude { dist, version }))
        .collect()
}

/// The lesson, and the exclusion of the pinned release that provides what it names.
fn with_exclusion(inference: &Inference, lesson: Lesson) -> Vec<Lesson> {
    let (Lesson::Api { api, .. } | Lesson::Keyword { api, .. }) = &lesson else {
        return vec![lesson];
    };
    let top = api
        .as_str()
        .split('.')
        .next()
        .unwrap_or_default()
        .to_string();
    // The release that lacked it, also where the notebook does not import the distribution
    // itself (a library's dependency the installer took).
    let pinned = provider(inference, &top).or_else(|| dependency(inference, &top));
    let lesson = match lesson {
        Lesson::Api { api, cell, .. } => Lesson::Api {
            api,
            cell,
            lacked_by: pinned.clone(),
        },
        other => other,
    };
    let mut out = vec![lesson];
    if let Some((dist, version)) = pinned {
        out.push(Lesson::Exclude { dist, version });
    }
    out
}

/// The lessons of an environment that could not be built (`failure`, classified from the
/// installer's report `detail`) from `pins` (what was asked for): a release the installer
/// names as having no file that fits or as failing to build is broken on this Python; one it
/// chose itself, beside the pins, is also a dependency to resolve as the rest. The network,
/// a conflict or anything else blames no release.
pub fn install_lessons(
    failure: &Failure,
    detail: &str,
    pins: &[(DistName, Version)],
) -> Vec<Lesson> {
    let Cause::Install {
        reason: InstallReason::NoMatchingDistribution | InstallReason::BuildFailed,
        ..
    } = failure.cause
    else {
        return Vec::new();
    };
    let mut out: Vec<Lesson> = super::blamed(detail, pins)
        .into_iter()
        .map(|(dist, version)| Lesson::Broken {
            dist,
            version,
            step: FailedStep::Install,
        })
        .collect();
    for pulled in super::pulled_in(detail, pins) {
        if let Some(version) = pulled.version {
            out.push(Lesson::Broken {
                dist: pulled.dist.clone(),
                version,
                step: FailedStep::Install,
            });
        }
        out.push(Lesson::Undeclared {
            dist: pulled.dist,
            by: pulled.by,
        });
    }
    out
}

/// What a requirements file pins exactly (`name==version` lines), for [`install_lessons`].
pub fn pinned(requirements: &str) -> Vec<(DistName, Version)> {
    requirements
        .lines()
        .map(|l| l.split('#').next().unwrap_or_default().trim())
        .filter_map(|l| {
            let spec = l.split([' ', ';', '\\']).next()?;
            let (name, version) = spec.split_once("==")?;
            let name = name.split('[').next()?;
            Some((DistName::new(name).ok()?, version.trim().parse().ok()?))
        })
        .collect()
}

/// The distribution pinned for an import name, and its version.
fn provider(inference: &Inference, top: &str) -> Option<(DistName, Version)> {
    let decision = inference
        .evidence
        .imports
        .iter()
        .find(|d| d.import.as_str() == top)?;
    decision
        .providers()
        .iter()
        .find_map(|chosen| pinned_release(inference, &chosen.dist))
}

/// The release pinned for the distribution named as an import name (`tqdm` for `tqdm`),
/// which the environment holds as another's dependency: what the run saw lack a submodule.
fn dependency(inference: &Inference, top: &str) -> Option<(DistName, Version)> {
    pinned_release(inference, &DistName::new(top).ok()?)
}

/// The release the resolution pinned for `dist`.
fn pinned_release(inference: &Inference, dist: &DistName) -> Option<(DistName, Version)> {
    inference
        .solution
        .get(dist)
        .map(|pin| (pin.dist.clone(), pin.version.clone()))
}

/// Records `module` as imported by the run at `cell`, as the evidence reads an import (the
/// module is then a used path, which a provider must have), unless the notebook imports it
/// or a module under it already. Whether it was new.
fn imported_in_run(usage: &mut Usage, module: &str, cell: u32) -> bool {
    let Ok(module) = ModulePath::new(module) else {
        return false;
    };
    let top = module.top_level();
    if usage
        .third_party
        .iter()
        .any(|t| t.name == module || (module.as_str() == top && t.name.top_level() == top))
    {
        return false;
    }
    usage.imports.push(Import {
        module: module.clone(),
        name: None,
        alias: None,
        star: false,
        level: 0,
        optional: false,
        in_function: false,
        via: ImportVia::Run,
        origin: Origin::ThirdParty,
        at: Location::new(cell, 0),
    });
    usage.third_party.push(ThirdPartyImport {
        name: module,
        optional: false,
        count: 1,
        at: Location::new(cell, 0),
    });
    true
}

/// Adds the evidence lessons to the notebook's usage; returns whether anything was new.
pub fn teach(usage: &mut Usage, lessons: &[Lesson]) -> bool {
    let mut new = false;
    for lesson in lessons {
        match lesson {
            Lesson::Api {
                api,
                cell,
                lacked_by,
            } => {
                if let Some((dist, version)) = lacked_by {
                    let lacked = Lacked {
                        api: api.clone(),
                        dist: dist.clone(),
                        version: version.clone(),
                        cell: *cell,
                    };
                    if !usage.lacked.contains(&lacked) {
                        usage.lacked.push(lacked);
                        new = true;
                    }
                }
                // A library the notebook reaches only through another (keras under
                // fancyimpute) is imported in the run: without that, nothing ties the API to
                // a distribution, and the evidence would not reach the resolution.
                new |= imported_in_run(usage, api.top_level(), *cell);
                if usage.apis.iter().any(|a| &a.api == api) {
                    continue;
                }
                usage.apis.push(ApiUse {
                    api: api.clone(),
                    origin: Origin::ThirdParty,
                    count: 1,
                    kinds: vec![UseKind::Attribute],
                    keywords: Vec::new(),
                    locations: vec![Location::new(*cell, 0)],
                });
                new = true;
            }
            Lesson::Keyword {
                api,
                keyword,
                cell,
                refused_by,
            } => {
                if let Some((dist, version)) = refused_by {
                    let refusal = Refusal {
                        api: api.clone(),
                        keyword: keyword.clone(),
                        dist: dist.clone(),
                        version: version.clone(),
                        cell: *cell,
                    };
                    if !usage.refusals.contains(&refusal) {
                        usage.refusals.push(refusal);
                        new = true;
                    }
                }
                match usage.apis.iter_mut().find(|a| &a.api == api) {
                    Some(a) if a.keywords.contains(keyword) => continue,
                    Some(a) => a.keywords.push(keyword.clone()),
                    None => usage.apis.push(ApiUse {
                        api: api.clone(),
                        origin: Origin::ThirdParty,
                        count: 1,
                        kinds: vec![UseKind::Call],
                        keywords: vec![keyword.clone()],
                        locations: vec![Location::new(*cell, 0)],
                    }),
                }
                new = true;
            }
            Lesson::Install { requirement, cell } => {
                let Some((parsed, name)) = crate::notebook::pip_requirement(requirement) else {
                    continue;
                };
                if usage.requirements.iter().any(|r| r.name == name) {
                    continue;
                }
                usage.requirements.push(InstallRequirement {
                    requirement: parsed,
                    name,
                    installer: Installer::Library,
                    command: requirement.clone(),
                    optional: false,
                    at: Location::new(*cell, 0),
                });
                new = true;
            }
            Lesson::Undeclared { dist, by } => {
                if usage.requirements.iter().any(|r| &r.name == dist) {
                    continue;
                }
                let Ok(requirement) = crate::names::parse_requirement(dist.as_str()) else {
                    continue;
                };
                usage.requirements.push(InstallRequirement {
                    requirement,
                    name: dist.clone(),
                    installer: Installer::Undeclared,
                    command: by
                        .as_ref()
                        .map(|(d, v)| format!("{d} {v}"))
                        .unwrap_or_default(),
                    optional: false,
                    at: Location::new(0, 0),
                });
                new = true;
            }
            Lesson::Module { module, cell } => {
                new |= imported_in_run(usage, module.as_str(), *cell);
            }
            Lesson::Python {
                module,
                range,
                cell,
            } => {
                new |= usage.python.require(
                    crate::notebook::HintReason::StdlibModule,
                    module.top_level(),
                    *range,
                    Some(Location::new(*cell, 0)),
                );
            }
            Lesson::Interpreter {
                detail,
                range,
                cell,
            } => {
                new |= usage.python.require(
                    crate::notebook::HintReason::Run,
                    detail,
                    *range,
                    Some(Location::new(*cell, 0)),
                );
            }
            Lesson::Exclude { .. } | Lesson::Broken { .. } => {}
        }
    }
    new
}

/// A Python that has `api` of the standard library, when the run's Python is past its removal.
fn stdlib_api_lesson(
    api: &ApiPath,
    python: crate::python::PythonVersion,
    cell: u32,
) -> Option<Lesson> {
    let range = crate::notebook::stdlib_api_range(api.as_str())?;
    (!range.contains(python)).then(|| Lesson::Interpreter {
        detail: format!("`{api}`, which a later Python removed"),
        range,
        cell,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notebook::failure::FailureClass;
    use crate::notebook::{analyze, AnalyzeOptions};

    /// uv's report when the installer's own pick for seaborn 0.7.0's undeclared pandas did
    /// not build on Python 3.6.
    const UV: &str = "error: Failed to build `pandas==0.12.0`\n  cause: The build backend returned an error\nhint: `pandas` (v0.12.0) was included because `seaborn` (v0.7.0) depends on `pandas`\n";

    fn build_failed() -> Failure {
        Failure {
            class: FailureClass::Install,
            cause: Cause::Install {
                what: "the requirements".into(),
                reason: InstallReason::BuildFailed,
            },
            cell: None,
            frame: None,
        }
    }

    fn name(s: &str) -> DistName {
        DistName::new(s).unwrap()
    }

    /// The release the installer chose is broken on this Python, and its distribution is one
    /// to resolve as the rest; the notebook's evidence takes it in once.
    #[test]
    fn a_dependency_the_installer_chose_is_resolved_next() {
        let pins = vec![(name("seaborn"), "0.7.0".parse().unwrap())];
        let lessons = install_lessons(&build_failed(), UV, &pins);
        assert_eq!(
            lessons,
            vec![
                Lesson::Broken {
                    dist: name("pandas"),
                    version: "0.12.0".parse().unwrap(),
                    step: FailedStep::Install,
                },
                Lesson::Undeclared {
                    dist: name("pandas"),
                    by: Some((name("seaborn"), "0.7.0".parse().unwrap())),
                },
            ]
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nb.ipynb");
        std::fs::write(
            &path,
            r#"{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": "import seaborn"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 2}"#,
        )
        .unwrap();
        let nb = crate::notebook::read(&path).unwrap();
        let mut usage = analyze(&nb, &AnalyzeOptions::default());
        assert!(teach(&mut usage, &lessons));
        let added: Vec<_> = usage
            .requirements
            .iter()
            .map(|r| (r.name.as_str(), r.installer, r.command.as_str()))
            .collect();
        assert_eq!(added, [("pandas", Installer::Undeclared, "seaborn 0.7.0")]);
        assert!(!teach(&mut usage, &lessons), "taken in once");
    }

    /// An API of a library the notebook reaches only through another (fancyimpute imports
    /// keras) that the installed release lacked: the library counts as imported in the run,
    /// so that the API's evidence reaches its distribution's resolution (it used to be tied
    /// to no import, and the rounds walked keras 2.4.0 to 2.4.3, each lacking
    /// `keras.regularizers.l1l2`).
    #[test]
    fn an_api_of_a_library_imported_by_another_ties_to_that_library() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nb.ipynb");
        std::fs::write(
            &path,
            r#"{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": "import fancyimpute\nimport tensorflow.keras"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 2}"#,
        )
        .unwrap();
        let nb = crate::notebook::read(&path).unwrap();
        let mut usage = analyze(&nb, &AnalyzeOptions::default());
        let lesson = |api: &str| Lesson::Api {
            api: ApiPath::new(api).unwrap(),
            cell: 1,
            lacked_by: Some((name("keras"), "2.4.1".parse().unwrap())),
        };
        assert!(teach(&mut usage, &[lesson("keras.regularizers.l1l2")]));
        let keras: Vec<_> = usage
            .imports
            .iter()
            .filter(|i| i.module.as_str() == "keras")
            .map(|i| i.via)
            .collect();
        assert_eq!(keras, [ImportVia::Run]);
        assert!(usage.lacked.iter().any(|l| l.dist == name("keras")));
        assert!(
            !teach(&mut usage, &[lesson("keras.regularizers.l1l2")]),
            "taken in once"
        );
        // A library the notebook imports itself (through a submodule too) gains no import.
        let before = usage.imports.len();
        assert!(teach(&mut usage, &[lesson("tensorflow.compat.v1")]));
        assert_eq!(usage.imports.len(), before);
    }

    /// A run that showed `distutils` gone from the standard library makes the import a need
    /// of the code: the next resolution takes a Python up to 3.11, where the import alone (a
    /// backport exists) only weakly suggested one.
    #[test]
    fn a_module_gone_from_the_standard_library_binds_the_python() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nb.ipynb");
        std::fs::write(
            &path,
            r#"{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": "import distutils"}], "metadata": {"language_info": {"name": "python", "version": "3.13.1"}}, "nbformat": 4, "nbformat_minor": 2}"#,
        )
        .unwrap();
        let nb = crate::notebook::read(&path).unwrap();
        let mut usage = analyze(&nb, &AnalyzeOptions::default());
        assert_eq!(usage.python.range, crate::python::PythonRange::default());
        let range = crate::notebook::stdlib_range("distutils").unwrap();
        let lesson = Lesson::Python {
            module: "distutils".parse().unwrap(),
            range,
            cell: 1,
        };
        assert!(teach(&mut usage, std::slice::from_ref(&lesson)));
        assert_eq!(
            usage.python.range,
            crate::python::PythonRange::at_most(crate::python::PythonVersion::new(3, 11))
        );
        assert!(!teach(&mut usage, &[lesson]), "taken in once");
    }

    /// IPython 3's widgets call `inspect.getargspec`, which Python 3.11 removed: a Python
    /// before it. On a Python that has it, or for a name no Python removed, nothing.
    #[test]
    fn a_standard_library_name_a_later_python_removed_asks_for_an_earlier_python() {
        use crate::python::{PythonRange, PythonVersion};
        let api = ApiPath::new("inspect.getargspec").unwrap();
        assert_eq!(
            stdlib_api_lesson(&api, PythonVersion::new(3, 11), 7),
            Some(Lesson::Interpreter {
                detail: "`inspect.getargspec`, which a later Python removed".into(),
                range: PythonRange::at_most(PythonVersion::new(3, 10)),
                cell: 7,
            })
        );
        assert_eq!(stdlib_api_lesson(&api, PythonVersion::new(3, 10), 7), None);
        let never = ApiPath::new("inspect.getargspecs").unwrap();
        assert_eq!(
            stdlib_api_lesson(&never, PythonVersion::new(3, 13), 7),
            None
        );
    }
}
