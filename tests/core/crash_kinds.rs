//! Two crash faults of a client, per system: its process exits (an OOM
//! kill, a panic, SIGKILL: its kernel closes its sockets, sending FIN) or
//! its host dies or is cut off (silence). What frees the lock after each is
//! systems.md's table "process exit versus host death"; each test names the
//! real behaviour and where it is documented.

use distlock::lesson::presets;
use distlock::sim::{
    Backend, Command, Config, Event, Fencing, Millis, PartitionScope, PgOptions, PgSessionEnd,
    Scenario, ServiceEvent, Sim,
};
use distlock::wire::link::{self, base64url, RunLink};

use crate::common;
use common::{client, grants, pg_session_ends, run, story};

fn config(backend: Backend) -> Config {
    Config {
        backend,
        ..Config::default()
    }
}

/// A holds, B asks at 500 ms and waits, A crashes (`kind`) at 1 s.
fn crash(config: Config, kind: Command, until_ms: u64) -> Sim {
    let scenario = Scenario::new(config)
        .client(0, 'A', Command::Acquire)
        .client(500, 'B', Command::Acquire)
        .client(1_000, 'A', kind);
    run(&scenario, until_ms)
}

/// When B first holds, after A's crash at 1 s.
fn b_holds_at(sim: &Sim) -> Millis {
    grants(sim, 'B')
        .first()
        .map(|g| g.0)
        .unwrap_or_else(|| panic!("B holds\n{}", story(sim)))
}

// ---- PostgreSQL ------------------------------------------------------------

/// PostgreSQL docs, "Advisory Locks": a session-level advisory lock is held
/// "until explicitly released or the session ends"; a backend whose client
/// closes the connection reads EOF and exits at once, ending its session.
/// So a process exit frees lock 42 as soon as its kernel's FIN arrives:
/// B, blocked in pg_advisory_lock, holds within 1 s of simulated time, at
/// the default (Linux) keepalives, which play no part.
#[test]
fn postgres_process_exit_frees_the_lock_for_b_within_a_second() {
    let sim = crash(config(Backend::Postgres), Command::Exit, 5_000);
    let at = b_holds_at(&sim);
    assert!(
        at > Millis(1_000) && at < Millis(2_000),
        "B holds at {at}\n{}",
        story(&sim)
    );
    let ends = pg_session_ends(&sim);
    assert_eq!(ends.len(), 1, "{}", story(&sim));
    let (ended, who, why, freed) = ends[0];
    assert_eq!(
        (who, why, freed),
        (client('A'), PgSessionEnd::ClientExited, true)
    );
    assert!(ended < Millis(1_010), "the FIN takes one trip: {ended}");
    assert!(
        story(&sim).contains("its backend read EOF"),
        "{}",
        story(&sim)
    );
    let note = sim.crash_note(client('A')).expect("A crashed");
    assert!(note.contains("the server read EOF"), "{note}");
    assert!(note.contains("lock 42 freed"), "{note}");
}

