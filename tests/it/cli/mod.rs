mod cache;
mod conventions;
mod disk_full;
mod human;
mod index;
mod leftovers;
