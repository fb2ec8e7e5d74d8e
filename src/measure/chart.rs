//! The report's charts as SVG, written here: a chart is a few dozen elements, so a chart
//! library would bring more than it saves. Pure functions of a [`Report`]: the same report
//! gives the same bytes, so charts can be committed and diffed. Each bar carries its count
//! (`data-count`, a label above it, a tooltip) so readers and tests need not measure pixels.

use std::fmt::Write as _;

use super::escape::escape;
use super::report::Report;

/// Colours of the two sides of a restore, and of the verdicts (ColorBrewer Dark2: tells apart
/// under the common colour blindnesses).
pub const BEFORE: &str = "#d95f02";
pub const AFTER: &str = "#1b9e77";
const EXECUTABLE: &str = "#1b9e77";
const RESTORABLE: &str = "#7570b3";
const PATHOLOGICAL: &str = "#e7298a";
const UNKNOWN: &str = "#666666";

/// One chart of the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chart {
    /// A stable identifier: the file's stem (`error-classes.svg`) and the HTML anchor.
    pub id: &'static str,
    pub title: String,
    /// The `<svg>` element alone, to inline in an HTML page.
    pub svg: String,
}

impl Chart {
    /// The chart as a file of its own.
    pub fn standalone(&self) -> String {
        format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}", self.svg)
    }

    pub fn file_name(&self) -> String {
        format!("{}.svg", self.id)
    }
}

/// Every chart, in the order a reader wants them.
pub fn charts(report: &Report) -> Vec<Chart> {
    vec![
        error_classes(report),
        executability(report),
        verdicts(report),
    ]
}

/// Notebooks by the class of the error they stop at, before restore and after, beside those
/// that ran to the end: grouped bars.
pub fn error_classes(report: &Report) -> Chart {
    let c = &report.error_classes;
    let mut groups: Vec<Group> = c
        .by_class
        .iter()
        .map(|k| Group::new(k.class.as_str(), vec![k.before, k.after]))
        .collect();
    groups.push(Group::new(
        "ran to the end",
        vec![c.ran_to_end_before, c.ran_to_end_after],
    ));
    Bars {
        id: "error-classes",
        title: "Error classes before and after restore".into(),
        subtitle: "Notebooks by the class of the error they stop at: the first run's first error, and the last repair round's".into(),
        x_label: "error class",
        y_label: "notebooks",
        series: vec![
            Series::new(format!("before restore ({} run)", c.runs_before), BEFORE),
            Series::new(format!("after restore ({} restored)", c.runs_after), AFTER),
        ],
        groups,
        empty: "no record of a run (stages verify and restore)",
    }
    .render()
}

/// A histogram of executability (the share of code cells run before the first error): `0%`,
/// ten deciles, `100%`; before restore and after.
pub fn executability(report: &Report) -> Chart {
    let before: usize = report.executability.iter().map(|b| b.before).sum();
    let after: usize = report.executability.iter().map(|b| b.after).sum();
    Bars {
        id: "executability",
        title: "Executability before and after restore".into(),
        subtitle: "Notebooks by the share of their code cells run before the first error".into(),
        x_label: "cells run before the first error, of the code cells",
        y_label: "notebooks",
        series: vec![
            Series::new(format!("before restore ({before})"), BEFORE),
            Series::new(format!("after restore ({after})"), AFTER),
        ],
        groups: report
            .executability
            .iter()
            .map(|b| Group::new(&b.label, vec![b.before, b.after]))
            .collect(),
        empty: "no record of a run (stages verify and restore)",
    }
    .render()
}

/// Executable, restorable by the class of the error, pathological.
pub fn verdicts(report: &Report) -> Chart {
    let o = &report.outcomes;
    let mut groups = vec![Group::new("executable", vec![o.executable]).colour(EXECUTABLE)];
    for c in &o.restorable_by {
        groups.push(
            Group::new(&format!("restorable: {}", c.value), vec![c.notebooks]).colour(RESTORABLE),
        );
    }
    groups.push(Group::new("pathological", vec![o.pathological]).colour(PATHOLOGICAL));
    if o.unknown > 0 {
        groups.push(Group::new("unknown", vec![o.unknown]).colour(UNKNOWN));
    }
    Bars {
        id: "verdicts",
        title: "Verdicts".into(),
        subtitle: format!(
            "Executable (ran as it was), restorable (stopped at the environment or its data, by \
             class), pathological (stopped at its own code): {} notebooks run",
            o.judged
        ),
        x_label: "verdict",
        y_label: "notebooks",
        series: vec![Series::new("notebooks".into(), RESTORABLE)],
        groups,
        empty: "no notebook was run (stages usage and infer do not run notebooks)",
    }
    .render()
}

