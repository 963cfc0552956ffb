//! Sign-in under attack.
//!
//! A password guess costs the server an argon2 hash (19 MiB, tens of
//! milliseconds), so sign-in is where a stranger can spend the server's memory
//! and time. Three rules keep that bounded:
//!
//! * **A bounded pool.** Hashes run on [`SignIn::threads`] threads of their own
//!   (one per core), never under the users lock and never on the async runtime.
//!   Memory for hashing is at most one argon2 block per pool thread, whatever the
//!   number of attempts. Waiting attempts are queued, at most [`MAX_QUEUE`] per
//!   queue; beyond that the answer is 503 at once, with no hash.
//! * **The same cost for every name.** An unknown name is checked against a
//!   dummy hash with the same parameters (`auth::dummy_hash`), so a refusal's
//!   time does not tell whether a name exists.
//! * **Limits an attacker cannot turn against a real user.** Every limit counts
//!   *failures*; an attempt reserves its place and a correct password gives it
//!   back.
//!   - Per client address ([`ADDRESS_BURST`] failures, then one every
//!     [`ADDRESS_REFILL_MS`] ms): a spraying address is refused before hashing.
//!     IPv6 addresses count by their /64.
//!   - Per name ([`NAME_BURST`], one every [`NAME_REFILL_MS`] ms) and global
//!     ([`GLOBAL_BURST`], one every [`GLOBAL_REFILL_MS`] ms): these apply only
//!     to addresses that have failed recently. An address with no recent
//!     failure may always try (and its attempt is hashed ahead of the others),
//!     so guessing at a name can never lock its owner out: they sign in from
//!     their own address. The price is that an attacker with many addresses has
//!     one guess per fresh address.
//!
//! The limits read an injected clock, so tests decide what time it is.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Condvar, Mutex};

use tokio::sync::oneshot;

use crate::auth::{dummy_hash, verify_password_in, AuthError, Session, Users};
use baccarat_core::Clock;

/// Failures one address may make at once, and how fast it earns them back.
pub const ADDRESS_BURST: u64 = 10;
pub const ADDRESS_REFILL_MS: u64 = 6_000;
/// Failures on one name (from addresses that have failed) at once, and refill.
pub const NAME_BURST: u64 = 5;
pub const NAME_REFILL_MS: u64 = 12_000;
/// Failures across the casino (from addresses that have failed), and refill.
pub const GLOBAL_BURST: u64 = 200;
pub const GLOBAL_REFILL_MS: u64 = 50;
/// Attempts waiting for the pool, per queue.
pub const MAX_QUEUE: usize = 32;
/// Addresses and names remembered; past this, those with nothing against them
/// are forgotten first.
const MAX_REMEMBERED: usize = 100_000;

/// Why a sign-in did not open a session.
#[derive(Debug, thiserror::Error)]
pub enum SignInError {
    #[error("unknown name or wrong password")]
    BadLogin,
    #[error("too many failed sign-ins {0}; retry in {1} ms")]
    Limited(&'static str, u64),
    #[error("sign-in is busy; retry in a moment")]
    Busy,
    #[error("{0}")]
    Auth(#[from] AuthError),
}

/// A token bucket counting failures: `tokens` in thousandths.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    milli: u64,
    at: u64,
}

impl Bucket {
    fn full(burst: u64, now: u64) -> Bucket {
        Bucket { milli: burst * 1000, at: now }
    }

    fn refill(&mut self, burst: u64, every_ms: u64, now: u64) {
        let earned = now.saturating_sub(self.at) * 1000 / every_ms;
        self.milli = (self.milli + earned).min(burst * 1000);
        self.at = self.at.max(now);
    }

    fn wait(&self, every_ms: u64) -> u64 {
        (1000 - self.milli.min(1000)) * every_ms / 1000
    }
}

/// What an attempt reserved, given back on success.
#[derive(Clone, Debug)]
struct Reserved {
    addr: AddrKey,
    name: String,
    /// Whether the name and global buckets were charged (the address had failed).
    gated: bool,
}

/// An address as the limits count it (IPv6 by /64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum AddrKey {
    V4(u32),
    V6(u64),
}

