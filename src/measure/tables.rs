//! The report laid out as tables of text cells: what the text and Markdown renderers print,
//! and what an HTML page can show beside its charts (which read the typed [`Report`]).

use super::report::{Counted, ErrorCount, Report};
use crate::notebook::failure::FailureClass;

/// One table of the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// A stable identifier (`outcomes`, `errors-before`), for anchors and tests.
    pub id: &'static str,
    pub title: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Columns holding numbers (aligned right).
    pub numeric: Vec<usize>,
    /// Said instead of the rows when there are none: why nothing was measured.
    pub empty: &'static str,
}

impl Table {
    fn new(id: &'static str, title: impl Into<String>, header: &[&str]) -> Self {
        Self {
            id,
            title: title.into(),
            header: header.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            numeric: Vec::new(),
            empty: "none",
        }
    }

    fn numeric(mut self, columns: &[usize]) -> Self {
        self.numeric = columns.to_vec();
        self
    }

    fn empty(mut self, why: &'static str) -> Self {
        self.empty = why;
        self
    }

    fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }
}

/// `12.5%` of `total`; `-` when there is no total.
pub fn share(n: usize, total: usize) -> String {
    if total == 0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * n as f64 / total as f64)
    }
}

fn class_name(class: Option<FailureClass>) -> String {
    class.map_or_else(|| "-".to_string(), |c| c.as_str().to_string())
}

impl Report {
    /// Every table, in the order a reader wants them.
    pub fn tables(&self) -> Vec<Table> {
        let mut tables = vec![self.status_table(), self.outcome_table()];
        tables.extend(self.modes_table());
        tables.extend([
            self.triage_table(),
            self.executability_table(),
            errors_table(
                "errors-stored",
                "Error types stored in the notebooks' outputs",
                &self.error_types.stored,
                "no notebook stored an error",
            ),
            errors_table(
                "errors-before",
                "Top error types before restore (first run's first error)",
                &self.error_types.before,
                "no record of a run (stages verify and restore)",
            ),
            errors_table(
                "errors-after",
                "Top error types after restore (last round's first error)",
                &self.error_types.after,
                "no record of a restore, or every restored notebook ran to the end",
            ),
            self.distributions_table(),
            self.pythons_table(),
            self.release_table(),
        ]);
        tables
    }

    /// Stage restore's notebooks by the mode kept (`--prefer`), when the records say it.
    fn modes_table(&self) -> Option<Table> {
        let m = self.modes.as_ref()?;
        let mut t = Table::new(
            "modes",
            "Restored modernized or in the notebook's era (stage restore)",
            &["mode", "notebooks", "ran to the end", "share ran"],
        )
        .numeric(&[1, 2, 3])
        .empty("no record of stage restore");
        for (label, c) in [
            ("modern (the modernized notebook kept)", m.modern),
            ("era after a modern try", m.era_after_modern),
            ("era only", m.era_only),
        ] {
            if c.notebooks > 0 {
                t.row(vec![
                    label.to_string(),
                    c.notebooks.to_string(),
                    c.ran.to_string(),
                    share(c.ran, c.notebooks),
                ]);
            }
        }
        Some(t)
    }

    fn status_table(&self) -> Table {
        let stages: Vec<String> = self
            .stages
            .iter()
            .map(|s| format!("{} {}", s.notebooks, s.value.as_str()))
            .collect();
        let mut t = Table::new(
            "statuses",
            format!(
                "Notebooks: {} ({} records read, {} replaced by a later record of the same notebook; stages: {})",
                self.notebooks,
                self.records_read,
                self.records_replaced,
                if stages.is_empty() { "none".to_string() } else { stages.join(", ") }
            ),
            &["status", "notebooks", "share"],
        )
        .numeric(&[1, 2])
        .empty("no records");
        for Counted { value, notebooks } in &self.statuses {
            t.row(vec![
                value.as_str().to_string(),
                notebooks.to_string(),
                share(*notebooks, self.notebooks),
            ]);
        }
        t
    }

    fn outcome_table(&self) -> Table {
        let o = &self.outcomes;
        let mut t = Table::new(
            "outcomes",
            format!(
                "Executable, restorable, pathological ({} notebooks run)",
                o.judged
            ),
            &["outcome", "notebooks", "share"],
        )
        .numeric(&[1, 2])
        .empty("no notebook was run (stages usage and infer do not run notebooks)");
        if o.judged == 0 {
            return t;
        }
        t.row(vec![
            "executable: ran to the end as it was".into(),
            o.executable.to_string(),
            share(o.executable, o.judged),
        ]);
        t.row(vec![
            "restorable: stopped at the environment or its data".into(),
            o.restorable.to_string(),
            share(o.restorable, o.judged),
        ]);
        for c in &o.restorable_by {
            t.row(vec![
                format!("  by {}", c.value),
                c.notebooks.to_string(),
                share(c.notebooks, o.judged),
            ]);
        }
        t.row(vec![
            "  ran to the end after repair".into(),
            o.restored.to_string(),
            share(o.restored, o.judged),
        ]);
        t.row(vec![
            "pathological: stopped at its own code, which no environment repairs".into(),
            o.pathological.to_string(),
            share(o.pathological, o.judged),
        ]);
        if o.unknown > 0 {
            t.row(vec![
                "unknown (environment or code: the bank could not tell)".into(),
                o.unknown.to_string(),
                share(o.unknown, o.judged),
            ]);
        }
        t
    }

