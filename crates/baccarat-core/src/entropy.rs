//! Fresh seeds from the operating system's entropy source. Randomness enters
//! the system here, at its edge (DESIGN 1, 8): the table engine only ever
//! receives a seed inside a command, so it stays deterministic and replayable.

use baccarat_table::shuffle::Seed;

/// A fresh seed from the OS (a shoe's seed on an RNG table; a simulation's
/// master seed when none is given).
pub fn os_seed() -> Result<Seed, String> {
    let mut s = [0u8; 32];
    getrandom::fill(&mut s).map_err(|e| format!("cannot read OS entropy for a seed: {e}"))?;
    Ok(Seed::from_bytes(s))
}

/// A fresh random token or password (hex of `bytes` random bytes).
pub fn random_hex(bytes: usize) -> String {
    let mut b = vec![0u8; bytes];
    getrandom::fill(&mut b).expect("OS entropy");
    baccarat_table::shuffle::hex(&b)
}

#[cfg(test)]
mod tests {
    #[test]
    fn two_seeds_differ() {
        assert_ne!(super::os_seed().unwrap(), super::os_seed().unwrap());
    }
}
