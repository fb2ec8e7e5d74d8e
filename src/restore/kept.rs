//! Which requirements a restoration writes when the notebook did not run to its end. Never a
//! release a run refuted: when the rounds ran out with the search still moving, the
//! environment it would have tried next (resolved, not run), which keeps out everything the
//! runs refuted; otherwise the environment that ran the most cells, with any pin a run
//! refuted left as a comment. The header says which, and names the option that goes further.

use serde::Serialize;

use super::round::Round;
use super::rounds::Stop;
use super::search::Search;

/// Why these requirements were kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum KeptWhy {
    /// The last round ran the notebook to its end.
    Ran,
    /// The round that ran the most cells (`round`, from 1).
    MostCells { round: u32, cells: u32, of: u32 },
    /// The rounds ran out while the search still moved: the resolution the next round would
    /// have run, not run.
    Untried { after: u32 },
    /// No round's environment was built: the last round's requirements.
    NotBuilt,
}

/// The requirements a restoration writes, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Kept {
    #[serde(skip)]
    pub requirements: String,
    pub why: KeptWhy,
    /// Pins of the kept round that a run refuted, left as comments.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refuted_pins: Vec<String>,
}

impl Kept {
    /// The round whose environment these requirements are (from 1), when one ran them.
    pub fn round(&self, rounds: usize) -> Option<usize> {
        match &self.why {
            KeptWhy::Ran => Some(rounds),
            KeptWhy::MostCells { round, .. } => Some(*round as usize),
            KeptWhy::Untried { .. } | KeptWhy::NotBuilt => None,
        }
    }
}

/// The round that ran the most cells, the later on a tie (it knows more); `None` when no
/// environment was built.
pub fn most_cells(rounds: &[Round]) -> Option<(usize, u32, u32)> {
    rounds
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            r.executability
                .as_ref()
                .map(|e| (i, e.cells_before_first_error, e.code_cells))
        })
        .max_by_key(|(i, cells, _)| (*cells, *i))
}

