//! Fresh seeds from the operating system's entropy source. Randomness enters
//! the system here, at its edge (DESIGN 1, 8): the table engine only ever
//! receives a seed inside a command, so it stays deterministic and replayable.

use baccarat_table::Seed;

/// The OS would not give entropy for a seed. (Not a `#[source]`:
/// getrandom implements `std::error::Error` only with its `std` feature.)
#[derive(Clone, Copy, Debug, thiserror::Error)]
#[error("cannot read OS entropy for a seed: {0}")]
pub struct EntropyError(pub getrandom::Error);

/// A fresh seed from the OS (a shoe's seed on an RNG table; a simulation's
/// master seed when none is given).
pub fn os_seed() -> Result<Seed, EntropyError> {
    let mut s = [0u8; 32];
    getrandom::fill(&mut s).map_err(EntropyError)?;
    Ok(Seed::from_bytes(s))
}

/// A fresh random token or password (hex of `bytes` random bytes).
pub fn random_hex(bytes: usize) -> String {
    let mut b = vec![0u8; bytes];
    getrandom::fill(&mut b).expect("OS entropy");
    baccarat_table::hex(&b)
}

#[cfg(test)]
mod tests {
    #[test]
    fn two_seeds_differ() {
        assert_ne!(super::os_seed().unwrap(), super::os_seed().unwrap());
    }

    /// The failure reads as the string it replaced (a refusal's message).
    #[test]
    fn the_failure_reads_as_before() {
        let e = getrandom::Error::UNSUPPORTED;
        assert_eq!(super::EntropyError(e).to_string(), format!("cannot read OS entropy for a seed: {e}"));
    }
}
