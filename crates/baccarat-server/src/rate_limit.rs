//! Rate limits: a token bucket per signed-in user on the routes that change
//! things (wagers, commands, cage). Each user may burst up to `rate` requests and
//! then make `rate` a second; beyond that the request is refused with 429 before
//! it reaches the table, so one client cannot crowd out the others. Counting is
//! in thousandths of a request, in integers.

use baccarat_core::UserId;
use std::collections::HashMap;
use std::sync::Mutex;

use baccarat_core::Clock;

pub struct Limiter {
    /// Requests per second (and the burst).
    rate: u64,
    /// The time (ms): injected, so a test on a loaded machine sees the same
    /// limits as on an idle one.
    clock: Clock,
    buckets: Mutex<HashMap<UserId, (u64, u64)>>,
}

impl Limiter {
    pub fn new(rate_per_second: u32, clock: Clock) -> Limiter {
        Limiter { rate: u64::from(rate_per_second.max(1)), clock, buckets: Mutex::new(HashMap::new()) }
    }

    /// Take one request from `user`'s bucket; `Err` carries the milliseconds
    /// until one is available.
    pub fn take(&self, user: UserId) -> Result<(), u64> {
        self.take_at(user, (self.clock)())
    }

    /// As [`Limiter::take`], at `now_ms`.
    pub fn take_at(&self, user: UserId, now_ms: u64) -> Result<(), u64> {
        let full = self.rate * 1000;
        let mut b = self.buckets.lock().expect("limiter lock");
        let (tokens, last) = b.entry(user).or_insert((full, now_ms));
        // `rate` requests a second is `rate` thousandths a millisecond.
        *tokens = (*tokens + now_ms.saturating_sub(*last) * self.rate).min(full);
        *last = now_ms.max(*last);
        if *tokens >= 1000 {
            *tokens -= 1000;
            Ok(())
        } else {
            Err((1000 - *tokens).div_ceil(self.rate))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_the_rate() {
        let l = Limiter::new(10, baccarat_core::system_clock());
        for i in 0..10 {
            assert_eq!(l.take_at(UserId(1), 0), Ok(()), "request {i} of the burst");
        }
        assert_eq!(l.take_at(UserId(1), 0), Err(100), "the 11th waits 100 ms");
        assert_eq!(l.take_at(UserId(2), 0), Ok(()), "another user has their own bucket");
        assert_eq!(l.take_at(UserId(1), 99), Err(1));
        assert_eq!(l.take_at(UserId(1), 100), Ok(()));
        // A long pause refills only to the burst.
        for _ in 0..10 {
            assert_eq!(l.take_at(UserId(1), 60_000), Ok(()));
        }
        assert!(l.take_at(UserId(1), 60_000).is_err());
    }
}
