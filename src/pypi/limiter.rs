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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn never_more_than_max_in_flight() {
        let limiter = Arc::new(Limiter::new(3));
        let current = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..12)
            .map(|_| {
                let (limiter, current, peak) = (limiter.clone(), current.clone(), peak.clone());
                std::thread::spawn(move || {
                    let _permit = limiter.acquire();
                    let now = current.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    current.fetch_sub(1, Ordering::SeqCst);
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(peak.load(Ordering::SeqCst), 3);
    }
}