struct Series {
    name: String,
    colour: &'static str,
}

impl Series {
    fn new(name: String, colour: &'static str) -> Self {
        Self { name, colour }
    }
}

/// One place on the x axis: a bar per series.
struct Group {
    label: String,
    counts: Vec<usize>,
    /// Overrides the series' colour (single-series charts colour bars by meaning).
    colour: Option<&'static str>,
}

impl Group {
    fn new(label: &str, counts: Vec<usize>) -> Self {
        Self {
            label: label.to_string(),
            counts,
            colour: None,
        }
    }

    fn colour(mut self, colour: &'static str) -> Self {
        self.colour = Some(colour);
        self
    }
}

/// A bar chart: groups along x, one bar per series in each.
struct Bars {
    id: &'static str,
    title: String,
    subtitle: String,
    x_label: &'static str,
    y_label: &'static str,
    series: Vec<Series>,
    groups: Vec<Group>,
    /// Said under "no data" when every count is zero.
    empty: &'static str,
}

const WIDTH: f64 = 720.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 16.0;
/// Title, subtitle and legend above the plot.
const TOP: f64 = 76.0;
pub const PLOT_HEIGHT: f64 = 260.0;
const FONT: &str = "DejaVu Sans, Helvetica, Arial, sans-serif";
/// Labels lean by this many degrees when they do not fit side by side.
const LEAN: f64 = 40.0;

/// About how wide `s` is at `size` pixels: enough to lay out labels without a font.
fn text_width(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * size * 0.6
}

/// A coordinate to two decimals at most, the same on every machine.
fn n(x: f64) -> String {
    let r = (x * 100.0).round() / 100.0;
    if r == 0.0 {
        "0".into()
    } else {
        format!("{r}")
    }
}

/// The top of the y axis and the step between its ticks: 1, 2 or 5 times a power of ten, at
/// most five steps.
pub fn y_scale(max: usize) -> (usize, usize) {
    if max == 0 {
        return (1, 1);
    }
    let mut power = 1usize;
    loop {
        for m in [1, 2, 5] {
            let step = m * power;
            if max.div_ceil(step) <= 5 {
                return (max.div_ceil(step) * step, step);
            }
        }
        power *= 10;
    }
}

