mod evidence;
mod infer;
mod lazy;
mod over_budget;
mod soft;
mod solver;