    fn triage_table(&self) -> Table {
        let s = &self.triage;
        let mut t = Table::new(
            "triage",
            format!("Pre-flight triage ({} notebooks read)", s.triaged),
            &["finding", "notebooks", "share"],
        )
        .numeric(&[1, 2])
        .empty("no notebook could be read");
        if s.triaged == 0 {
            return t;
        }
        let mut add = |what: String, n: usize, of: usize| {
            t.row(vec![what, n.to_string(), share(n, of)]);
        };
        add("does not parse".into(), s.unparseable, s.triaged);
        add("Python 2".into(), s.python2, s.triaged);
        if s.resolved > 0 {
            add(
                format!(
                    "an import no distribution provides (of {} resolved)",
                    s.resolved
                ),
                s.unresolved_imports,
                s.resolved,
            );
        }
        add(
            "a relative import with no module".into(),
            s.missing_local_modules,
            s.triaged,
        );
        add("reads files by name".into(), s.reading_files, s.triaged);
        add(
            "reads a file that is not there".into(),
            s.missing_data_files,
            s.triaged,
        );
        add("uses the network".into(), s.network, s.triaged);
        add("stored an error".into(), s.stored_errors, s.triaged);
        for c in &s.stored_error_classes {
            add(format!("  of class {}", c.value), c.notebooks, s.triaged);
        }
        add(
            "none of these stands in the way".into(),
            s.no_static_blocker,
            s.triaged,
        );
        t
    }

    fn executability_table(&self) -> Table {
        let before: usize = self.executability.iter().map(|b| b.before).sum();
        let after: usize = self.executability.iter().map(|b| b.after).sum();
        let mut t = Table::new(
            "executability",
            "Executability: cells run before the first error, of the code cells",
            &["executability", "before", "after"],
        )
        .numeric(&[1, 2])
        .empty("no record of a run (stages verify and restore)");
        if before + after == 0 {
            return t;
        }
        for b in &self.executability {
            t.row(vec![
                b.label.clone(),
                b.before.to_string(),
                b.after.to_string(),
            ]);
        }
        t
    }

    fn distributions_table(&self) -> Table {
        let resolved: usize = self.pythons.iter().map(|p| p.notebooks).sum();
        let mut t = Table::new(
            "distributions",
            format!("Most-needed distributions ({resolved} notebooks resolved)"),
            &["distribution", "notebooks", "share", "versions (notebooks)"],
        )
        .numeric(&[1, 2])
        .empty("no environment was resolved (stage usage resolves nothing)");
        for d in &self.distributions {
            let versions: Vec<String> = d
                .versions
                .iter()
                .map(|v| format!("{} ({})", v.value, v.notebooks))
                .collect();
            t.row(vec![
                d.dist.to_string(),
                d.notebooks.to_string(),
                share(d.notebooks, resolved),
                versions.join(", "),
            ]);
        }
        t
    }

    fn pythons_table(&self) -> Table {
        let resolved: usize = self.pythons.iter().map(|p| p.notebooks).sum();
        let mut t = Table::new(
            "pythons",
            "Python resolved for",
            &["python", "notebooks", "share"],
        )
        .numeric(&[1, 2])
        .empty("no environment was resolved");
        for p in &self.pythons {
            t.row(vec![
                p.value.clone(),
                p.notebooks.to_string(),
                share(p.notebooks, resolved),
            ]);
        }
        t
    }

    fn release_table(&self) -> Table {
        let mut t = Table::new(
            "release-failures",
            "Releases that failed to install or import most often",
            &[
                "release",
                "python",
                "tried",
                "install failed",
                "import failed",
                "rate",
            ],
        )
        .numeric(&[2, 3, 4, 5])
        .empty("no release failed, or no environment was built (stages verify and restore)");
        for r in &self.release_failures {
            t.row(vec![
                format!("{} {}", r.dist, r.version),
                r.python.clone(),
                r.tried.to_string(),
                r.install_failures.to_string(),
                r.import_failures.to_string(),
                format!("{:.1}%", 100.0 * r.rate),
            ]);
        }
        t
    }
}

fn errors_table(
    id: &'static str,
    title: &str,
    counts: &[ErrorCount],
    empty: &'static str,
) -> Table {
    let mut t = Table::new(id, title, &["error type", "class", "notebooks"])
        .numeric(&[2])
        .empty(empty);
    for c in counts {
        t.row(vec![
            c.name.clone(),
            class_name(c.class),
            c.notebooks.to_string(),
        ]);
    }
    t
}
