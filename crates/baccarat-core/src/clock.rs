//! The clock: milliseconds since the epoch, injected everywhere a time is
//! read (the writer's stamps, sessions, sign-in throttling), so that tests
//! decide what time it is and nothing depends on the machine's speed.

use std::sync::Arc;

/// The clock the writer stamps wagers with (ms since the epoch); injected, so
/// tests decide what time it is.
pub type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

/// The system clock.
pub fn system_clock() -> Clock {
    Arc::new(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64))
}
