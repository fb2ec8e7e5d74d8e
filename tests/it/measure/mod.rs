mod report;
mod triage;
