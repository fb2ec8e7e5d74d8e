//! Progress bars that respect `--quiet` and `--no-progress` and vanish when stderr is not a
//! terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::args::GlobalArgs;

pub fn bar(global: &GlobalArgs, len: u64, unit: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    if global.quiet || global.no_progress {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    let template = format!(
        "{{spinner}} [{{elapsed_precise}}] {{bar:30}} {{pos}}/{{len}} {unit} (eta {{eta}}) {{wide_msg}}"
    );
    bar.set_style(
        ProgressStyle::with_template(&template)
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}
