//! The Code view's line per client follows the client through the
//! scenario to run first, on every system: A inside `acquire()`, then at
//! the check, then inside `write()` for the whole of its pause (the pause
//! struck between the check and the write), B blocked in `acquire()`
//! until its grant, then at its check and inside its own write.

use crate::common;
use common::client;
use distlock::lesson::presets;
use distlock::sim::{Backend, Belief, Fencing, Millis, Playback, Refusals, Sim};
use distlock::tools::code::{op_of, ops, Op};

/// One step of the story: the time and each client's operation, with
/// A's and B's beliefs and whether A is paused, for the checks below.
struct Step {
    at: Millis,
    ops: [Option<Op>; 4],
    a: Belief,
    b: Belief,
    a_paused: bool,
}

/// Each step of the story on `backend`.
fn steps(backend: Backend) -> Vec<Step> {
    let preset = &presets::GC_PAUSE;
    let scenario = presets::GC_PAUSE.scenario(backend, Fencing::Off).unwrap();
    let end = Millis(preset.run_ms_on(backend));
    let (mut sim, mut playback): (Sim, Playback) =
        Playback::start(&scenario, Refusals::Stop, Millis(0)).unwrap();
    let mut out = Vec::new();
    while sim.now() <= end && playback.step(&mut sim).unwrap() {
        let a = sim.client_view(client('A'));
        out.push(Step {
            at: sim.now(),
            ops: ops(&sim),
            a: a.belief,
            b: sim.belief(client('B')),
            a_paused: a.paused_until.is_some(),
        });
    }
    out
}

/// The operations in the order the client went through them, repeats
/// dropped.
fn path(steps: &[Step], who: usize) -> Vec<Op> {
    let mut out: Vec<Op> = Vec::new();
    for op in steps.iter().filter_map(|s| s.ops[who]) {
        if out.last() != Some(&op) {
            out.push(op);
        }
    }
    out
}

#[test]
fn a_stays_inside_write_for_its_whole_pause_on_every_system() {
    for backend in Backend::ALL {
        let steps = steps(backend);
        let paused: Vec<_> = steps.iter().filter(|s| s.a_paused).collect();
        assert!(!paused.is_empty(), "{backend:?}: A pauses");
        for s in paused.iter().filter(|s| s.a.is_holding()) {
            let at = s.at;
            assert_eq!(
                s.ops[0],
                Some(Op::Write),
                "{backend:?} at {at}: A paused in write()"
            );
        }
        // Before the pause A went through acquire() and stood at the check.
        let a = path(&steps, 0);
        let write = a.iter().position(|&op| op == Op::Write).unwrap();
        assert!(
            a[..write].ends_with(&[Op::Acquire, Op::Check]) || a[..write].ends_with(&[Op::Renew]),
            "{backend:?}: A's path {a:?}"
        );
        assert_eq!(a[0], Op::Acquire, "{backend:?}: A's path {a:?}");
    }
}

#[test]
fn b_is_blocked_in_acquire_until_granted_then_writes() {
    for backend in Backend::ALL {
        let steps = steps(backend);
        for s in &steps {
            let (at, b) = (s.at, s.b);
            let asking = matches!(b, Belief::Acquiring | Belief::Waiting { .. });
            assert_eq!(
                s.ops[1] == Some(Op::Acquire),
                asking,
                "{backend:?} at {at}: B {b:?}"
            );
        }
        let b = path(&steps, 1);
        assert_eq!(
            b[..2],
            [Op::Idle, Op::Acquire],
            "{backend:?}: B's path {b:?}"
        );
        // PostgreSQL's B waits for A's release; everywhere B gets to write.
        assert!(b.contains(&Op::Write), "{backend:?}: B's path {b:?}");
        // C and D never leave their entry line.
        assert!(steps
            .iter()
            .all(|s| s.ops[2] == Some(Op::Idle) && s.ops[3] == Some(Op::Idle)));
    }
}

#[test]
fn a_lease_system_moves_a_from_its_write_only_once_the_write_left() {
    // After the wake, the queued write leaves at once: A is still in
    // write() until its reply.
    let steps = steps(Backend::Etcd);
    let woke = steps.iter().position(|s| s.at >= Millis(8_500)).unwrap();
    assert_eq!(steps[woke].ops[0], Some(Op::Write));
    // Then its keepalive leaves, is told the lease is gone, and A's
    // client leaves the lock: idle at the job's entry again.
    assert_eq!(
        path(&steps, 0),
        [
            Op::Acquire,
            Op::Check,
            Op::Write,
            Op::Renew,
            Op::Check,
            Op::Idle
        ]
    );
}

#[test]
fn a_crashed_client_has_no_line() {
    let scenario = presets::CRASHED_HOLDER
        .scenario(Backend::Redis, Fencing::Off)
        .unwrap();
    let sim = Sim::replay(&scenario, Millis(1_500)).unwrap();
    let a = sim.client_view(client('A'));
    assert!(a.crashed, "A's host died at 1 s");
    assert_eq!(op_of(&a, []), None);
    assert_eq!(ops(&sim)[0], None);
}

/// The Code view's body for every system, client and fencing rule the
/// worker can be asked for, whole: kept in `tests/golden/code.txt`, so a
/// change to a listing shows in a diff.
#[test]
fn every_code_view_is_the_one_kept() {
    use distlock::sim::FenceRule;
    use distlock::work::{Job, Reply, Request, Station, PROTOCOL_VERSION};
    // Fencing off, then each rule.
    let fences = std::iter::once(None).chain(FenceRule::ALL.map(Some));
    // A listing is written whole the first time, then named: each body
    // is its client's listing, then the resource's with the sources.
    let (mut out, mut seen) = (String::new(), std::collections::BTreeSet::new());
    for system in Backend::ALL {
        let clients: &[bool] = match system {
            Backend::ZooKeeper => &[false, true],
            _ => &[false],
        };
        for &kazoo in clients {
            for fence in fences.clone() {
                let job = Job::Code {
                    system,
                    kazoo,
                    fence,
                    ttl_ms: 5_000,
                };
                let request = Request {
                    v: PROTOCOL_VERSION,
                    id: 1,
                    job,
                };
                let mut replies = Vec::new();
                Station::new(1).from_page(
                    &request.to_json(),
                    &|| 0.0,
                    &mut |r| replies.push(r),
                    &mut |_| {},
                );
                let [reply] = replies.as_slice() else {
                    panic!("one reply");
                };
                let html = Reply::read(reply).unwrap().html;
                // Every line's gutter is the same: written once, at the top.
                let start = html.find("<span class=\"code__g\">").expect("a gutter");
                let end = start + html[start..].find("</span> </span>").expect("its end") + 15;
                if out.is_empty() {
                    out.push_str(&format!("gutter = {}\n", &html[start..end]));
                }
                let html = html
                    .replace(&html[start..end], "<gutter>")
                    .replace("<span class=\"code__l\"", "\n<span class=\"code__l\"");
                out.push_str(&format!("==== {system} kazoo={kazoo} {fence:?}\n"));
                for part in html.split_inclusive("</pre>") {
                    let title = part.split("</h3>").next().unwrap_or(part);
                    match seen.insert(part.to_string()) {
                        true => out.push_str(&format!("{part}\n")),
                        false => out.push_str(&format!("(as above) {title}\n")),
                    }
                }
            }
        }
    }
    common::golden("code", &out);
}
