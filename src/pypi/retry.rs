use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How often and how patiently a failed request is tried again.
///
/// Only transient failures are retried: connection errors, timeouts, resets while reading the
/// body, HTTP 5xx and 429. A 404 or 403 will not change by asking again.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Attempts after the first one.
    pub retries: u32,
    /// The first delay; each later one doubles, plus up to 50% jitter.
    pub base_delay: Duration,
    /// No delay (including a server's Retry-After) exceeds this.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            retries: 3,
            base_delay: Duration::from_millis(250),
            max_delay: Duration::from_secs(10),
        }
    }
}

impl RetryPolicy {
    pub fn is_retryable_status(status: u16) -> bool {
        status == 429 || (500..600).contains(&status)
    }

    /// The delay before attempt `attempt` (1-based count of retries so far).
    pub fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(after) = retry_after {
            return after.min(self.max_delay);
        }
        let exp = self
            .base_delay
            .saturating_mul(1u32 << attempt.saturating_sub(1).min(16));
        // Cheap jitter: spreads retries of parallel workers without a random number crate.
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let jitter = exp.mul_f64(f64::from(nanos % 500) / 1000.0);
        (exp + jitter).min(self.max_delay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        let p = RetryPolicy::default();
        assert!(p.delay(1, None) >= Duration::from_millis(250));
        assert!(p.delay(1, None) < Duration::from_millis(400));
        assert!(p.delay(3, None) >= Duration::from_secs(1));
        assert_eq!(p.delay(30, None), Duration::from_secs(10));
        assert_eq!(
            p.delay(1, Some(Duration::from_secs(60))),
            Duration::from_secs(10)
        );
        assert!(RetryPolicy::is_retryable_status(503));
        assert!(RetryPolicy::is_retryable_status(429));
        assert!(!RetryPolicy::is_retryable_status(404));
    }
}
