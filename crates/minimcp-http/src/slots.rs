//! The places for open connections (`--max-connections`), and which connection gives up
//! its place when every one is taken.
//!
//! A place is held by a thread blocked in `read`, so a peer that connects and sends nothing,
//! or dribbles a request head (slowloris), holds one as surely as a client being served,
//! and it takes its place before any token is seen. Refusing newcomers while the places are
//! full would let a few such peers, reconnecting whenever closed, keep every real client
//! out. So a newcomer takes the place of the connection that has waited longest for a
//! request with nothing in flight (a silent peer, a dribbling one, an idle keep-alive
//! client: none has anything to lose but the connection itself), which is closed. A
//! connection being served (a request read whole, an answer or event stream under way) is
//! never closed this way; only when all of them are does a newcomer get 503.
//!
//! Oldest first, because a real client sends its request at once: to lose its place before
//! its request is read, as many newer connections as there are places would have to arrive
//! in that moment. And a place counts as waiting only once its thread waits in `read`: a
//! connection accepted but not yet read from cannot be closed unseen.
//!
//! Each place's state is one atomic word, so marking a connection waiting or served costs no
//! lock on the request path; the lock is taken once per connection (taking and leaving a
//! place) and, when the places are full, to choose whom to close.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::link::Link;
use minimcp_base::log;

/// A place's state: its connection is running (or the place is free).
const RUNNING: u64 = 0;
/// Its connection was closed to make room.
const CLOSED: u64 = u64::MAX;

/// How often at most a line says that connections were closed or refused, with how many
/// since the last line: a flood of them must not become a flood of log lines.
const LOG_EVERY: Duration = Duration::from_secs(10);

/// The places, at most `--max-connections`.
pub(crate) struct Slots {
    places: Box<[Place]>,
    /// Which places are free, and who owns the others.
    owners: Mutex<Vec<Option<u64>>>,
    /// Numbers for owners, and for waits: a smaller wait number waited longer.
    next: AtomicU64,
    closed: Tally,
    refused: Tally,
}

struct Place {
    /// [`RUNNING`], [`CLOSED`], or the number of the wait its connection is in.
    state: AtomicU64,
    link: Mutex<Option<Arc<Link>>>,
}

/// A connection's place, left on drop (unless the connection was closed to make room, and
/// the place is someone else's now).
pub(crate) struct Slot<'s> {
    slots: &'s Slots,
    index: usize,
    owner: u64,
    /// The number of the wait this connection is in, while it waits for a request.
    wait: u64,
}

impl Slots {
    pub(crate) fn new(max: usize) -> Self {
        Slots {
            places: (0..max)
                .map(|_| Place {
                    state: AtomicU64::new(RUNNING),
                    link: Mutex::new(None),
                })
                .collect(),
            owners: Mutex::new(vec![None; max]),
            next: AtomicU64::new(1),
            closed: Tally::default(),
            refused: Tally::default(),
        }
    }

    /// A place for the connection `link`: a free one, else the place of the connection
    /// that waited longest, which is closed. `None` when every connection is being served
    /// (the newcomer is refused; this is logged, at most every ten seconds).
    pub(crate) fn admit(&self, link: &Arc<Link>) -> Option<Slot<'_>> {
        let owner = self.next.fetch_add(1, Ordering::Relaxed);
        let mut owners = lock(&self.owners);
        let index = match owners.iter().position(Option::is_none) {
            Some(free) => free,
            None => match self.close_longest_waiting() {
                Some(index) => index,
                None => {
                    drop(owners);
                    let max = self.places.len();
                    self.refused.count(|counted| {
                        log::warn(format_args!(
                            "{counted} refused with 503: all {max} connections of --max-connections are being served"
                        ))
                    });
                    return None;
                }
            },
        };
        owners[index] = Some(owner);
        let place = &self.places[index];
        *lock(&place.link) = Some(Arc::clone(link));
        place.state.store(RUNNING, Ordering::Release);
        Some(Slot {
            slots: self,
            index,
            owner,
            wait: 0,
        })
    }

    /// Closes the connection waiting longest with nothing in flight; its place's index.
    /// Called with `owners` locked, so no place changes hands meanwhile.
    fn close_longest_waiting(&self) -> Option<usize> {
        loop {
            let (index, wait) = self
                .places
                .iter()
                .enumerate()
                .filter_map(|(i, place)| {
                    let state = place.state.load(Ordering::Acquire);
                    (state != RUNNING && state != CLOSED).then_some((i, state))
                })
                .filter(|(i, _)| {
                    // An answer or event stream still being written: being served.
                    lock(&self.places[*i].link)
                        .as_ref()
                        .is_some_and(|link| !link.is_busy())
                })
                .min_by_key(|(_, wait)| *wait)?;
            // Its thread may have read a request meanwhile: then choose again. (A link
            // becomes busy only after its thread took its place back, which this fails.)
            let place = &self.places[index];
            let taken =
                place
                    .state
                    .compare_exchange(wait, CLOSED, Ordering::AcqRel, Ordering::Acquire);
            if taken.is_ok() {
                if let Some(link) = lock(&place.link).take() {
                    link.cut();
                }
                let max = self.places.len();
                self.closed.count(|counted| {
                    log::warn(format_args!(
                        "{counted} closed to make room for newer ones (all {max} connections of --max-connections were open; those closed had waited longest for a request)"
                    ))
                });
                return Some(index);
            }
        }
    }
}

