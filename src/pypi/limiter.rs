use std::sync::{Condvar, Mutex};

/// A counting semaphore that bounds how many requests are in flight at once, however many
/// threads the caller runs: indexes rate-limit, and a 2-core machine gains nothing from 100
/// parallel downloads.
#[derive(Debug)]
pub struct Limiter {
    free: Mutex<usize>,
    freed: Condvar,
}

pub struct Permit<'a> {
    limiter: &'a Limiter,
}

impl Limiter {
    pub fn new(max: usize) -> Self {
        Self {
            free: Mutex::new(max.max(1)),
            freed: Condvar::new(),
        }
    }

    pub fn acquire(&self) -> Permit<'_> {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        while *free == 0 {
            free = self.freed.wait(free).unwrap_or_else(|e| e.into_inner());
        }
        *free -= 1;
        Permit { limiter: self }
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        let mut free = self.limiter.free.lock().unwrap_or_else(|e| e.into_inner());
        *free += 1;
        self.limiter.freed.notify_one();
    }
}
