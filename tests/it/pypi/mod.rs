mod cache;
mod client;
mod compact;
mod memo;
mod stream;
mod survey;
