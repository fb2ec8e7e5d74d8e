//! `modernize` on a Python 2 notebook: its syntax and standard-library moves rewritten as
//! Python 3 first, each cited, and what may change meaning named for a reader to check.

use super::{run_in, sources};
use crate::support::context::TestContext;

/// An nbformat 3 notebook of a Python 2 kernel, as 2014 wrote them: cells in a worksheet,
/// code in `input`.
fn python2_notebook() -> serde_json::Value {
    let code = |input: &str| {
        serde_json::json!({"cell_type": "code", "collapsed": false, "input": input,
                           "language": "python", "metadata": {}, "outputs": [],
                           "prompt_number": 1})
    };
    serde_json::json!({
        "metadata": {"name": "", "kernelspec": {"name": "python2", "display_name": "Python 2"}},
        "nbformat": 3, "nbformat_minor": 0,
        "worksheets": [{"cells": [
            {"cell_type": "heading", "level": 1, "metadata": {}, "source": "Counts"},
            code("import cPickle\nfrom itertools import izip\ncounts = {'a': 1, 'b': 2}"),
            code("for k, v in counts.iteritems():\n    print k, v\nprint >>sys.stderr, 'done'"),
            code("pairs = list(izip(xrange(3), 'abc'))\nhalf = len(pairs) / 2\nratio = total / 2"),
            code("try:\n    f()\nexcept ValueError, e:\n    print 'failed: %s' % e"),
        ]}]
    })
}

#[test]
fn python_2_code_is_rewritten_as_python_3_and_cited() {
    let ctx = TestContext::with_index();
    let nb = python2_notebook();
    std::fs::write(ctx.path("old.ipynb"), nb.to_string()).unwrap();
    let run = run_in(
        &ctx,
        &["modernize", "old.ipynb", "-o", "new.ipynb", "--no-run"],
    );
    assert_eq!(run.code, 0, "{}", run.text());

    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(ctx.path("new.ipynb")).unwrap()).unwrap();
    assert_eq!(written["nbformat"], 3);
    let inputs: Vec<String> = written["worksheets"][0]["cells"]
        .as_array()
        .unwrap()
        .iter()
        .skip(1)
        .map(|c| {
            c["input"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l.as_str().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(
        inputs,
        [
            "import pickle as cPickle\ncounts = {'a': 1, 'b': 2}",
            "for k, v in counts.items():\n    print(k, v)\nprint('done', file=sys.stderr)",
            "pairs = list(zip(range(3), 'abc'))\nhalf = len(pairs) // 2\nratio = total / 2",
            "try:\n    f()\nexcept ValueError as e:\n    print('failed: %s' % e)",
        ]
    );
    insta::with_settings!({ prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("modernize-python3-report", run.stdout);
    });
}

/// A Python 3 notebook is not touched, though a name of its own looks like Python 2's.
#[test]
fn python_3_notebooks_are_left_as_they_are() {
    let ctx = TestContext::with_index();
    let nb = serde_json::json!({
        "cells": [{"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
                   "source": ["long = 3\n", "print(long / 2)"]}],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4, "nbformat_minor": 2
    });
    std::fs::write(ctx.path("nb.ipynb"), nb.to_string()).unwrap();
    let run = run_in(
        &ctx,
        &["modernize", "nb.ipynb", "-o", "out.ipynb", "--no-run"],
    );
    assert_eq!(run.code, 0, "{}", run.text());
    assert!(!run.stdout.contains("Python 3"), "{}", run.stdout);
    assert_eq!(
        sources(&ctx.path("out.ipynb")),
        ["long = 3\nprint(long / 2)"]
    );
}
