//! The machine's cores, shared by the column functions' calls at once.
//!
//! A call cuts a long column into as many parts as the machine has cores, all but one on
//! threads of its own. Calls made at once (Polars' streaming engine hands batches over from
//! several threads, each call without the GIL; a user's own thread pool) would each do so:
//! `n` calls on `n` cores, `n * n` threads. A call by default takes the threads it runs
//! beside its own from one budget, the cores less one, and gives them back when it ends:
//! what others hold leaves it fewer, down to its own thread alone. (A call given `threads=`
//! takes what it asks for.)

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// How many threads the machine runs at once (asked once).
pub fn count() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Threads beyond the callers' own: how many are running, of how many at most.
///
/// The count is kept with the process it is of, in one word (the pid above, the count
/// below): a process forked while a call ran inherits the count but not the threads that
/// would give it back, and starts its own at nothing.
pub struct Budget {
    state: AtomicU64,
    most: fn() -> usize,
    /// The process asking (`std::process::id`; another in the tests).
    pid: fn() -> u32,
}

/// The process's: the cores less one (each caller has its own thread).
pub static SPARE: Budget = Budget {
    state: AtomicU64::new(0),
    most: || count() - 1,
    pid: std::process::id,
};

/// Threads taken from a budget, given back when dropped.
pub struct Taken<'a> {
    budget: &'a Budget,
    count: usize,
    pid: u32,
}

/// The word of a process's count.
fn word(pid: u32, running: usize) -> u64 {
    (u64::from(pid) << 32) | running as u64
}

impl Budget {
    /// How many are running in process `pid`, from the word.
    fn running(state: u64, pid: u32) -> usize {
        if (state >> 32) as u32 == pid {
            (state & u64::from(u32::MAX)) as usize
        } else {
            0
        }
    }

    /// Up to `wanted` threads, as many as are free.
    pub fn take(&self, wanted: usize) -> Taken<'_> {
        let (most, pid) = ((self.most)().min(u32::MAX as usize), (self.pid)());
        let mut state = self.state.load(Ordering::Relaxed);
        loop {
            let running = Self::running(state, pid);
            let count = wanted.min(most.saturating_sub(running));
            if count == 0 {
                return Taken {
                    budget: self,
                    count,
                    pid,
                };
            }
            match self.state.compare_exchange_weak(
                state,
                word(pid, running + count),
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    return Taken {
                        budget: self,
                        count,
                        pid,
                    }
                }
                Err(now) => state = now,
            }
        }
    }
}

impl Taken<'_> {
    pub fn count(&self) -> usize {
        self.count
    }
}

impl Drop for Taken<'_> {
    /// Given back to the count of the process they were taken in (none other's).
    fn drop(&mut self) {
        if self.count == 0 {
            return;
        }
        let _ = self
            .budget
            .state
            .fetch_update(Ordering::AcqRel, Ordering::Relaxed, |state| {
                let running = Budget::running(state, self.pid);
                (running > 0).then(|| word(self.pid, running.saturating_sub(self.count)))
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_at_once_share_the_spare_threads_and_give_them_back() {
        let budget = Budget {
            state: AtomicU64::new(0),
            most: || 3,
            pid: || 7,
        };
        let running = |b: &Budget| Budget::running(b.state.load(Ordering::Relaxed), 7);
        let first = budget.take(2);
        assert_eq!(first.count(), 2);
        let second = budget.take(2);
        assert_eq!(second.count(), 1, "what the first left");
        assert_eq!(
            budget.take(5).count(),
            0,
            "none left: the caller's thread alone"
        );
        drop(first);
        assert_eq!(budget.take(5).count(), 2);
        drop(second);
        assert_eq!(budget.take(5).count(), 3);
        assert_eq!(running(&budget), 0, "all given back");
        // Taken from many threads at once: never more than the most, all given back.
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..1000 {
                        let taken = budget.take(2);
                        assert!(running(&budget) <= 3);
                        drop(taken);
                    }
                });
            }
        });
        assert_eq!(running(&budget), 0);
    }

    /// A process forked while a call held threads starts at nothing, and what a call of
    /// the process it was forked from gives back leaves its count alone.
    #[test]
    fn a_forked_process_starts_its_own_count() {
        use std::sync::atomic::AtomicU32;
        static PID: AtomicU32 = AtomicU32::new(1);
        let budget = Budget {
            state: AtomicU64::new(0),
            most: || 3,
            pid: || PID.load(Ordering::Relaxed),
        };
        let parents = budget.take(3);
        assert_eq!(budget.take(1).count(), 0);
        PID.store(2, Ordering::Relaxed);
        let childs = budget.take(2);
        assert_eq!(childs.count(), 2, "the parent's count is not the child's");
        drop(parents);
        assert_eq!(budget.take(5).count(), 1);
        drop(childs);
        assert_eq!(budget.take(5).count(), 3);
        assert_eq!(Budget::running(budget.state.load(Ordering::Relaxed), 2), 0);
    }
}
