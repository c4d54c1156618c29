//! Spanner's TrueTime leader leases, the articles' contrast: a leader whose
//! clock has an honest error bar knows when its lease is over, even after a
//! pause; a leader whose clock merely runs slow does not.
//!
//! Not a lock backend: in Spanner the lock (the leader lease) and the data
//! are one Paxos-replicated state, with no client lease and no separate
//! resource, so the eight systems' machinery has nothing to hold. The lesson
//! is the clock, told here as one short story computed from the rules:
//! leaders L1 and L2, three replicas, a 10 s lease, and L1 frozen for 6 s.
//! Integer milliseconds of true time throughout.

pub mod draw;

use crate::words::signed_seconds_3;

/// How L1 reads the time. The replicas and L2 always use TrueTime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum L1Clock {
    /// TrueTime: `TT.now()` is [earliest, latest], true time ± ε.
    #[default]
    TrueTime,
    /// A plain clock with no error bar that runs 20% slow (right at t=0:
    /// offsets cancel, the rate does not).
    Slow,
}

/// TrueTime's uncertainty ε. In Spanner it is a sawtooth of about 1-7 ms,
/// 4 ms most of the time; the story holds it at 4 ms.
pub const EPSILON_MS: i64 = 4;
/// Spanner's default leader lease.
pub const LEASE_MS: i64 = 10_000;
/// One-way message latency between any two nodes.
pub const HOP_MS: i64 = 1;
/// L1 freezes mid-write at 5 s for 6 s: past its lease end, and waking
/// after L2's commit but before a 20%-slow clock reads 10 s (true 12.5 s).
pub const PAUSE_AT_MS: i64 = 5_000;
pub const PAUSE_MS: i64 = 6_000;
/// L2 first asks for votes, having heard nothing from L1 for 4 s.
pub const L2_ASKS_MS: i64 = 9_000;
/// L2 writes x=2.
pub const L2_WRITES_MS: i64 = 10_500;

/// A stretch of true time, `[from_ms, to_ms)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval {
    pub from_ms: i64,
    pub to_ms: i64,
}

impl Interval {
    pub fn overlaps(&self, other: &Interval) -> bool {
        self.from_ms < other.to_ms && other.from_ms < self.to_ms
    }
}

/// One moment of the story, told as a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub at_ms: i64,
    pub text: String,
    /// The moment something went wrong (the stale read).
    pub alarm: bool,
}

/// The story run with one of L1's clocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Story {
    pub clock: L1Clock,
    /// In order of true time.
    pub events: Vec<Event>,
    /// L1's lease as the replicas hold it: from their votes until they may
    /// vote for anyone else.
    pub l1_real: Interval,
    /// L1's lease as L1 reckons it: while it would serve, in true time.
    pub l1_reckoned: Interval,
    /// L2's lease, from its quorum until `TT.before(lease end)` fails.
    pub l2: Interval,
    pub pause: Interval,
    /// When L2 acknowledged x=2, its commit wait over.
    pub l2_commit_ms: i64,
    /// When L1 answered a read from its lease that missed x=2, if it did.
    pub stale_read_ms: Option<i64>,
}

/// `TT.now()` at true time `t_ms`: [earliest, latest].
pub fn tt_now(t_ms: i64) -> (i64, i64) {
    (t_ms - EPSILON_MS, t_ms + EPSILON_MS)
}

/// The first true millisecond from which `TT.after(x)` holds (earliest > x).
fn tt_after_from(x_ms: i64) -> i64 {
    x_ms + EPSILON_MS + 1
}

/// The first true millisecond from which `TT.before(x)` fails (latest >= x).
fn tt_before_until(x_ms: i64) -> i64 {
    x_ms - EPSILON_MS
}

/// L1's slow clock at true time `t_ms`.
fn slow_clock(t_ms: i64) -> i64 {
    t_ms * 4 / 5
}

