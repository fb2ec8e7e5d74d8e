//! Which interpreter `verify` runs the notebook on: the one asked, else the requirements'
//! header's Python, else the newest installed one the notebook allows.

use crate::notebook::Usage;
use crate::output::python_of;
use crate::python::{Interpreter, PythonVersion};
use crate::resolve::interpreter::{InterpreterPlan, Reach};

use super::super::CommandError;
use super::PythonAsked;

pub fn choose(
    asked: Option<&PythonAsked>,
    requirements: &str,
    usage: &Usage,
) -> Result<Interpreter, CommandError> {
    let by_version = |version: PythonVersion, why: &'static str| {
        crate::python::found()
            .iter()
            .filter(|i| i.version.feature() == version.feature())
            .max_by_key(|i| i.version)
            .cloned()
            .ok_or(CommandError::PythonNotInstalled { version, why })
    };
    match asked {
        Some(PythonAsked::Path(path)) => {
            return Interpreter::at(path)
                .map_err(|asked| CommandError::AskedNotAnInterpreter { asked })
        }
        Some(PythonAsked::Version(v)) => return by_version(*v, "asked for with --python"),
        None => {}
    }
    if let Some(v) = python_of(requirements) {
        return by_version(v, "the requirements were resolved for it");
    }
    let plan = InterpreterPlan::new(
        &usage.python,
        None,
        crate::python::found_by_name(),
        Reach::Installed,
    );
    let path = plan
        .candidates
        .iter()
        .find_map(|c| c.installed.as_ref())
        .ok_or(CommandError::NoInterpreterFits)?;
    Ok(Interpreter::at(path)?)
}
