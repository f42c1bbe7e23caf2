//! The machine's cores, shared by the column functions' calls at once.
//!
//! A call cuts a long column into as many parts as the machine has cores, all but one on
//! threads of its own. Calls made at once (Polars' streaming engine hands batches over from
//! several threads, each call without the GIL; a user's own thread pool) would each do so:
//! `n` calls on `n` cores, `n * n` threads. A call by default takes the threads it runs
//! beside its own from one budget, the cores less one, and gives them back when it ends:
//! what others hold leaves it fewer, down to its own thread alone. (A call given `threads=`
//! takes what it asks for.)

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// How many threads the machine runs at once (asked once).
pub fn count() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Threads beyond the callers' own: how many are running, of how many at most.
pub struct Budget {
    running: AtomicUsize,
    most: fn() -> usize,
}

/// The process's: the cores less one (each caller has its own thread).
pub static SPARE: Budget = Budget {
    running: AtomicUsize::new(0),
    most: || count() - 1,
};

/// Threads taken from a budget, given back when dropped.
pub struct Taken<'a> {
    budget: &'a Budget,
    count: usize,
}

impl Budget {
    /// Up to `wanted` threads, as many as are free.
    pub fn take(&self, wanted: usize) -> Taken<'_> {
        let most = (self.most)();
        let mut running = self.running.load(Ordering::Relaxed);
        loop {
            let count = wanted.min(most.saturating_sub(running));
            if count == 0 {
                return Taken {
                    budget: self,
                    count,
                };
            }
            match self.running.compare_exchange_weak(
                running,
                running + count,
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    return Taken {
                        budget: self,
                        count,
                    }
                }
                Err(now) => running = now,
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
    fn drop(&mut self) {
        self.budget.running.fetch_sub(self.count, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_at_once_share_the_spare_threads_and_give_them_back() {
        let budget = Budget {
            running: AtomicUsize::new(0),
            most: || 3,
        };
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
        assert_eq!(budget.running.load(Ordering::Relaxed), 0, "all given back");
        // Taken from many threads at once: never more than the most, all given back.
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..1000 {
                        let taken = budget.take(2);
                        assert!(budget.running.load(Ordering::Relaxed) <= 3);
                        drop(taken);
                    }
                });
            }
        });
        assert_eq!(budget.running.load(Ordering::Relaxed), 0);
    }
}
