mod cli;
mod cluster;
mod run;