/// tcp(7): with PostgreSQL's tcp_keepalives_* at 0 the OS's values apply,
/// on Linux tcp_keepalive_time 7200 s, tcp_keepalive_intvl 75 s,
/// tcp_keepalive_probes 9: a dead host's session ends 7200 + 9 x 75 s
/// (about 2 h 11 min) after it was last heard. Tuned 10/5/3: about 25 s.
#[test]
fn postgres_host_death_waits_for_keepalives_linux_default_and_tuned() {
    let linux = crash(config(Backend::Postgres), Command::PowerOff, 8_000_000);
    let dead_after = PgOptions::LINUX.dead_after_ms();
    assert_eq!(dead_after, 7_875_000, "2 h 11 min 15 s");
    let at = b_holds_at(&linux);
    // A was last heard as it took the lock, in the first milliseconds.
    assert!(
        at >= Millis(dead_after) && at < Millis(dead_after + 1_000),
        "B holds at {at}"
    );
    let (_, who, why, freed) = pg_session_ends(&linux)[0];
    assert_eq!(
        (who, why, freed),
        (client('A'), PgSessionEnd::KeepalivesGaveUp, true)
    );

    let tuned = crash(
        Config {
            pg: PgOptions::TUNED,
            ..config(Backend::Postgres)
        },
        Command::PowerOff,
        40_000,
    );
    let at = b_holds_at(&tuned);
    assert!(
        at >= Millis(25_000) && at < Millis(26_000),
        "B holds at {at}\n{}",
        story(&tuned)
    );
    // While it waits, the card says what the server noticed: nothing.
    let mut waiting = Sim::new(config(Backend::Postgres)).unwrap();
    waiting.command(client('A'), Command::Acquire).unwrap();
    waiting.run_until(Millis(500));
    waiting.command(client('A'), Command::PowerOff).unwrap();
    let note = waiting.crash_note(client('A')).unwrap();
    assert!(
        note.contains("the server hears nothing")
            && note.contains("2 h 11 min at Linux's defaults"),
        "{note}"
    );
}

/// A FIN is a packet like any other: a partition between A and the server
/// holds it up (TCP retransmits it), and the lock stays A's meanwhile.
#[test]
fn postgres_a_fin_cut_off_by_a_partition_does_not_free_the_lock() {
    let scenario = Scenario::new(config(Backend::Postgres))
        .client(0, 'A', Command::Acquire)
        .client(500, 'B', Command::Acquire)
        .client(
            800,
            'A',
            Command::Partition {
                scope: PartitionScope::Service,
            },
        )
        .client(1_000, 'A', Command::Exit);
    let sim = run(&scenario, 60_000);
    assert!(grants(&sim, 'B').is_empty(), "{}", story(&sim));
    let note = sim.crash_note(client('A')).unwrap();
    assert!(note.contains("held up in the network"), "{note}");
}

// ---- Consul ----------------------------------------------------------------

/// Consul's session docs: a session is invalidated when its TTL runs out
/// (the server waits twice the TTL, "a lower bound") or when a health check
/// it is tied to, serfHealth by default, goes critical. A process exit on a
/// live host leaves the agent and serfHealth passing: TTL x 2, then the
/// lock-delay. A dead host fails memberlist's probes (1 s interval, a
/// suspicion of at least 4 s in DefaultLANConfig): the session ends within
/// seconds, then the lock-delay.
#[test]
fn consul_process_exit_waits_for_twice_the_ttl_and_host_death_for_serf() {
    let exit = crash(config(Backend::Consul), Command::Exit, 25_000);
    let power_off = crash(config(Backend::Consul), Command::PowerOff, 25_000);
    let failed = |sim: &Sim| {
        sim.history().iter().any(|r| {
            matches!(r.event, Event::Service(ServiceEvent::ConsulNodeFailed { client, .. }) if client == self::client('A'))
        })
    };
    assert!(!failed(&exit), "serf sees a live node\n{}", story(&exit));
    assert!(
        failed(&power_off),
        "serf fails a dead one\n{}",
        story(&power_off)
    );
    let (by_ttl, by_serf) = (b_holds_at(&exit), b_holds_at(&power_off));
    // TTL 5 s: A last renewed by 2.5 s at the latest, so TTL x 2 is past
    // 10 s; the lock-delay (15 s real, 5 s here) follows.
    assert!(by_ttl > Millis(15_000), "{by_ttl}\n{}", story(&exit));
    // serf: a probe and the suspicion, 4-7 s real, 1.3-2.3 s here; then 5 s.
    assert!(
        by_serf > Millis(7_000) && by_serf < Millis(10_000),
        "{by_serf}\n{}",
        story(&power_off)
    );
    let mut sim = Sim::new(config(Backend::Consul)).unwrap();
    sim.command(client('A'), Command::Acquire).unwrap();
    sim.run_until(Millis(500));
    sim.command(client('A'), Command::Exit).unwrap();
    let note = sim.crash_note(client('A')).unwrap();
    assert!(
        note.starts_with("the agent is alive: the session lives until 2 x TTL"),
        "{note}"
    );
    let mut sim = Sim::new(config(Backend::Consul)).unwrap();
    sim.command(client('A'), Command::Acquire).unwrap();
    sim.run_until(Millis(500));
    sim.command(client('A'), Command::PowerOff).unwrap();
    let note = sim.crash_note(client('A')).unwrap();
    assert!(
        note.contains("serf will mark its node failed in about"),
        "{note}"
    );
}