impl From<IpAddr> for AddrKey {
    fn from(a: IpAddr) -> AddrKey {
        match a {
            IpAddr::V4(v) => AddrKey::V4(u32::from(v)),
            IpAddr::V6(v) => match v.to_ipv4_mapped() {
                Some(v4) => AddrKey::V4(u32::from(v4)),
                None => AddrKey::V6((u128::from(v) >> 64) as u64),
            },
        }
    }
}

#[derive(Default)]
struct Limits {
    addrs: HashMap<AddrKey, Bucket>,
    names: HashMap<String, Bucket>,
    global: Option<Bucket>,
}

impl Limits {
    fn addr(&mut self, k: AddrKey, now: u64) -> &mut Bucket {
        let b = self.addrs.entry(k).or_insert(Bucket::full(ADDRESS_BURST, now));
        b.refill(ADDRESS_BURST, ADDRESS_REFILL_MS, now);
        b
    }

    fn name(&mut self, n: &str, now: u64) -> &mut Bucket {
        let b = self.names.entry(n.to_string()).or_insert(Bucket::full(NAME_BURST, now));
        b.refill(NAME_BURST, NAME_REFILL_MS, now);
        b
    }

    fn global(&mut self, now: u64) -> &mut Bucket {
        let b = self.global.get_or_insert(Bucket::full(GLOBAL_BURST, now));
        b.refill(GLOBAL_BURST, GLOBAL_REFILL_MS, now);
        b
    }

    /// Admit an attempt or say why not, reserving its failure.
    fn admit(&mut self, addr: AddrKey, name: &str, now: u64) -> Result<Reserved, SignInError> {
        self.forget(now);
        let a = self.addr(addr, now);
        if a.milli < 1000 {
            return Err(SignInError::Limited("from this address", a.wait(ADDRESS_REFILL_MS)));
        }
        let gated = a.milli < ADDRESS_BURST * 1000;
        if gated {
            let n = self.name(name, now);
            if n.milli < 1000 {
                return Err(SignInError::Limited("for this name", n.wait(NAME_REFILL_MS)));
            }
            let g = self.global(now);
            if g.milli < 1000 {
                return Err(SignInError::Limited("on this server", g.wait(GLOBAL_REFILL_MS)));
            }
            self.name(name, now).milli -= 1000;
            self.global(now).milli -= 1000;
        }
        self.addr(addr, now).milli -= 1000;
        Ok(Reserved { addr, name: name.to_string(), gated })
    }

    /// The attempt succeeded: give back what it reserved.
    fn succeeded(&mut self, r: &Reserved, now: u64) {
        let a = self.addr(r.addr, now);
        a.milli = (a.milli + 1000).min(ADDRESS_BURST * 1000);
        if r.gated {
            let n = self.name(&r.name, now);
            n.milli = (n.milli + 1000).min(NAME_BURST * 1000);
            let g = self.global(now);
            g.milli = (g.milli + 1000).min(GLOBAL_BURST * 1000);
        }
    }

    /// The attempt failed from an address with no failures: it counts against
    /// the name and the casino too (for the addresses that have failed).
    fn failed(&mut self, r: &Reserved, now: u64) {
        if !r.gated {
            let n = self.name(&r.name, now);
            n.milli = n.milli.saturating_sub(1000);
            let g = self.global(now);
            g.milli = g.milli.saturating_sub(1000);
        }
    }

    /// Bound what is remembered: drop buckets that have refilled (they hold
    /// nothing against anyone), and if that is not enough, start over.
    fn forget(&mut self, now: u64) {
        if self.addrs.len() > MAX_REMEMBERED {
            self.addrs.retain(|_, b| {
                b.refill(ADDRESS_BURST, ADDRESS_REFILL_MS, now);
                b.milli < ADDRESS_BURST * 1000
            });
            if self.addrs.len() > MAX_REMEMBERED {
                self.addrs.clear();
            }
        }
        if self.names.len() > MAX_REMEMBERED {
            self.names.retain(|_, b| {
                b.refill(NAME_BURST, NAME_REFILL_MS, now);
                b.milli < NAME_BURST * 1000
            });
            if self.names.len() > MAX_REMEMBERED {
                self.names.clear();
            }
        }
    }
}

