//! The notebook as the run left it (`--executed PATH`): nbformat 4 with each code cell's
//! outputs and execution count from the run, so that Jupyter opens the proof beside the
//! requirements. Cells the run did not reach keep no outputs; cells that are not code are
//! written as they were read.

use serde_json::{json, Value};

use super::run::NotebookRun;
use crate::notebook::{CellKind, Notebook, Output, StreamName};

/// The executed notebook, as nbformat 4.5 JSON.
pub fn executed_notebook(nb: &Notebook, run: &NotebookRun) -> Value {
    let mut count = 0u32;
    let cells: Vec<Value> = nb
        .cells
        .iter()
        .map(|cell| {
            let id = format!("nbenv-{}", cell.number);
            match cell.kind {
                CellKind::Code => {
                    let ran = run.cells.iter().find(|r| r.cell == cell.number);
                    let execution_count = ran.map(|_| {
                        count += 1;
                        count
                    });
                    let mut outputs: Vec<Value> = ran
                        .map(|r| {
                            r.outputs
                                .iter()
                                .map(|o| output_json(o, execution_count))
                                .collect()
                        })
                        .unwrap_or_default();
                    if let Some(error) = ran.and_then(|r| r.error.as_ref()) {
                        let mut traceback: Vec<String> = error
                            .frames
                            .iter()
                            .map(|f| {
                                let mut line = format!("  File \"{}\"", f.file);
                                if let Some(n) = f.line {
                                    line.push_str(&format!(", line {n}"));
                                }
                                if let Some(func) = &f.function {
                                    line.push_str(&format!(", in {func}"));
                                }
                                if let Some(code) = &f.code {
                                    line.push_str(&format!("\n    {}", code.trim()));
                                }
                                line
                            })
                            .collect();
                        traceback.insert(0, "Traceback (most recent call last):".into());
                        traceback.push(format!("{}: {}", error.ename, error.evalue));
                        outputs.push(json!({
                            "output_type": "error",
                            "ename": error.ename,
                            "evalue": error.evalue,
                            "traceback": traceback,
                        }));
                    }
                    json!({
                        "cell_type": "code",
                        "id": id,
                        "metadata": {},
                        "execution_count": execution_count,
                        "source": cell.source,
                        "outputs": outputs,
                    })
                }
                CellKind::Markdown => json!({
                    "cell_type": "markdown", "id": id, "metadata": {}, "source": cell.source,
                }),
                CellKind::Raw | CellKind::Other => json!({
                    "cell_type": "raw", "id": id, "metadata": {}, "source": cell.source,
                }),
            }
        })
        .collect();
    let python = run.python.map(|p| p.to_string());
    let major = run.python.map_or(3, |p| p.major);
    json!({
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {
            "kernelspec": {
                "name": format!("python{major}"),
                "display_name": format!("Python {major}"),
                "language": "python",
            },
            "language_info": { "name": "python", "version": python },
            "nbenv": { "executed_from": nb.path.display().to_string() },
        },
        "cells": cells,
    })
}

fn output_json(output: &Output, execution_count: Option<u32>) -> Value {
    match output {
        Output::Stream { name, text } => json!({
            "output_type": "stream",
            "name": match name { StreamName::Stdout => "stdout", StreamName::Stderr => "stderr" },
            "text": text,
        }),
        Output::Data { text } => json!({
            "output_type": "execute_result",
            "execution_count": execution_count,
            "data": { "text/plain": text },
            "metadata": {},
        }),
        Output::Error {
            ename,
            evalue,
            traceback,
        } => json!({
            "output_type": "error", "ename": ename, "evalue": evalue, "traceback": traceback,
        }),
    }
}
