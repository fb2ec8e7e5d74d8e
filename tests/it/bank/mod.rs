mod build;
mod check;
mod extract;
mod flow;
mod introspect;
mod safety;
mod snapshot;
mod unknown;