/// One password to check, and where the answer goes.
struct Job {
    hash: String,
    password: String,
    done: oneshot::Sender<bool>,
}

/// The two queues: attempts from addresses with no recent failure go first.
#[derive(Default)]
struct Queues {
    clean: VecDeque<Job>,
    gated: VecDeque<Job>,
}

/// The sign-in gate: limits, and the hashing pool.
pub struct SignIn {
    limits: Mutex<Limits>,
    queues: Arc<(Mutex<Queues>, Condvar)>,
    threads: usize,
    clock: Clock,
}

impl SignIn {
    /// A gate with one hashing thread per core.
    pub fn new(clock: Clock) -> SignIn {
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        SignIn::with_threads(threads, clock)
    }

    pub fn with_threads(threads: usize, clock: Clock) -> SignIn {
        let threads = threads.max(1);
        let queues: Arc<(Mutex<Queues>, Condvar)> = Arc::default();
        // The dummy hash is made once, before any attempt waits for it.
        let _ = dummy_hash();
        for i in 0..threads {
            let q = queues.clone();
            std::thread::Builder::new()
                .name(format!("sign-in-{i}"))
                .spawn(move || work(&q))
                .expect("spawn a sign-in thread");
        }
        SignIn { limits: Mutex::new(Limits::default()), queues, threads, clock }
    }

    /// The pool's size.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Check `name`'s password from `addr` and open a session.
    pub async fn sign_in(
        &self,
        users: &Arc<Users>,
        name: &str,
        password: &str,
        addr: IpAddr,
    ) -> Result<(String, Session), SignInError> {
        let reserved = self.limits.lock().expect("sign-in limits").admit(addr.into(), name, (self.clock)())?;
        let creds = match users.credentials(name) {
            Ok(c) => c,
            Err(e) => {
                self.limits.lock().expect("sign-in limits").succeeded(&reserved, (self.clock)());
                return Err(e.into());
            }
        };
        let hash = creds.as_ref().map_or_else(|| dummy_hash().to_string(), |c| c.hash.clone());
        let ok = match self.check(hash, password.to_string(), !reserved.gated) {
            Ok(rx) => rx.await.unwrap_or(false),
            Err(e) => {
                self.limits.lock().expect("sign-in limits").succeeded(&reserved, (self.clock)());
                return Err(e);
            }
        };
        let now = (self.clock)();
        match creds {
            Some(crate::auth::Credentials { id, role, hash }) if ok => {
                self.limits.lock().expect("sign-in limits").succeeded(&reserved, now);
                // Disabled, or given another password, since the check: no
                // session, answered as a wrong password (`Users::start_session`).
                match users.start_session(id, name, role, &hash) {
                    Err(AuthError::BadLogin) => Err(SignInError::BadLogin),
                    r => Ok(r?),
                }
            }
            _ => {
                self.limits.lock().expect("sign-in limits").failed(&reserved, now);
                Err(SignInError::BadLogin)
            }
        }
    }

    /// Check a password on the pool (for a password change too): the answer
    /// arrives on the receiver. Refused at once when the queue is full.
    pub fn check(&self, hash: String, password: String, first: bool) -> Result<oneshot::Receiver<bool>, SignInError> {
        let (done, rx) = oneshot::channel();
        let (lock, cv) = &*self.queues;
        let mut q = lock.lock().expect("sign-in queue");
        let queue = if first { &mut q.clean } else { &mut q.gated };
        if queue.len() >= MAX_QUEUE {
            return Err(SignInError::Busy);
        }
        queue.push_back(Job { hash, password, done });
        cv.notify_one();
        Ok(rx)
    }
}