// ---- The systems where a closed connection ends nothing --------------------

/// Redis and Redlock: a key set with PX lives until it expires, whoever
/// closed a socket (Redis docs, SET ... PX; the Redlock page: "the lock
/// will be auto-released after the TTL"). ZooKeeper's programmer's guide:
/// a session expires when the server hears nothing for the session timeout;
/// a closed TCP connection is not a session close (only close() is). etcd's
/// lease docs: a lease is revoked when its TTL passes without a keepalive;
/// the keepalive stream closing revokes nothing. Chubby (Burrows, OSDI '06):
/// the session lease runs out, and a lock lost that way waits out its
/// lock-delay. DynamoDB's lock client: no server keeps a connection; a
/// waiter takes over after a whole lease of the same RVN. For these, the
/// two crashes free the lock at the same moment.
#[test]
fn where_a_closed_connection_ends_nothing_both_crashes_wait_the_same() {
    for backend in [
        Backend::Redis,
        Backend::Redlock,
        Backend::ZooKeeper,
        Backend::Etcd,
        Backend::Chubby,
        Backend::DynamoDb,
    ] {
        let until = presets::PROCESS_EXIT.run_ms_on(backend) + 20_000;
        let scenario = |kind| {
            presets::PROCESS_EXIT
                .scenario(backend, Fencing::Off)
                .unwrap()
                .actions
                .into_iter()
                .map(|mut a| {
                    if let distlock::sim::Action::Client { command, .. } = &mut a.action {
                        if *command == Command::Exit {
                            *command = kind;
                        }
                    }
                    a
                })
                .fold(Scenario::new(config(backend)), |s, a| {
                    s.at(a.at.ms(), a.action)
                })
        };
        let exit = run(&scenario(Command::Exit), until);
        let power_off = run(&scenario(Command::PowerOff), until);
        let (e, p) = (b_holds_at(&exit), b_holds_at(&power_off));
        assert_eq!(e, p, "{backend}: the same wait\n{}", story(&exit));
        assert!(
            e > Millis(3_000),
            "{backend}: B waited for the lease, not the FIN ({e})"
        );
        let note = exit.crash_note(client('A')).unwrap();
        let silent = power_off.crash_note(client('A')).unwrap();
        assert!(!note.is_empty() && !silent.is_empty(), "{backend}");
    }
}

#[test]
fn the_etcd_card_says_a_closed_stream_revokes_nothing() {
    let mut sim = Sim::new(config(Backend::Etcd)).unwrap();
    sim.command(client('A'), Command::Acquire).unwrap();
    sim.run_until(Millis(500));
    sim.command(client('A'), Command::Exit).unwrap();
    let note = sim.crash_note(client('A')).unwrap();
    assert!(
        note.starts_with("a closed stream revokes nothing: the lease runs out at its TTL"),
        "{note}"
    );
    assert_eq!(sim.crash_note(client('B')), None, "B runs");
}

// ---- Both kinds, whatever the system ---------------------------------------

