mod cli;
mod runner;
mod sandbox;