/// A pool thread: take the next job, clean queue first, and hash.
fn work(q: &(Mutex<Queues>, Condvar)) {
    let (lock, cv) = q;
    // This thread's argon2 memory, allocated once and reused.
    let mut memory = Vec::new();
    loop {
        let job = {
            let mut g = lock.lock().expect("sign-in queue");
            loop {
                if let Some(j) = g.clean.pop_front().or_else(|| g.gated.pop_front()) {
                    break j;
                }
                g = cv.wait(g).expect("sign-in queue");
            }
        };
        // A caller that gave up (its request was dropped) costs no hash.
        if job.done.is_closed() {
            continue;
        }
        let ok = verify_password_in(&mut memory, &job.hash, &job.password);
        let _ = job.done.send(ok);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn addr(n: u8) -> AddrKey {
        AddrKey::from(IpAddr::V4(Ipv4Addr::new(10, 0, 0, n)))
    }

    #[test]
    fn an_address_that_keeps_failing_is_refused_before_hashing_and_earns_attempts_back() {
        let mut l = Limits::default();
        for i in 0..ADDRESS_BURST {
            let r = l.admit(addr(1), &format!("name{i}"), 0).expect("within the burst");
            l.failed(&r, 0);
        }
        match l.admit(addr(1), "anyone", 0) {
            Err(SignInError::Limited("from this address", wait)) => assert_eq!(wait, ADDRESS_REFILL_MS),
            other => panic!("{other:?}"),
        }
        assert!(l.admit(addr(1), "anyone", ADDRESS_REFILL_MS).is_ok(), "one more after the refill time");
    }

    #[test]
    fn guessing_at_a_name_does_not_lock_its_owner_out_from_a_clean_address() {
        let mut l = Limits::default();
        // Many addresses fail on "alice" until the name is exhausted.
        let mut refused = 0;
        for n in 0..50u8 {
            for _ in 0..3 {
                match l.admit(addr(n), "alice", 0) {
                    Ok(r) => l.failed(&r, 0),
                    Err(_) => refused += 1,
                }
            }
        }
        assert!(refused > 0, "failing addresses are refused on the name");
        assert!(matches!(l.admit(addr(7), "alice", 0), Err(SignInError::Limited(..))));
        // Alice, from her own address, is let through, and her success costs nothing.
        let r = l.admit(addr(200), "alice", 0).expect("a clean address may always try");
        l.succeeded(&r, 0);
        assert_eq!(l.addr(addr(200), 0).milli, ADDRESS_BURST * 1000);
    }

    #[test]
    fn a_success_gives_back_what_it_reserved() {
        let mut l = Limits::default();
        let r = l.admit(addr(1), "bob", 0).unwrap();
        l.failed(&r, 0);
        let name_before = l.name("bob", 0).milli;
        let r = l.admit(addr(1), "bob", 0).unwrap();
        assert!(r.gated, "the address has failed, so the name is charged");
        l.succeeded(&r, 0);
        assert_eq!(l.name("bob", 0).milli, name_before);
        assert_eq!(l.addr(addr(1), 0).milli, (ADDRESS_BURST - 1) * 1000);
    }

    #[test]
    fn ipv6_addresses_count_by_their_slash_64() {
        let a: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(AddrKey::from(a), AddrKey::from(b));
        assert_ne!(AddrKey::from(a), AddrKey::from(c));
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(AddrKey::from(mapped), addr(1));
    }

    /// The pool's verification (memory kept between calls) agrees with the
    /// argon2 crate's, for right and wrong passwords, on the same memory.
    #[test]
    fn verification_in_kept_memory_agrees_with_argon2() {
        let mut memory = Vec::new();
        let h = crate::auth::hash_password("s3cret");
        assert!(verify_password_in(&mut memory, &h, "s3cret"));
        assert!(!verify_password_in(&mut memory, &h, "s3cret "));
        assert!(verify_password_in(&mut memory, &h, "s3cret"), "the reused memory changes nothing");
        assert!(!verify_password_in(&mut memory, "not a hash", "s3cret"));
        assert!(!verify_password_in(&mut memory, dummy_hash(), ""));
    }

    #[test]
    fn remembered_buckets_are_bounded() {
        let mut l = Limits::default();
        for i in 0..(MAX_REMEMBERED as u32 + 10) {
            let k = AddrKey::V4(i);
            l.addrs.insert(k, Bucket::full(ADDRESS_BURST, 0));
        }
        l.forget(0);
        assert!(l.addrs.is_empty(), "full buckets hold nothing against anyone");
    }
}