/// What the restoration keeps: the last round when it ran; the `untried` resolution (the
/// requirements the next round would have run) when the rounds ran out with the search
/// still moving; else the round that ran the most cells, refuted pins commented out.
/// `label` numbers a cell as every message does (`cell 6 (code cell 3 of 9)`).
pub fn keep(
    rounds: &[Round],
    stopped: Stop,
    search: &Search,
    untried: Option<String>,
    max_rounds: usize,
    label: &dyn Fn(u32) -> String,
) -> Kept {
    let last = rounds
        .last()
        .map(|r| r.requirements.clone())
        .unwrap_or_default();
    if stopped == Stop::Ran {
        let moved = rounds
            .last()
            .map(|r| r.order.clone())
            .filter(|o| !o.is_page());
        return Kept {
            requirements: match moved {
                Some(order) => with_note(&last, &crate::output::moved_cells_line(&order)),
                None => last,
            },
            why: KeptWhy::Ran,
            refuted_pins: Vec::new(),
        };
    }
    if let Some(requirements) = untried {
        let after = rounds.len() as u32;
        let note = format!(
            "# Not run: the rounds ran out (--max-rounds {max_rounds}) before this environment \
             was tried; it keeps out every release the runs refuted{}. --max-rounds {} goes further.",
            refuted_list(search),
            max_rounds + 2
        );
        return Kept {
            requirements: with_note(&requirements, &note),
            why: KeptWhy::Untried { after },
            refuted_pins: Vec::new(),
        };
    }
    let Some((i, cells, of)) = most_cells(rounds) else {
        return Kept {
            requirements: last,
            why: KeptWhy::NotBuilt,
            refuted_pins: Vec::new(),
        };
    };
    let round = &rounds[i];
    let mut refuted_pins = Vec::new();
    let mut body = String::new();
    for line in round.requirements.lines() {
        let pinned = crate::verify::pinned(line);
        match pinned.first() {
            Some((dist, version)) if search.is_refuted(dist, version) => {
                refuted_pins.push(format!("{dist}=={version}"));
                body.push_str(&format!(
                    "# {line}  (refuted: a run failed with it; no release of {dist} was left to try)\n"
                ));
            }
            _ => {
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    let why = match &round.first_failure {
        Some(f) => match f.cell {
            Some(c) => format!("; it stopped at {}: {f}", label(c)),
            None => format!("; it stopped at {f}"),
        },
        None => String::new(),
    };
    let further = match stopped {
        Stop::MaxRounds => format!(" --max-rounds {} goes further.", max_rounds + 2),
        Stop::TimeLimit => " --timeout goes further.".to_string(),
        _ => String::new(),
    };
    let note = format!(
        "# Not restored: the environment of round {} of {}, which ran the most cells ({cells} of {of}){why}.{further}",
        i + 1,
        rounds.len()
    );
    Kept {
        requirements: with_note(&body, &note),
        why: KeptWhy::MostCells {
            round: i as u32 + 1,
            cells,
            of,
        },
        refuted_pins,
    }
}

/// ` (pandas 0.24.1, 0.21.0)`, or nothing.
fn refuted_list(search: &Search) -> String {
    let refuted = search.refuted();
    if refuted.is_empty() {
        return String::new();
    }
    let named: Vec<String> = refuted.iter().map(ToString::to_string).collect();
    format!(" ({})", named.join(", "))
}

/// `requirements` with `note` as its second header line (after nbenv's own first line).
fn with_note(requirements: &str, note: &str) -> String {
    let mut lines = requirements.lines();
    let mut out = String::new();
    if let Some(first) = lines.next() {
        out.push_str(first);
        out.push('\n');
    }
    out.push_str(note);
    out.push('\n');
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bank::store::Refutation;
    use crate::names::DistName;
    use crate::python::PythonVersion;
    use crate::restore::Stages;
    use crate::verify::Executability;

    fn round(requirements: &str, cells: Option<u32>) -> Round {
        Round {
            python: PythonVersion::new(3, 6),
            requirements: requirements.to_string(),
            executability: cells.map(|c| Executability {
                cells_before_first_error: c,
                code_cells: 10,
                first_error_cell: (c < 10).then_some(c + 1),
            }),
            first_failure: None,
            ename: None,
            reproduced: None,
            install_error: None,
            learned: Vec::new(),
            runner: None,
            kernel_runtime: Vec::new(),
            order: crate::notebook::CellOrder::default(),
            seconds: Stages::default(),
            inference: None,
        }
    }

    fn refuted(dist: &str, version: &str) -> Search {
        Search::resumed(&[Refutation {
            dist: DistName::new(dist).unwrap(),
            version: version.parse().unwrap(),
            cell: 5,
            bound: None,
        }])
    }

    const HEAD: &str = "# Generated by nbenv\n# Python 3.6\n";

    fn plain(cell: u32) -> String {
        format!("cell {cell}")
    }

    /// The walk saved pandas 0.20.2, which it had just seen fail: a refuted pin is never
    /// written as a requirement.
    #[test]
    fn a_refuted_pin_is_never_written() {
        let rounds = [
            round(&format!("{HEAD}pandas==0.24.1\nnumpy==1.19.5\n"), Some(4)),
            round(&format!("{HEAD}pandas==0.20.2\nnumpy==1.19.5\n"), Some(4)),
        ];
        let search = refuted("pandas", "0.20.2");
        let kept = keep(&rounds, Stop::NothingLearned, &search, None, 4, &plain);
        assert_eq!(
            kept.why,
            KeptWhy::MostCells {
                round: 2,
                cells: 4,
                of: 10
            }
        );
        assert!(crate::verify::pinned(&kept.requirements)
            .iter()
            .all(|(d, v)| !search.is_refuted(d, v)));
        assert!(
            kept.requirements.contains("# pandas==0.20.2"),
            "{}",
            kept.requirements
        );
        assert!(kept.requirements.contains("numpy==1.19.5\n"));
        assert_eq!(kept.refuted_pins, ["pandas==0.20.2"]);
    }

    /// Out of rounds with the search still moving: the next resolution, said untried.
    #[test]
    fn out_of_rounds_keeps_what_the_search_would_try_next() {
        let rounds = [round(&format!("{HEAD}pandas==0.24.1\n"), Some(4))];
        let search = refuted("pandas", "0.24.1");
        let next = format!("{HEAD}pandas==0.19.2\n");
        let kept = keep(&rounds, Stop::MaxRounds, &search, Some(next), 1, &plain);
        assert_eq!(kept.why, KeptWhy::Untried { after: 1 });
        assert!(kept.requirements.contains("pandas==0.19.2\n"));
        assert!(kept.requirements.contains("--max-rounds 3 goes further"));
        assert!(kept
            .requirements
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("# Not run:"));
    }

    /// The round that ran the most cells, not the last one.
    #[test]
    fn the_round_that_ran_the_most_cells_is_kept() {
        let rounds = [
            round(&format!("{HEAD}a==2.0\n"), Some(7)),
            round(&format!("{HEAD}a==1.0\n"), Some(3)),
        ];
        let kept = keep(
            &rounds,
            Stop::NothingLearned,
            &Search::default(),
            None,
            4,
            &plain,
        );
        assert_eq!(
            kept.why,
            KeptWhy::MostCells {
                round: 1,
                cells: 7,
                of: 10
            }
        );
        assert!(kept.requirements.contains("a==2.0\n"));
        let ran = keep(&rounds, Stop::Ran, &Search::default(), None, 4, &plain);
        assert!(ran.requirements.contains("a==1.0\n"));
        assert_eq!(ran.round(2), Some(2));
    }
}
