//! Successors in another distribution, named by the old one's own code (issue 37): the
//! loopback `oldkit` 1.0 has `oldkit.widgets` with `interact` and `slider`; 2.0 puts in its
//! place a module forwarding every name to `newkit` (as IPython 4-7 forward
//! `IPython.html.widgets` to `ipywidgets`); 3.0 has no `widgets`. `newkit` 1.0 has
//! `interact`, not `slider`. Only the bank's reading of 2.0's code links the two.

use super::{code_notebook, modernize_and_run, rewritten_json, run_in, sources};
use crate::support::archives::WheelBuilder;
use crate::support::context::{TestContext, Uploaded};
use crate::support::snapshot::STATIC;

const WIDGETS: &str = "def interact(f, **kwargs):\n    return f(**kwargs)\n\n\
def slider(lo, hi):\n    return (lo, hi)\n";

/// A module object that serves another module's names, as IPython's `ShimModule` does.
const SHIM: &str = "import importlib\nimport types\n\n\
class ShimModule(types.ModuleType):\n    def __init__(self, src, mirror):\n        super().__init__(src)\n        self._mirror = mirror\n\n    def __getattr__(self, name):\n        return getattr(importlib.import_module(self._mirror), name)\n";

const FORWARD: &str = "import sys\n\nfrom oldkit._shim import ShimModule\n\n\
sys.modules['oldkit.widgets'] = ShimModule(src='oldkit.widgets', mirror='newkit')\n";

fn publish(ctx: &TestContext) {
    let oldkit = |v: &str| WheelBuilder::new("oldkit", v).file("oldkit/__init__.py", "");
    ctx.publish(
        "oldkit",
        &[
            oldkit("1.0").file("oldkit/widgets.py", WIDGETS),
            oldkit("2.0")
                .file("oldkit/_shim.py", SHIM)
                .file("oldkit/widgets.py", FORWARD),
            oldkit("3.0"),
        ],
        Uploaded::Yearly(2015),
    );
    ctx.publish(
        "newkit",
        &[WheelBuilder::new("newkit", "1.0").file(
            "newkit/__init__.py",
            "def interact(f, **kwargs):\n    return f(**kwargs)\n",
        )],
        Uploaded::Yearly(2016),
    );
}

/// `oldkit` (every release) in the bank, not `newkit`.
fn context() -> TestContext {
    let ctx = TestContext::with_index();
    publish(&ctx);
    let run = ctx.run(["bank", "add", "oldkit", "--all-versions"]);
    assert_eq!(run.code, 0, "{}", run.text());
    ctx
}

const INTERACT: &[&str] = &[
    "from oldkit.widgets import interact",
    "print(interact(lambda n: n * 2, n=3))",
];

#[test]
fn bank_moves_lists_a_module_forwarded_to_another_distribution() {
    let ctx = context();
    crate::assert_printed!(
        STATIC,
        "modernize-mirror-bank-moves",
        ctx.printed(["bank", "moves", "oldkit"])
    );
}

#[test]
fn a_name_forwarded_to_another_distribution_moves_there() {
    let ctx = context();
    std::fs::write(ctx.path("nb.ipynb"), code_notebook(INTERACT)).unwrap();
    std::fs::write(
        ctx.path("slider.ipynb"),
        code_notebook(&["from oldkit.widgets import slider", "print(slider(0, 1))"]),
    )
    .unwrap();
    let json = rewritten_json(&ctx, &["nb.ipynb"]);
    let change = &json["changes"][0];
    assert_eq!(change["old"], "oldkit.widgets.interact", "{json}");
    assert_eq!(change["new"], "newkit.interact");
    assert_eq!(change["evidence"]["kind"], "mirrored");
    assert_eq!(change["evidence"]["to"], "newkit");
    assert_eq!(change["evidence"]["by"], "oldkit.widgets");
    assert_eq!(change["written"], true);
    assert!(change.get("trial").is_none(), "{change}");

    // The text says who forwarded what, and a name the other distribution lacks stays,
    // with the reason and the era pin.
    crate::assert_printed!(
        STATIC,
        "modernize-mirror",
        run_in(&ctx, &["modernize", "nb.ipynb", "--no-run"]).text()
            + &run_in(&ctx, &["modernize", "slider.ipynb", "--no-run"]).text()
    );
}

/// Needs `python3` and uv, as the restore tests do.
#[test]
fn the_forwarded_name_runs_from_the_other_distribution() {
    let ctx = context();
    std::fs::write(ctx.path("nb.ipynb"), code_notebook(INTERACT)).unwrap();
    let run = modernize_and_run(&ctx, "nb");
    assert_eq!(run.code, 0, "{}", run.text());
    assert_eq!(
        sources(&ctx.path("nb.modern.ipynb"))[0],
        "from newkit import interact"
    );
    let pins = std::fs::read_to_string(ctx.path("nb.txt")).unwrap();
    assert!(pins.contains("newkit==1.0"), "{pins}");
    assert!(!pins.contains("oldkit"), "{pins}");
}