/// Restart works after either crash, and each is its own event.
#[test]
fn restart_follows_either_crash_and_the_history_says_which() {
    for backend in Backend::ALL {
        let mut sim = Sim::new(config(backend)).unwrap();
        let a = client('A');
        sim.command(a, Command::Acquire).unwrap();
        sim.run_until(Millis(300));
        sim.command(a, Command::Exit).unwrap();
        assert!(sim.command(a, Command::Exit).is_err(), "{backend}: crashed");
        assert!(sim.command(a, Command::Acquire).is_err(), "{backend}");
        sim.command(a, Command::Restart).unwrap();
        sim.command(a, Command::PowerOff).unwrap();
        sim.command(a, Command::Restart).unwrap();
        sim.command(a, Command::Acquire).unwrap();
        sim.run_until(Millis(60_000));
        let kinds: Vec<&str> = sim
            .history()
            .iter()
            .filter_map(|r| match r.event {
                Event::Exited { .. } => Some("exit"),
                Event::Crashed { .. } => Some("power off"),
                _ => None,
            })
            .collect();
        assert_eq!(kinds, ["exit", "power off"], "{backend}");
    }
}

/// Links and run files written before the two kinds said "crash" for the
/// host dying; they still do, and a process exit travels as "exit".
#[test]
fn an_old_crash_link_still_plays_the_host_death_and_exit_has_its_own_word() {
    // Written by the page before this change (the crashed-holder story on
    // PostgreSQL, whose keepalives were the tuned ones by default).
    let old = r#"{"version":1,"config":{"backend":"postgresql","fencing":"off","ttl_ms":5000,"seed":1,"latency_scale":10,"renewal":[true,true,true,true],"consul":{"token":"modify-index","cleanup":"keep","lock_delay_s":15},"pg":{"keepalives_idle_s":10,"keepalives_interval_s":5,"keepalives_count":3}},"actions":[{"at_ms":0,"client":"A","command":{"do":"acquire"}},{"at_ms":1000,"client":"A","command":{"do":"crash"}},{"at_ms":1500,"client":"B","command":{"do":"acquire"}}],"playhead_ms":2000,"end_ms":3000}"#;
    let run = link::decode(&format!("v1.{}", base64url(old.as_bytes())))
        .unwrap_or_else(|e| panic!("the old link reads: {e}"));
    let commands: Vec<Command> = run
        .scenario
        .actions
        .iter()
        .filter_map(|a| match a.action {
            distlock::sim::Action::Client { command, .. } => Some(command),
            _ => None,
        })
        .collect();
    assert_eq!(commands[1], Command::PowerOff);
    assert_eq!(run.scenario.config.pg, PgOptions::TUNED);
    let sim = Sim::replay(&run.scenario, Millis(40_000)).unwrap();
    let (_, _, why, _) = pg_session_ends(&sim)[0];
    assert_eq!(why, PgSessionEnd::KeepalivesGaveUp, "{}", story(&sim));
    // One older still, from before PostgreSQL's settings travelled: the
    // tuned values, the default then.
    let older = old.replace(
        r#","pg":{"keepalives_idle_s":10,"keepalives_interval_s":5,"keepalives_count":3}"#,
        "",
    );
    assert_ne!(older, old);
    let run = link::decode(&format!("v1.{}", base64url(older.as_bytes()))).unwrap();
    assert_eq!(run.scenario.config.pg, PgOptions::TUNED);

    let exit = presets::PROCESS_EXIT
        .scenario(Backend::Postgres, Fencing::Off)
        .unwrap();
    let sim = Sim::replay(&exit, Millis(3_000)).unwrap();
    let fragment = link::encode(&RunLink::of(&sim, Millis(2_000)));
    let back = link::decode(&fragment).unwrap();
    assert_eq!(back.scenario, exit);
    let json = serde_json::to_string(&exit).unwrap();
    assert!(json.contains(r#""do":"exit""#), "{json}");
    let old_kind = serde_json::to_string(&Command::PowerOff).unwrap();
    assert_eq!(old_kind, r#"{"do":"crash"}"#);
}
