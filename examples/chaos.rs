//! The workload of `simpy_lock.py` beside it, run on the project's own core:
//! `cargo run --profile worker --example chaos -- [VIRTUAL_SECONDS]` prints
//! virtual seconds simulated per wall second; `scripts/budgets/peers.sh`
//! runs both in turn and prints their ratio.
//! Four clients cycle acquire -> 1..6 x (10% a 1-9 s GC pause, wait up to TTL/3, write) -> release,
//! on the etcd backend, TTL 5 s. Each message takes 5-20 ms, as in the SimPy model: etcd's own
//! 2.5-10 ms round trip at latency scale 2. Each Sim runs until its script is nearly full (the
//! core keeps at most 1,000 commands), then a new seed starts.
//!
//! The driver acts as the SimPy processes do: a client waiting for the lock acts the moment its
//! belief settles (granted or refused), as a SimPy process resumes when its reply arrives, rather
//! than looking again every few milliseconds; the others act at the times they drew.
use distlock::sim::rng::ChaCha8Rng;
use distlock::sim::{Backend, Belief, ClientId, Command, Config, Millis, Seed, Sim};
use rand::{RngExt, SeedableRng};
use std::time::Instant;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Start,
    /// Asked for the lock; acts when the belief is no longer acquiring or waiting.
    Acquiring,
    Writing {
        left: u32,
    },
}

/// When a client acts next: never by the clock while it waits for the lock.
const ON_ANSWER: u64 = u64::MAX;

fn settled(belief: Belief) -> bool {
    matches!(belief, Belief::Holding { .. } | Belief::Idle)
}

fn main() {
    let seconds: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let ttl = 5_000u64;
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let started = Instant::now();
    let (mut virtual_ms, mut events, mut writes, mut sims) = (0u64, 0u64, 0u64, 0u64);
    while virtual_ms < seconds * 1000 {
        sims += 1;
        let config = Config {
            backend: Backend::Etcd,
            ttl_ms: ttl,
            seed: Seed(sims),
            latency_scale: 2,
            ..Config::default()
        };
        let mut sim = Sim::new(config).unwrap();
        let mut next = [0u64; 4];
        let mut phase = [Phase::Start; 4];
        let mut commands = 0;
        while commands < 950 {
            let (mut i, &due) = next.iter().enumerate().min_by_key(|(_, t)| **t).unwrap();
            // Runs the events up to `due`, stopping early when a client waiting for the
            // lock hears its answer.
            let mut answered = None;
            while answered.is_none() {
                match sim.next_event_at() {
                    Some(at) if at.0 <= due => {
                        sim.step();
                    }
                    _ => break,
                }
                answered = (0..4).find(|&k| {
                    phase[k] == Phase::Acquiring
                        && settled(sim.belief(ClientId::new(k as u8).unwrap()))
                });
            }
            let t = match answered {
                Some(k) => {
                    i = k;
                    sim.now().0
                }
                None if due == ON_ANSWER => break,
                None => {
                    sim.run_until(Millis(due));
                    due
                }
            };
            let c = ClientId::new(i as u8).unwrap();
            let mut cmd = |sim: &mut Sim, command| {
                commands += 1;
                let _ = sim.command(c, command);
            };
            if let Some(until) = sim.paused_until(c) {
                next[i] = until.0.max(t + 1);
                continue;
            }
            let belief = sim.belief(c);
            match phase[i] {
                Phase::Start => {
                    cmd(&mut sim, Command::Acquire);
                    phase[i] = Phase::Acquiring;
                    next[i] = ON_ANSWER;
                }
                Phase::Acquiring => match belief {
                    Belief::Holding { .. } => {
                        phase[i] = Phase::Writing {
                            left: rng.random_range(1..=6),
                        };
                        next[i] = t;
                    }
                    _ => {
                        phase[i] = Phase::Start;
                        next[i] = t + rng.random_range(100..=1000);
                    }
                },
                Phase::Writing { left } => {
                    if !belief.is_holding() {
                        phase[i] = Phase::Start;
                        next[i] = t + rng.random_range(100..=1000);
                        continue;
                    }
                    if left == 0 {
                        cmd(&mut sim, Command::Release);
                        phase[i] = Phase::Start;
                        next[i] = t + rng.random_range(5..=20);
                        continue;
                    }
                    if rng.random_range(0..10) == 0 {
                        cmd(
                            &mut sim,
                            Command::GcPause {
                                pause_ms: rng.random_range(1_000..=9_000),
                            },
                        );
                    }
                    cmd(&mut sim, Command::Write);
                    writes += 1;
                    phase[i] = Phase::Writing { left: left - 1 };
                    next[i] = t + rng.random_range(0..=ttl / 3);
                }
            }
        }
        virtual_ms += sim.now().0;
        events += sim.events_run();
    }
    let wall = started.elapsed().as_secs_f64();
    println!("distlock core: {:.0} virtual s in {:.3} s wall = {:.0} virtual s per s; {:.0} events/s; {} runs, {} writes",
        virtual_ms as f64 / 1000.0, wall, virtual_ms as f64 / 1000.0 / wall, events as f64 / wall, sims, writes);
}