impl Bars {
    fn render(&self) -> Chart {
        let max = self
            .groups
            .iter()
            .flat_map(|g| g.counts.iter().copied())
            .max()
            .unwrap_or(0);
        let plot_width = WIDTH - LEFT - RIGHT;
        let group_width = plot_width / self.groups.len().max(1) as f64;
        let widest = self
            .groups
            .iter()
            .map(|g| text_width(&g.label, 11.0))
            .fold(0.0, f64::max);
        let lean = max > 0 && widest > group_width - 6.0;
        let labels_height = if lean {
            widest * LEAN.to_radians().sin() + 24.0
        } else {
            24.0
        };
        let base = TOP + PLOT_HEIGHT;
        let height = (base + labels_height + 28.0).ceil();
        let id = self.id;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
             role=\"img\" aria-labelledby=\"{id}-title {id}-desc\" font-family=\"{FONT}\" font-size=\"11\" \
             class=\"chart\" id=\"{id}\">",
            w = n(WIDTH),
            h = n(height),
        );
        let _ = writeln!(
            s,
            "<title id=\"{id}-title\">{}</title>\n<desc id=\"{id}-desc\">{}</desc>",
            escape(&self.title),
            escape(&self.subtitle)
        );
        s.push_str(
            "<rect class=\"background\" width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n",
        );
        let _ = writeln!(
            s,
            "<text class=\"title\" x=\"{}\" y=\"24\" font-size=\"15\" font-weight=\"bold\">{}</text>",
            n(LEFT),
            escape(&self.title)
        );
        let _ = writeln!(
            s,
            "<text class=\"subtitle\" x=\"{}\" y=\"42\" fill=\"#555555\">{}</text>",
            n(LEFT),
            escape(&self.subtitle)
        );
        if max == 0 {
            let middle = LEFT + plot_width / 2.0;
            let _ = writeln!(
                s,
                "<rect class=\"frame\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#cccccc\"/>",
                n(LEFT),
                n(TOP),
                n(plot_width),
                n(PLOT_HEIGHT)
            );
            let _ = writeln!(
                s,
                "<text class=\"no-data\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"20\" fill=\"#777777\">no data</text>",
                n(middle),
                n(TOP + PLOT_HEIGHT / 2.0)
            );
            let _ = writeln!(
                s,
                "<text class=\"no-data-why\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"12\" fill=\"#777777\">{}</text>",
                n(middle),
                n(TOP + PLOT_HEIGHT / 2.0 + 22.0),
                escape(self.empty)
            );
            s.push_str("</svg>\n");
            return self.chart(s);
        }
        self.legend(&mut s);
        let (top, step) = y_scale(max);
        let scale = PLOT_HEIGHT / top as f64;
        // Grid and y ticks.
        let mut tick = 0;
        while tick <= top {
            let y = base - tick as f64 * scale;
            let _ = writeln!(
                s,
                "<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{y}\" y2=\"{y}\" stroke=\"#e5e5e5\"/>\
                 <text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{tick}</text>",
                n(LEFT),
                n(WIDTH - RIGHT),
                n(LEFT - 6.0),
                n(y + 4.0),
                y = n(y),
            );
            tick += step;
        }
        // Bars, their counts and the group labels.
        let bar_width = group_width * 0.7 / self.series.len().max(1) as f64;
        s.push_str("<g class=\"bars\">\n");
        for (g, group) in self.groups.iter().enumerate() {
            let left = LEFT + g as f64 * group_width + group_width * 0.15;
            for (i, (series, &count)) in self.series.iter().zip(&group.counts).enumerate() {
                let x = left + i as f64 * bar_width;
                let h = count as f64 * scale;
                let colour = group.colour.unwrap_or(series.colour);
                let _ = writeln!(
                    s,
                    "<rect class=\"bar\" data-group=\"{label}\" data-series=\"{name}\" data-count=\"{count}\" \
                     x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{colour}\"><title>{label}, {name}: {count}</title></rect>",
                    n(x),
                    n(base - h),
                    n(bar_width),
                    n(h),
                    label = escape(&group.label),
                    name = escape(&series.name),
                );
                if count > 0 {
                    let _ = writeln!(
                        s,
                        "<text class=\"count\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"10\">{count}</text>",
                        n(x + bar_width / 2.0),
                        n(base - h - 4.0)
                    );
                }
            }
            let middle = LEFT + (g as f64 + 0.5) * group_width;
            if lean {
                let (x, y) = (n(middle), n(base + 14.0));
                let _ = writeln!(
                    s,
                    "<text class=\"label\" x=\"{x}\" y=\"{y}\" text-anchor=\"end\" transform=\"rotate(-{} {x} {y})\">{}</text>",
                    n(LEAN),
                    escape(&group.label)
                );
            } else {
                let _ = writeln!(
                    s,
                    "<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                    n(middle),
                    n(base + 16.0),
                    escape(&group.label)
                );
            }
        }
        s.push_str("</g>\n");
        // Axes and their names.
        let _ = writeln!(
            s,
            "<line class=\"axis\" x1=\"{l}\" x2=\"{l}\" y1=\"{}\" y2=\"{b}\" stroke=\"#333333\"/>\
             <line class=\"axis\" x1=\"{l}\" x2=\"{}\" y1=\"{b}\" y2=\"{b}\" stroke=\"#333333\"/>",
            n(TOP),
            n(WIDTH - RIGHT),
            l = n(LEFT),
            b = n(base),
        );
        let _ = writeln!(
            s,
            "<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"12\">{}</text>",
            n(LEFT + plot_width / 2.0),
            n(height - 10.0),
            escape(self.x_label)
        );
        let (x, y) = (n(18.0), n(TOP + PLOT_HEIGHT / 2.0));
        let _ = writeln!(
            s,
            "<text class=\"axis-label\" x=\"{x}\" y=\"{y}\" text-anchor=\"middle\" font-size=\"12\" transform=\"rotate(-90 {x} {y})\">{}</text>",
            escape(self.y_label)
        );
        s.push_str("</svg>\n");
        self.chart(s)
    }

    /// A swatch and a name per series, when there are several.
    fn legend(&self, s: &mut String) {
        if self.series.len() < 2 {
            return;
        }
        let mut x = LEFT;
        for series in &self.series {
            let _ = writeln!(
                s,
                "<rect class=\"legend\" x=\"{}\" y=\"52\" width=\"10\" height=\"10\" fill=\"{}\"/>\
                 <text class=\"legend\" x=\"{}\" y=\"61\">{}</text>",
                n(x),
                series.colour,
                n(x + 14.0),
                escape(&series.name)
            );
            x += 14.0 + text_width(&series.name, 11.0) + 20.0;
        }
    }

    fn chart(&self, svg: String) -> Chart {
        Chart {
            id: self.id,
            title: self.title.clone(),
            svg,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::record::{ErrorType, Executability, Record, Stage, Verdict};
    use crate::measure::report::merge;
    use crate::notebook::failure::FailureClass;

    fn error(class: FailureClass, ename: &str) -> ErrorType {
        ErrorType {
            class,
            cause: "raised".into(),
            ename: Some(ename.into()),
            message: String::new(),
            cell: Some(1),
        }
    }

    fn exe(ran: u32, of: u32) -> Executability {
        Executability {
            cells_ran: ran,
            code_cells: of,
            first_error_cell: (ran < of).then_some(ran + 1),
        }
    }

    /// A notebook run once (stage verify): `ran` of `of` cells, stopped at `first`.
    fn verified(path: &str, ran: u32, of: u32, first: Option<ErrorType>) -> Record {
        let mut r = Record::new(path.into(), Some(format!("{path}-hash")), Stage::Verify);
        r.executability_before = Some(exe(ran, of));
        r.verdict = Some(match &first {
            None => Verdict::Executable,
            Some(e) if e.class == FailureClass::Code => Verdict::Pathological,
            Some(e) => Verdict::Restorable { by: e.class },
        });
        r.first_error = first;
        r
    }

    fn report(records: Vec<Record>) -> Report {
        Report::of(&merge(records))
    }

    /// Every `<rect class="bar">`: its group, series, count and height.
    fn bars(svg: &str) -> Vec<(String, String, usize, f64)> {
        let attr = |tag: &str, name: &str| -> String {
            let start = tag.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
            tag[start..].split('"').next().unwrap().to_string()
        };
        svg.split("<rect class=\"bar\"")
            .skip(1)
            .map(|rest| {
                let tag = &rest[..rest.find('>').unwrap()];
                (
                    attr(tag, "data-group"),
                    attr(tag, "data-series"),
                    attr(tag, "data-count").parse().unwrap(),
                    attr(tag, "height").parse().unwrap(),
                )
            })
            .collect()
    }

    #[test]
    fn bar_heights_are_proportional_to_counts() {
        let env = || Some(error(FailureClass::Environment, "ModuleNotFoundError"));
        let mut records = vec![
            verified("a", 1, 4, env()),
            verified("b", 0, 4, env()),
            verified("c", 2, 4, env()),
            verified("d", 3, 4, Some(error(FailureClass::Code, "ValueError"))),
            verified("e", 4, 4, None),
        ];
        // Restored: stopped at a missing module, then ran to the end.
        let mut f = verified("f", 0, 2, env());
        f.stage = Stage::Restore;
        f.executability_after = Some(exe(2, 2));
        f.error_sequence = Some(vec![error(
            FailureClass::Environment,
            "ModuleNotFoundError",
        )]);
        records.push(f);
        let chart = error_classes(&report(records));
        let found = bars(&chart.svg);
        let count = |group: &str, before: bool| -> (usize, f64) {
            let b = found
                .iter()
                .find(|b| b.0 == group && b.1.starts_with("before") == before)
                .unwrap_or_else(|| panic!("no bar {group} {before} in {found:?}"));
            (b.2, b.3)
        };
        assert_eq!(count("environment", true).0, 4);
        assert_eq!(count("environment", false).0, 0);
        assert_eq!(count("code", true).0, 1);
        assert_eq!(count("ran to the end", true).0, 1);
        assert_eq!(count("ran to the end", false).0, 1);
        // Two series, three groups; the tallest bar's count sets the scale (4 of 4).
        assert_eq!(found.len(), 6, "{found:?}");
        let (top, _) = y_scale(4);
        for (group, series, n, height) in &found {
            let expected = *n as f64 * PLOT_HEIGHT / top as f64;
            assert!(
                (height - expected).abs() < 0.01,
                "{group} {series}: {n} drawn {height} high, not {expected}"
            );
        }
        assert_eq!(count("environment", true).1, PLOT_HEIGHT);
        assert!(
            chart.svg.contains(">4</text>"),
            "the count is written on the bar"
        );
    }

    #[test]
    fn the_histogram_bins_shares_of_cells_run() {
        let stop = || Some(error(FailureClass::Code, "ValueError"));
        let records = vec![
            verified("zero", 0, 10, stop()),
            verified("tenth", 1, 10, stop()),
            verified("nineteen", 19, 100, stop()),
            verified("most", 99, 100, stop()),
            verified("all", 3, 3, None),
            verified("all too", 7, 7, None),
        ];
        let chart = executability(&report(records));
        let found = bars(&chart.svg);
        // 0%, ten deciles and 100%, before and after.
        assert_eq!(found.len(), 24);
        let before: Vec<(String, usize)> = found
            .iter()
            .filter(|b| b.1.starts_with("before") && b.2 > 0)
            .map(|b| (b.0.clone(), b.2))
            .collect();
        assert_eq!(
            before,
            [
                ("0%".to_string(), 1),
                ("10–20%".to_string(), 2),
                ("90–100%".to_string(), 1),
                ("100%".to_string(), 2),
            ]
        );
        assert!(found.iter().all(|b| !b.1.starts_with("after") || b.2 == 0));
        assert!(chart.svg.contains("before restore (6)"), "{}", chart.svg);
    }

    #[test]
    fn verdicts_count_each_outcome() {
        let records = vec![
            verified("a", 2, 2, None),
            verified(
                "b",
                0,
                2,
                Some(error(FailureClass::DataInput, "FileNotFoundError")),
            ),
            verified(
                "c",
                0,
                2,
                Some(error(FailureClass::DataInput, "FileNotFoundError")),
            ),
            verified("d", 1, 2, Some(error(FailureClass::Code, "ValueError"))),
        ];
        let found = bars(&verdicts(&report(records)).svg);
        let counts: Vec<(&str, usize)> = found.iter().map(|b| (b.0.as_str(), b.2)).collect();
        assert_eq!(
            counts,
            [
                ("executable", 1),
                ("restorable: data/input", 2),
                ("pathological", 1)
            ]
        );
    }

    #[test]
    fn nothing_to_draw_says_no_data() {
        for chart in charts(&report(Vec::new())) {
            assert!(chart.svg.starts_with("<svg "), "{}", chart.svg);
            assert!(chart.svg.trim_end().ends_with("</svg>"));
            assert!(chart.svg.contains(">no data</text>"), "{}", chart.svg);
            assert!(bars(&chart.svg).is_empty());
            assert!(chart.standalone().starts_with("<?xml "));
        }
        // Records of stage usage: notebooks, but no run.
        let usage = Record::new("u".into(), Some("h".into()), Stage::Usage);
        let chart = verdicts(&report(vec![usage]));
        assert!(chart.svg.contains("no notebook was run"), "{}", chart.svg);
    }

    #[test]
    fn the_y_axis_steps_are_round() {
        assert_eq!(y_scale(0), (1, 1));
        assert_eq!(y_scale(1), (1, 1));
        assert_eq!(y_scale(5), (5, 1));
        assert_eq!(y_scale(6), (6, 2));
        assert_eq!(y_scale(7), (8, 2));
        assert_eq!(y_scale(11), (15, 5));
        assert_eq!(y_scale(101), (150, 50));
        assert_eq!(y_scale(4999), (5000, 1000));
    }

    #[test]
    fn long_labels_lean_and_coordinates_are_short() {
        let mut records = Vec::new();
        for (i, class) in [
            FailureClass::Environment,
            FailureClass::DataInput,
            FailureClass::Resource,
            FailureClass::Hardware,
            FailureClass::Install,
        ]
        .into_iter()
        .enumerate()
        {
            records.push(verified(&format!("n{i}"), 0, 3, Some(error(class, "E"))));
        }
        records.push(verified("p", 0, 3, Some(error(FailureClass::Code, "E"))));
        records.push(verified("x", 3, 3, None));
        let svg = verdicts(&report(records)).svg;
        assert!(svg.contains("transform=\"rotate(-40 "), "{svg}");
        // No float noise (`0.30000000000000004`) in what is written.
        assert!(!svg.contains("0000"), "{svg}");
    }
}
