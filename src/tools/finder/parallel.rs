//! The same search on several threads, for the command line and the
//! bench (a Web Worker has one thread; the page runs `Finder` in slices).
//!
//! Each depth's pass first makes the states of the first few moves, breadth
//! first, until there are enough of them to share out; then each thread
//! takes one at a time and walks everything below it depth-first, as
//! `Finder` does, meeting every state it makes in one table the threads
//! share. The states within a depth are the same whatever the order they
//! are met in (a state met again in fewer moves is explored again, on
//! whichever thread meets it so), so a pass that finds nothing ends with
//! the same count as the search on one thread.
//!
//! Which trace a search finds first, and where a state limit cuts it, do
//! depend on the order. So a pass that breaks the property or fills the
//! table is searched again by `Finder` on one thread, from that depth: the
//! outcome is always the one `finder::find` gives, byte for byte.

use super::visited::{Meeting, Table, Visited, DEPTH_BITS};
use super::{
    apply, look_ahead, moves, FindError, Finder, Outcome, Plan, Progress, Request, Sim, Spares,
    Walk,
};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Mutex, PoisonError};
use std::time::Duration;

/// States made breadth first before the threads start: enough for each
/// thread to take many in turn, so that none is left with a large one
/// alone at the end.
const STARTS_PER_THREAD: usize = 64;

/// How often the caller hears of the search's progress while the threads
/// work.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// Runs a whole search on `threads` threads, calling `on_progress` about
/// ten times a second and after each depth; it returns false to cancel.
/// The outcome is the one `super::find` gives.
pub fn find(
    request: &Request,
    threads: usize,
    mut on_progress: impl FnMut(&Progress) -> bool,
) -> Result<Outcome, FindError> {
    let mut finder = Finder::new(request)?;
    if threads <= 1 || finder.outcome.is_some() {
        return Ok(finder.finish(on_progress));
    }
    let table = Shared::new();
    let mut explored = 0;
    let mut last = 0;
    for limit in 1..=finder.plan.depth_max {
        table.clear();
        let pass = Pass {
            plan: &finder.plan,
            limit,
            table: &table,
            stop: AtomicBool::new(false),
            broke: AtomicBool::new(false),
            explored: AtomicU64::new(0),
        };
        let progress = |pass: &Pass| Progress {
            depth: limit,
            depth_done: limit - 1,
            states: table.len(),
            explored: explored + pass.explored.load(Ordering::Relaxed),
            distinct: finder.distinct_before + table.len(),
        };
        match pass.run(&finder.root, threads, |p| on_progress(&progress(p))) {
            Ended::Searched => {}
            Ended::Cancelled => {
                return Ok(Outcome::Cancelled {
                    depth: limit - 1,
                    states: table.len(),
                })
            }
            Ended::Stopped => {
                // The search on one thread takes this depth over, where
                // every depth before it found nothing.
                finder.walk.limit = limit - 1;
                return Ok(finder.finish(on_progress));
            }
        }
        explored += pass.explored.load(Ordering::Relaxed);
        last = table.len();
        finder.depth_done = limit;
        finder.distinct_before += last;
        // As `Finder` tells it once the next depth has begun.
        let next = Progress {
            depth: limit + 1,
            depth_done: limit,
            states: 0,
            explored,
            distinct: finder.distinct_before,
        };
        if limit < finder.plan.depth_max && !on_progress(&next) {
            return Ok(Outcome::Cancelled {
                depth: limit,
                states: 0,
            });
        }
    }
    Ok(Outcome::NoneWithin {
        depth: finder.depth_done,
        states: last,
    })
}

/// How a pass on several threads ended.
enum Ended {
    /// Every state within the pass's depth explored: nothing broke.
    Searched,
    /// A state broke the property, or the table reached its limit.
    Stopped,
    Cancelled,
}

/// One depth's pass on several threads.
struct Pass<'a> {
    plan: &'a Plan,
    limit: u32,
    table: &'a Shared,
    /// Set for every thread to stop at its next state.
    stop: AtomicBool,
    /// A thread found the property broken or the table full.
    broke: AtomicBool,
    explored: AtomicU64,
}

