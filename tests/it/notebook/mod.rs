mod cli;
mod crash_classes;
mod failure;
mod fixtures;
mod tracing;
