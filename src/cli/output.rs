//! Writing results: pretty JSON with a final newline, the same for every command.

use std::io::Write;

use anyhow::{Context, Result};
use serde::Serialize;

pub fn write_json(out: &mut impl Write, value: &impl Serialize) -> Result<()> {
    serde_json::to_writer_pretty(&mut *out, value).context("writing JSON")?;
    writeln!(out)?;
    Ok(())
}