impl Pass<'_> {
    fn run(&self, root: &Sim, threads: usize, mut on_progress: impl FnMut(&Self) -> bool) -> Ended {
        let Some((starts, depth)) = self.starts(root, threads * STARTS_PER_THREAD) else {
            return Ended::Stopped;
        };
        let starts = Mutex::new(starts);
        let cancelled = std::thread::scope(|scope| {
            let (done, finished) = mpsc::channel();
            for _ in 0..threads {
                let done = done.clone();
                let starts = &starts;
                scope.spawn(move || {
                    self.walk_below(starts, depth);
                    // The receiver waits for every thread: it is there.
                    let _ = done.send(());
                });
            }
            // Only the threads hold a sender now: should one panic, the
            // channel closes once the others end, and the scope passes
            // the panic on.
            drop(done);
            let mut running = threads;
            let mut cancelled = false;
            while running > 0 {
                match finished.recv_timeout(PROGRESS_EVERY) {
                    Ok(()) => running -= 1,
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        if !cancelled && !on_progress(self) {
                            cancelled = true;
                            self.stop.store(true, Ordering::Relaxed);
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                }
            }
            cancelled
        });
        if self.broke.load(Ordering::Relaxed) {
            Ended::Stopped
        } else if cancelled {
            Ended::Cancelled
        } else {
            Ended::Searched
        }
    }

    /// The states the threads start from, all at one depth below the
    /// start, made breadth first until there are `enough` or the next
    /// depth is the pass's last; `None` when one of the states made
    /// breaks the property or the table is full. Each is met in the
    /// table, and run ahead, as the walk meets a state it will explore.
    /// Boxed, as the walk holds its states (`super::Spares`).
    #[allow(clippy::vec_box)]
    fn starts(&self, root: &Sim, enough: usize) -> Option<(Vec<Box<Sim>>, u32)> {
        let plan = self.plan;
        let mut spares = Spares::default();
        let mut level = vec![Box::new(root.snapshot())];
        let mut depth = 0;
        let mut table = self.table;
        let mut listed = Vec::new();
        while level.len() < enough && depth + 1 < self.limit {
            depth += 1;
            let mut next = Vec::new();
            for parent in &level {
                listed = moves(plan, parent, listed);
                for &m in &listed {
                    let Some((child, violated)) = apply(plan, parent, m, &mut spares) else {
                        continue;
                    };
                    self.explored.fetch_add(1, Ordering::Relaxed);
                    if violated.is_some() {
                        return None;
                    }
                    match table.meet(child.fingerprint(), depth, plan.states_max) {
                        Meeting::Again => spares.give(child),
                        Meeting::Full => return None,
                        Meeting::Closer | Meeting::New => {
                            if look_ahead(plan, &child, &mut spares).is_some() {
                                return None;
                            }
                            next.push(child);
                        }
                    }
                }
            }
            for parent in level {
                spares.give(parent);
            }
            level = next;
        }
        Some((level, depth))
    }

    /// One thread's work: walks below the states it takes from `starts`,
    /// each `depth` moves from the start, until none is left or a thread
    /// says stop.
    #[allow(clippy::vec_box)]
    fn walk_below(&self, starts: &Mutex<Vec<Box<Sim>>>, depth: u32) {
        /// States between two looks at the stop sign.
        const CHECK_EVERY: u64 = 1024;
        let mut walk = Walk::default();
        let mut table = self.table;
        let mut told = 0;
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            let start = starts.lock().unwrap_or_else(PoisonError::into_inner).pop();
            let Some(start) = start else {
                return;
            };
            walk.start(self.plan, start, depth, self.limit);
            while !walk.stack.is_empty() {
                walk.advance(self.plan, &mut table);
                if walk.end.is_some() {
                    self.broke.store(true, Ordering::Relaxed);
                    self.stop.store(true, Ordering::Relaxed);
                    return;
                }
                if walk.explored - told >= CHECK_EVERY {
                    self.explored
                        .fetch_add(walk.explored - told, Ordering::Relaxed);
                    told = walk.explored;
                    if self.stop.load(Ordering::Relaxed) {
                        return;
                    }
                }
            }
            self.explored
                .fetch_add(walk.explored - told, Ordering::Relaxed);
            told = walk.explored;
        }
    }
}

/// The states one pass has met, in a table the threads share: split by
/// fingerprint into parts, each behind its own lock, so that two threads
/// seldom wait for each other (a lookup holds its part for one or two
/// reads of memory).
struct Shared {
    parts: Box<[Part]>,
    len: AtomicU64,
}

/// A part of the shared table, on a cache line of its own, so that two
/// threads locking neighbouring parts do not pass the line between them.
#[repr(align(64))]
struct Part(Mutex<Visited>);

impl Shared {
    /// 256 parts: far more than threads.
    const PART_BITS: u32 = 8;

    fn new() -> Shared {
        Shared {
            parts: (0..1 << Self::PART_BITS)
                .map(|_| Part(Mutex::new(Visited::default())))
                .collect(),
            len: AtomicU64::new(0),
        }
    }

    fn len(&self) -> u64 {
        self.len.load(Ordering::Relaxed)
    }

    fn clear(&self) {
        for part in &self.parts {
            part.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clear();
        }
        self.len.store(0, Ordering::Relaxed);
    }

    /// The part a fingerprint belongs to, named by bits just above those
    /// a state's depth takes: a part's own table places a state by the
    /// fingerprint's top bits.
    fn part(&self, fingerprint: u64) -> &Mutex<Visited> {
        let at = (fingerprint >> DEPTH_BITS) as usize & ((1 << Self::PART_BITS) - 1);
        &self.parts[at].0
    }
}

impl Table for &Shared {
    fn meet(&mut self, fingerprint: u64, depth: u32, max: u64) -> Meeting {
        let met = self
            .part(fingerprint)
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .meet(fingerprint, depth, u64::MAX);
        if met == Meeting::New && self.len.fetch_add(1, Ordering::Relaxed) >= max {
            // One state past the limit is kept: the pass stops here and
            // is searched again on one thread, which keeps to the limit.
            return Meeting::Full;
        }
        met
    }

    fn prefetch(&self, fingerprint: u64) {
        // A part another thread holds is not waited for: this is a hint.
        if let Ok(part) = self.part(fingerprint).try_lock() {
            part.prefetch(fingerprint);
        }
    }
}
