mod evidence;
mod infer;
mod lazy;
mod soft;
mod solver;
