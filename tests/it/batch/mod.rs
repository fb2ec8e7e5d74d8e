mod cli;
mod cluster;
mod library;
mod run;
