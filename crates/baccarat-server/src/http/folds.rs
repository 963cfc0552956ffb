//! The reports made by folding the whole history (the day's books, the
//! ratings, the surveillance report) run at most [`FOLDS`] at a time.
//!
//! Each reads every record of every chain on a thread of its own; a person
//! allowed to ask for one (an inspector, surveillance) could otherwise ask
//! for hundreds at once and take every core from the writer. One more than
//! [`FOLDS`] is refused at once with 429 and a time to retry, rather than
//! queued: the server never holds more than [`FOLDS`] folds' memory.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::ApiError;

/// How many folds may run at once.
pub const FOLDS: usize = 2;

/// How long a refused asker is told to wait (ms).
const RETRY_MS: u64 = 1_000;

/// The permits, shared by the server's handlers.
pub fn permits() -> Arc<Semaphore> {
    Arc::new(Semaphore::new(FOLDS))
}

/// A permit to fold, or 429 if [`FOLDS`] are running.
pub fn permit(p: &Arc<Semaphore>) -> Result<OwnedSemaphorePermit, ApiError> {
    p.clone().try_acquire_owned().map_err(|_| {
        ApiError::too_many(
            format!("{FOLDS} reports are being made from the records already; try again shortly"),
            RETRY_MS,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_more_than_folds_is_refused_until_one_ends() {
        let p = permits();
        let held: Vec<_> = (0..FOLDS).map(|_| permit(&p).expect("a permit")).collect();
        let refused = permit(&p).unwrap_err();
        assert_eq!(refused.body()["code"], "rate", "{:?}", refused.body());
        assert_eq!(refused.body()["retry_after_ms"], RETRY_MS);
        drop(held);
        assert!(permit(&p).is_ok());
    }
}