impl Slot<'_> {
    /// The connection waits for its next request: from now until [`Slot::served`], it may
    /// be closed to make room. A wait goes on across `Idle` reads that end without a byte.
    pub(crate) fn wait(&mut self) {
        if self.wait == 0 {
            self.wait = self.slots.next.fetch_add(1, Ordering::Relaxed);
        }
        // The place is RUNNING, and only its own thread changes a RUNNING place's state:
        // it can be closed only while it waits, and its thread then stops at `served`.
        let place = &self.slots.places[self.index];
        place.state.store(self.wait, Ordering::Release);
    }

    /// The wait ended (a request was read, or reading failed): true when the place is
    /// still this connection's, false when it was closed to make room meanwhile (then
    /// whatever was read is dropped: the connection is shut).
    pub(crate) fn served(&mut self) -> bool {
        let place = &self.slots.places[self.index];
        place
            .state
            .compare_exchange(self.wait, RUNNING, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// The next [`Slot::wait`] starts a new wait (a request was served).
    pub(crate) fn next_request(&mut self) {
        self.wait = 0;
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut owners = lock(&self.slots.owners);
        if owners[self.index] == Some(self.owner) {
            owners[self.index] = None;
            let place = &self.slots.places[self.index];
            *lock(&place.link) = None;
            place.state.store(RUNNING, Ordering::Release);
        }
    }
}

/// Counts events and logs them at most every [`LOG_EVERY`]: the first at once, then one
/// line for all those since.
#[derive(Default)]
struct Tally {
    state: Mutex<(Option<Instant>, u64)>,
}

impl Tally {
    /// Counts one; calls `say` with what to call them when a line is due: "a connection",
    /// then "N connections in the last S s".
    fn count(&self, say: impl FnOnce(&str)) {
        let mut state = lock(&self.state);
        let (last, count) = &mut *state;
        *count += 1;
        let counted = match last {
            None => "a connection".to_string(),
            Some(at) if at.elapsed() >= LOG_EVERY => {
                let secs = at.elapsed().as_secs();
                format!("{count} connections in the last {secs} s")
            }
            Some(_) => return,
        };
        *count = 0;
        *last = Some(Instant::now());
        drop(state);
        say(&counted);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing panics while holding these locks; a poisoned one still holds sound state.
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::tests::pair;
    use std::io::Read;

    #[test]
    fn the_longest_waiting_connection_gives_way_and_a_busy_one_never() {
        let slots = Slots::new(2);
        let (a, mut a_client) = pair(1024);
        let (b, _b_client) = pair(1024);
        let mut a_slot = slots.admit(&a).expect("a free place");
        let mut b_slot = slots.admit(&b).expect("a free place");
        // Accepted but not yet waiting: nobody can be closed unseen.
        let (c, _c_client) = pair(1024);
        assert!(slots.admit(&c).is_none(), "both running");
        a_slot.wait();
        b_slot.wait();
        let c_slot = slots.admit(&c).expect("the place of the longest waiting");
        assert!(!a_slot.served(), "a was closed");
        let mut buf = [0u8; 1];
        assert_eq!(a_client.read(&mut buf).ok(), Some(0), "shut");
        assert!(b_slot.served(), "b keeps its place");
        drop(a_slot); // leaves nothing: the place is c's now
        let (d, _d_client) = pair(1024);
        assert!(slots.admit(&d).is_none(), "b and c run");

        // b waits again, but its answer is still being written: it is being served.
        b.begin(false);
        b_slot.next_request();
        b_slot.wait();
        assert!(
            slots.admit(&d).is_none(),
            "an answer under way is never cut"
        );
        b.end(b"done");
        let d_slot = slots.admit(&d).expect("b's answer is out");
        assert!(!b_slot.served());
        drop((b_slot, c_slot));
        let (e, _e_client) = pair(1024);
        assert!(slots.admit(&e).is_some(), "c's place is free again");
        drop(d_slot);
    }

    /// What the rule says, kept apart from the code: a connection's place, from the
    /// outside.
    #[derive(Clone, Copy, PartialEq, Debug)]
    enum Model {
        Running,
        /// Waiting since this (the model's own count of waits begun).
        Waiting(u64),
        /// Closed to make room; its thread has not noticed yet.
        Closed,
    }

    /// Random admissions, waits, reads, answers and departures against the rule as stated
    /// (a free place; else close the connection that began waiting first among those
    /// waiting with no answer under way; else refuse): who gets a place, who is closed and
    /// what each thread is told agree with it at every step. `.ci/run` runs it longer with
    /// a fresh seed (`MINIMCP_SLOTS_FUZZ_SEED=random`, `MINIMCP_SLOTS_FUZZ_STEPS`).
    #[test]
    fn random_traffic_follows_the_rule() {
        let seed = match std::env::var("MINIMCP_SLOTS_FUZZ_SEED").ok().as_deref() {
            None => 0x5EED_0F5A,
            Some("random") => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64),
            Some(s) => s
                .parse()
                .expect("MINIMCP_SLOTS_FUZZ_SEED is a number or `random`"),
        };
        let steps: usize = std::env::var("MINIMCP_SLOTS_FUZZ_STEPS").map_or(3000, |n| {
            n.parse().expect("MINIMCP_SLOTS_FUZZ_STEPS is a number")
        });
        eprintln!("slots fuzz: seed {seed}, {steps} steps");
        let mut rng = seed;
        let mut next = move |n: usize| {
            rng = rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = rng;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) % n as u64) as usize
        };
        let max = 4;
        let slots = Slots::new(max);
        // Each open connection: its link, its place, what the model says, whether an
        // answer is under way, and the wait it is in (0: none begun).
        let mut open: Vec<(Arc<Link>, Slot<'_>, Model, bool, u64)> = Vec::new();
        let mut waits = 0;
        let mut closed_seen = 0;
        for step in 0..steps {
            let at = |n: usize| format!("seed {seed}, step {step}, connection {n}");
            let holding = open.iter().filter(|c| c.2 != Model::Closed).count();
            assert!(holding <= max, "{}", at(0));
            match next(6) {
                0 => {
                    let (link, _client) = pair(1024);
                    let victim = open
                        .iter()
                        .enumerate()
                        .filter_map(|(i, c)| match c.2 {
                            Model::Waiting(since) if !c.3 => Some((since, i)),
                            _ => None,
                        })
                        .min();
                    let admitted = slots.admit(&link);
                    match (holding < max, victim) {
                        (true, _) => {}
                        (false, Some((_, i))) => open[i].2 = Model::Closed,
                        (false, None) => {
                            assert!(admitted.is_none(), "{}: refused", at(open.len()));
                            continue;
                        }
                    }
                    let slot = admitted.unwrap_or_else(|| panic!("{}: admitted", at(open.len())));
                    open.push((link, slot, Model::Running, false, 0));
                }
                _ if open.is_empty() => {}
                choice => {
                    let i = next(open.len());
                    let c = &mut open[i];
                    let mut leaves = false;
                    match (choice, c.2) {
                        (1, Model::Running) => {
                            if c.4 == 0 {
                                waits += 1;
                                c.4 = waits;
                            }
                            c.1.wait();
                            c.2 = Model::Waiting(c.4);
                        }
                        (2, Model::Waiting(_)) => {
                            assert!(c.1.served(), "{}: kept its place", at(i));
                            c.2 = Model::Running;
                        }
                        (2, Model::Closed) => {
                            assert!(!c.1.served(), "{}: told it was closed", at(i));
                            leaves = true;
                            closed_seen += 1;
                        }
                        (3, Model::Running) => {
                            // A request read whole: the next wait is a new one; its answer
                            // may take a while.
                            c.1.next_request();
                            c.4 = 0;
                            if next(2) == 0 {
                                c.0.begin(false);
                                c.3 = true;
                            }
                        }
                        (4, _) if c.3 => {
                            c.0.end(b"");
                            c.3 = false;
                        }
                        (5, Model::Running) => leaves = true,
                        _ => {}
                    }
                    if leaves {
                        open.remove(i);
                    }
                }
            }
        }
        assert!(
            closed_seen > steps / 60,
            "the traffic closed connections: {closed_seen}"
        );
    }

    #[test]
    fn a_flood_of_events_is_one_line_then_one_line_per_period() {
        let tally = Tally::default();
        let mut lines = Vec::new();
        for _ in 0..1000 {
            tally.count(|what| lines.push(what.to_string()));
        }
        assert_eq!(lines, ["a connection"]);
        lock(&tally.state).0 = Instant::now().checked_sub(LOG_EVERY);
        tally.count(|what| lines.push(what.to_string()));
        assert_eq!(lines.len(), 2);
        assert!(
            lines[1].starts_with("1000 connections in the last 1"),
            "{lines:?}"
        );
    }
}
