//! Corpora of notebooks written on the fly, for the batch tests.

use std::path::Path;

use serde_json::{json, Value};

/// A notebook of code cells, with a Python 3 kernel.
pub fn ipynb(cells: &[&str]) -> String {
    let cells: Vec<Value> = cells
        .iter()
        .map(|source| {
            json!({"cell_type": "code", "source": source, "metadata": {}, "outputs": [],
                   "execution_count": null})
        })
        .collect();
    json!({"nbformat": 4, "nbformat_minor": 2, "cells": cells,
           "metadata": {"kernelspec": {"name": "python3", "language": "python",
                                       "display_name": "Python 3"}}})
    .to_string()
}

/// Writes `text` to `dir/name`, making the folders on the way.
pub fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}
