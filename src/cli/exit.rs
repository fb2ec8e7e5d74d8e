//! Exit codes: the contract scripts and batch pipelines rely on. Documented in the README.

use std::process::ExitCode;

use super::args::GlobalArgs;

/// Success.
pub const OK: u8 = 0;
/// Any failure without a more specific code.
pub const FAILURE: u8 = 1;
// 2 is clap's own code for bad arguments.

/// Prints the error chain (if any) and turns the result into an exit code.
pub fn report(result: anyhow::Result<()>, _global: &GlobalArgs) -> ExitCode {
    match result {
        Ok(()) => ExitCode::from(OK),
        Err(err) => {
            eprintln!("error: {err}");
            for cause in err.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::from(code_for(&err))
        }
    }
}

/// The most specific code that any error in the chain maps to.
fn code_for(_err: &anyhow::Error) -> u8 {
    FAILURE
}