/// Runs the story with L1's clock as chosen.
pub fn story(clock: L1Clock) -> Story {
    let tt = clock == L1Clock::TrueTime;
    let mut events = Vec::new();
    let l1 = l1_elected(&mut events, tt);
    l1_freezes(&mut events, tt, &l1);
    let l2 = l2_elected(&mut events, &l1);
    let acked = l2_writes(&mut events);
    let wake = PAUSE_AT_MS + PAUSE_MS;
    let stale_read_ms = wake_up(&mut events, tt, wake, l1.end, acked);
    l1_resumes(&mut events, tt, &l1, &l2);
    // Told in the order they happen (no sort: it would cost the page bytes).
    debug_assert!(events.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
    Story {
        clock,
        events,
        l1_real: Interval {
            from_ms: l1.voted,
            to_ms: l1.freed,
        },
        l1_reckoned: l1.reckoned,
        l2,
        pause: Interval {
            from_ms: PAUSE_AT_MS,
            to_ms: wake,
        },
        l2_commit_ms: acked,
        stale_read_ms,
    }
}

/// One sentence of the story, at a moment of true time.
fn say(events: &mut Vec<Event>, at_ms: i64, text: String) {
    events.push(Event {
        at_ms,
        text,
        alarm: false,
    })
}

/// L1's lease as the replicas promise it and as L1 reckons it.
struct L1Lease {
    /// v + 10 s, on L1's clock.
    end: i64,
    /// When the replicas voted for L1.
    voted: i64,
    /// The replicas vote for no one else before `TT.after(vote_end)`.
    vote_end: i64,
    /// The first moment that holds.
    freed: i64,
    /// While L1 would serve, in true time.
    reckoned: Interval,
}

/// L1's election: v is read before the votes are asked for.
fn l1_elected(events: &mut Vec<Event>, tt: bool) -> L1Lease {
    let v1 = if tt { tt_now(0).0 } else { slow_clock(0) };
    let end = v1 + LEASE_MS;
    let voted = HOP_MS;
    let vote_end = tt_now(voted).1 + LEASE_MS;
    let from_ms = voted + HOP_MS;
    let to_ms = if tt {
        tt_before_until(end)
    } else {
        end * 5 / 4
    };
    let own = if tt { "" } else { " on its own clock" };
    say(
        events,
        0,
        format!(
            "The data holds x = 1. L1 notes v = {}{}{own} and asks the three replicas for votes.",
            if tt { "TT.now().earliest = " } else { "" },
            signed_seconds_3(v1)
        ),
    );
    say(events, voted, format!("Each replica votes for L1 until TT.now().latest + 10 s = {}, and for no one else before TT.after({}).", signed_seconds_3(vote_end), signed_seconds_3(vote_end)));
    say(
        events,
        from_ms,
        format!(
            "L1 has a quorum: it leads, and its lease ends at v + 10 s = {}{own}.",
            signed_seconds_3(end)
        ),
    );
    L1Lease {
        end,
        voted,
        vote_end,
        freed: tt_after_from(vote_end),
        reckoned: Interval { from_ms, to_ms },
    }
}

/// L1 freezes mid-write; L2 asks for votes in vain. A TrueTime L1's lease
/// runs out while it is frozen.
fn l1_freezes(events: &mut Vec<Event>, tt: bool, l1: &L1Lease) {
    say(
        events,
        PAUSE_AT_MS,
        format!(
            "L1 begins a write of x=3 and freezes for {} s mid-write.",
            PAUSE_MS / 1000
        ),
    );
    say(
        events,
        L2_ASKS_MS,
        format!(
            "L2 asks for votes. Each replica refuses: it promised L1 until TT.after({}).",
            signed_seconds_3(l1.vote_end)
        ),
    );
    if tt {
        say(events, l1.reckoned.to_ms, format!("TT.now().latest reaches {}: L1's lease is over by its own reckoning. Frozen, it will learn so when it wakes.", signed_seconds_3(l1.end)));
    }
}

/// L2's election, asked to arrive the moment the replicas are free.
/// Returns L2's lease, until `TT.before(lease end)` fails.
fn l2_elected(events: &mut Vec<Event>, l1: &L1Lease) -> Interval {
    let freed = l1.freed;
    let v2 = tt_now(freed - HOP_MS).0;
    let l2_from = freed + HOP_MS;
    let l2_end = v2 + LEASE_MS;
    say(
        events,
        freed,
        format!(
            "TT.after({}) holds: every promise to L1 has lapsed, and the replicas vote for L2.",
            signed_seconds_3(l1.vote_end)
        ),
    );
    say(
        events,
        l2_from,
        format!(
            "L2 has a quorum: it leads, v = {}, its lease ends at {}.",
            signed_seconds_3(v2),
            signed_seconds_3(l2_end)
        ),
    );
    Interval {
        from_ms: l2_from,
        to_ms: tt_before_until(l2_end),
    }
}

/// L2's write: stamped at TT.now().latest, acknowledged once TT.after(s).
/// Returns when it was acknowledged.
fn l2_writes(events: &mut Vec<Event>) -> i64 {
    let s = tt_now(L2_WRITES_MS).1;
    let acked = tt_after_from(s).max(L2_WRITES_MS + 2 * HOP_MS);
    say(
        events,
        L2_WRITES_MS,
        format!(
            "L2 writes x=2, stamped s = TT.now().latest = {}; a quorum of replicas accepts it.",
            signed_seconds_3(s)
        ),
    );
    say(
        events,
        acked,
        format!(
            "TT.after({}) holds: after a commit wait of {} ms (about 2ε), L2 acknowledges x=2.",
            signed_seconds_3(s),
            acked - L2_WRITES_MS
        ),
    );
    acked
}

/// L1's frozen write goes on and is refused; a slow-clocked L1 steps down
/// only when its own clock reaches its lease end.
fn l1_resumes(events: &mut Vec<Event>, tt: bool, l1: &L1Lease, l2: &Interval) {
    let wake = PAUSE_AT_MS + PAUSE_MS;
    say(events, wake + HOP_MS, "L1's write of x=3 goes on where it stopped: its accept reaches the replicas, which voted for L2 and refuse it. A deposed leader cannot commit.".into());
    if !tt {
        say(
            events,
            l1.reckoned.to_ms,
            format!(
                "L1's clock reads {}: only now does it step down, {} after L2 took over.",
                signed_seconds_3(l1.end),
                signed_seconds_3(l1.reckoned.to_ms - l2.from_ms)
            ),
        );
    }
}

/// L1 wakes with a read of x waiting, and asks its clock whether its lease
/// still holds. Returns when it served a stale read, if it did.
fn wake_up(
    events: &mut Vec<Event>,
    tt: bool,
    wake: i64,
    l1_end: i64,
    l2_commit: i64,
) -> Option<i64> {
    let (earliest, latest) = tt_now(wake);
    let (reading, believes) = if tt {
        (
            format!(
                "TT.now() = [{}, {}]",
                signed_seconds_3(earliest),
                signed_seconds_3(latest)
            ),
            latest < l1_end,
        )
    } else {
        let now = slow_clock(wake);
        (
            format!("its clock reads {}", signed_seconds_3(now)),
            now < l1_end,
        )
    };
    let stale = believes && wake >= l2_commit;
    let text = if believes {
        format!("L1 wakes with a read of x waiting; {reading}, before {}. It believes its lease holds and answers x = 1 from its own copy: a stale read, missing L2's x=2.", signed_seconds_3(l1_end))
    } else {
        format!("L1 wakes with a read of x waiting; {reading}, so TT.before({}) is false. It knows its lease is over, serves nothing and sends the reader to L2, which answers x = 2.", signed_seconds_3(l1_end))
    };
    events.push(Event {
        at_ms: wake,
        text,
        alarm: stale,
    });
    stale.then_some(wake)
}
