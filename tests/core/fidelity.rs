//! Each model behaves as the real system and its client library do, where
//! an earlier model taught something false. One test per correction; the
//! sources are in ../shared/docs/backends.md.

use distlock::sim::{
    AcquireFailure, Backend, ClientState, Command, Config, DropReason, Event, Fencing, Millis,
    NodeCommand, PartitionScope, Scenario, ServiceEvent, Sim, Standing, Token, ZkClient, ZkOptions,
    TCP_RETRIES_MAX,
};

use crate::common;
use common::{client, run, story};

fn config(backend: Backend) -> Config {
    Config {
        backend,
        ..Config::default()
    }
}

/// Grants to `who`: (time, token, believed lease end).
fn grants(sim: &Sim, who: char) -> Vec<(Millis, Option<Token>, Option<Millis>)> {
    sim.history()
        .iter()
        .filter_map(|r| match r.event {
            Event::Acquired {
                client: c,
                token,
                until,
            } if c == client(who) => Some((r.at, token, until)),
            _ => None,
        })
        .collect()
}

#[test]
fn redlock_decides_without_a_node_slowed_past_the_ttl() {
    let scenario = Scenario::new(config(Backend::Redlock))
        .node(0, 3, NodeCommand::Slow { extra_ms: 20_000 })
        .client(100, 'A', Command::Acquire);
    let sim = run(&scenario, 3_000);
    let text = story(&sim);
    let a = grants(&sim, 'A');
    assert_eq!(a.len(), 1, "A acquires at the first attempt\n{text}");
    let (at, _, until) = a[0];
    assert!(
        at.ms() < 250,
        "three fast nodes decide at once, got {at}\n{text}"
    );
    let validity = at.until(until.expect("a Redlock lease has an end"));
    assert!(
        validity > 4_700,
        "its validity is about a TTL, got {validity} ms\n{text}"
    );
}

#[test]
fn redlock_cut_off_from_every_node_fails_within_the_node_timeout() {
    let scenario = Scenario::new(config(Backend::Redlock))
        .client(
            0,
            'A',
            Command::Partition {
                scope: PartitionScope::Service,
            },
        )
        .client(100, 'A', Command::Acquire);
    let sim = run(&scenario, 400);
    let retry = sim
        .history()
        .iter()
        .find(|r| matches!(r.event, Event::AcquireRetry { .. }))
        .unwrap_or_else(|| panic!("the first attempt fails\n{}", story(&sim)));
    // 5 ms per latency step at the default 10x: 50 ms.
    assert_eq!(retry.at, Millis(150), "{}", story(&sim));
    assert!(matches!(
        retry.event,
        Event::AcquireRetry {
            failure: AcquireFailure::NoQuorum { oks: 0 },
            ..
        }
    ));
}

/// A holds, pauses past its lease, and writes on waking.
fn late_writer(backend: Backend, fencing: Fencing, b_acquires: bool) -> Sim {
    // (pause, B's write, end): Consul's server waits TTL x 2 and then a
    // lock-delay before B's poll gets the key.
    let (pause_ms, b_write_ms, end_ms) = match backend {
        Backend::Consul => (18_500, 18_500, 21_000),
        _ => (8_000, 7_500, 10_000),
    };
    let mut scenario = Scenario::new(Config {
        fencing,
        ..config(backend)
    })
    .client(0, 'A', Command::Acquire)
    .client(500, 'A', Command::Write)
    .client(1_000, 'A', Command::GcPause { pause_ms })
    .client(1_000, 'A', Command::Write);
    if b_acquires {
        scenario =
            scenario
                .client(6_500, 'B', Command::Acquire)
                .client(b_write_ms, 'B', Command::Write);
    }
    run(&scenario, end_ms)
}

/// Every backend whose lease an 8 s pause outlives, told with this timing.
/// Not PostgreSQL, whose lock is no lease (tests/core/postgres.rs), nor DynamoDB, whose service expires nothing (its item names A until a
/// waiter has watched it for a whole lease), nor Chubby, whose last
/// KeepAlive answer and lock-delay outlast the pause: tests/core/dynamodb.rs
/// and tests/core/chubby.rs tell these stories with their timing.
fn expiring_backends() -> impl Iterator<Item = Backend> {
    Backend::ALL
        .into_iter()
        .filter(|&b| !matches!(b, Backend::DynamoDb | Backend::Chubby | Backend::Postgres))
}

#[test]
fn a_late_write_with_nobody_granted_since_is_a_write_without_a_lease() {
    for backend in expiring_backends() {
        for fencing in [Fencing::Off, Fencing::On] {
            let sim = late_writer(backend, fencing, false);
            let text = story(&sim);
            let late = sim
                .history()
                .iter()
                .rev()
                .find_map(|r| match r.event {
                    Event::WriteAccepted { standing, .. } => Some(standing),
                    _ => None,
                })
                .unwrap_or_else(|| panic!("{backend} {fencing:?}: the late write lands\n{text}"));
            assert_eq!(
                late,
                Standing::WithoutLease,
                "{backend} {fencing:?}\n{text}"
            );
            assert_eq!(sim.oracle().corruptions(), 0, "{backend}\n{text}");
            assert_eq!(sim.oracle().writes_without_lease(), 1, "{backend}\n{text}");
            assert!(text.contains("after its lease ran out"), "{text}");
            assert!(!text.contains("was accepted though"), "{text}");
        }
    }
}

#[test]
fn a_late_write_after_another_grant_is_the_corruption() {
    for backend in expiring_backends() {
        let sim = late_writer(backend, Fencing::Off, true);
        let text = story(&sim);
        assert_eq!(sim.oracle().corruptions(), 1, "{backend}\n{text}");
        assert!(text.contains("was accepted though"), "{text}");
    }
}

#[test]
fn zookeeper_sequence_numbers_advance_only_on_creation() {
    let released = Scenario::new(config(Backend::ZooKeeper))
        .client(0, 'A', Command::Acquire)
        .client(1_000, 'A', Command::Release)
        .client(2_000, 'B', Command::Acquire);
    let expired = Scenario::new(config(Backend::ZooKeeper))
        .client(0, 'A', Command::Acquire)
        .client(500, 'A', Command::PowerOff)
        .client(12_000, 'B', Command::Acquire);
    for scenario in [released, expired] {
        let sim = run(&scenario, 14_000);
        let b = grants(&sim, 'B');
        assert_eq!(b.len(), 1, "{}", story(&sim));
        assert_eq!(
            b[0].1,
            Some(Token(1)),
            "A's deleted znode used no number\n{}",
            story(&sim)
        );
    }
}

/// A holds on ZooKeeper and is cut off for 20 s; B queues behind it.
fn zk_cut_off(client_library: ZkClient) -> Sim {
    let scenario = Scenario::new(Config {
        zk: ZkOptions {
            client: client_library,
            ..ZkOptions::default()
        },
        ..config(Backend::ZooKeeper)
    })
    .client(0, 'A', Command::Acquire)
    .client(500, 'B', Command::Acquire)
    .client(
        1_000,
        'A',
        Command::Partition {
            scope: PartitionScope::Service,
        },
    )
    .client(21_000, 'A', Command::Heal);
    run(&scenario, 23_000)
}

fn lost_at(sim: &Sim) -> Millis {
    sim.history()
        .iter()
        .find(|r| {
            matches!(r.event, Event::ZkState { client: c, state } if c == client('A') && state == distlock::sim::ZkConn::Lost)
        })
        .map(|r| r.at)
        .unwrap_or_else(|| panic!("A is told LOST\n{}", story(sim)))
}

/// When `who`'s library reported `state`.
fn zk_state_at(sim: &Sim, who: char, state: distlock::sim::ZkConn) -> Millis {
    sim.history()
        .iter()
        .find(|r| matches!(r.event, Event::ZkState { client: c, state: s } if c == client(who) && s == state))
        .map(|r| r.at)
        .unwrap_or_else(|| panic!("{who} is told {state:?}\n{}", story(sim)))
}

/// Curator (curator-framework ConnectionStateManager, 5.x):
/// `processEvents` polls for `useSessionTimeoutMs - elapsed since
/// SUSPENDED`, and `checkSessionExpiration` then logs "Session timeout has
/// elapsed while SUSPENDED. Injecting a session expiration": LOST one
/// session timeout (`simulatedSessionExpirationPercent` 100, the
/// CuratorFrameworkFactory default) after SUSPENDED, which the ZooKeeper
/// client reports when no answer came for its read timeout, two thirds of
/// the session timeout (ClientCnxn `readTimeout = sessionTimeout * 2 /
/// 3`): 5/3 of the timeout after A last heard the ensemble, still cut off,
/// and after the server expired A's session (at 1x) and B took over. The
/// native client before 3.9.3, and kazoo, hear LOST only on reconnecting.
/// (From 3.9.3 the native client ends the session itself, ZOOKEEPER-4508:
/// apache/zookeeper tag release-3.9.3,
/// zookeeper-server/src/main/java/org/apache/zookeeper/ClientCnxn.java
/// 424 `expirationTimeout = sessionTimeout * 4 / 3`, 1245-1253: once
/// `expirationTimeout - getIdleRecv() <= 0` it throws
/// SessionTimeoutException and, state CLOSED, queues Expired (1328);
/// 1447 the same for the negotiated timeout. Not one of the page's
/// clients: the card and systems.md name it.)
#[test]
fn curator_declares_lost_while_cut_off_and_the_native_client_on_reconnecting() {
    use distlock::sim::ZkConn;
    let curator = zk_cut_off(ZkClient::Curator);
    let native = zk_cut_off(ZkClient::Native);
    let text = story(&curator);
    // The last answer A read before the cut at 1 s.
    let heard = curator
        .history()
        .iter()
        .filter_map(|r| match r.event {
            Event::MessageSent { to, deliver_at, .. }
                if to == distlock::sim::Endpoint::Client(client('A'))
                    && deliver_at.ms() <= 1_000 =>
            {
                Some(deliver_at)
            }
            _ => None,
        })
        .max()
        .expect("A heard the ensemble");
    let suspended = zk_state_at(&curator, 'A', ZkConn::Suspended);
    assert_eq!(suspended, heard.plus(5_000 * 2 / 3), "{text}");
    let at = lost_at(&curator);
    assert_eq!(
        at,
        suspended.plus(5_000),
        "5/3 of the timeout after {heard}\n{text}"
    );
    assert!(at.ms() < 21_000, "still cut off\n{text}");
    let b = curator
        .history()
        .iter()
        .find(|r| matches!(r.event, Event::Acquired { client: c, .. } if c == client('B')))
        .map(|r| r.at)
        .expect("B takes over");
    assert!(b < at, "B holds before A hears LOST\n{text}");
    assert!(
        lost_at(&native).ms() > 21_000,
        "native: LOST only after the heal\n{}",
        story(&native)
    );
}

#[test]
fn a_requested_session_timeout_is_clamped_to_two_to_twenty_ticks_and_said() {
    for (tick_ms, ttl_ms, negotiated) in [(2_000, 1_000, 4_000), (500, 30_000, 10_000)] {
        let scenario = Scenario::new(Config {
            ttl_ms,
            zk: ZkOptions {
                tick_ms,
                ..ZkOptions::default()
            },
            ..config(Backend::ZooKeeper)
        })
        .client(0, 'A', Command::Acquire);
        let sim = run(&scenario, 1_000);
        let opened = sim.history().iter().find_map(|r| match &r.event {
            Event::Service(ServiceEvent::ZkSessionOpened { timeout_ms, .. }) => Some(*timeout_ms),
            _ => None,
        });
        assert_eq!(opened, Some(negotiated), "{}", story(&sim));
        assert!(
            story(&sim).contains("was asked for: the server clamps to 2-20 x tickTime"),
            "{}",
            story(&sim)
        );
    }
}

#[test]
fn a_write_sent_into_a_partition_is_retransmitted_and_lands_after_it_heals() {
    let scenario = Scenario::new(config(Backend::Etcd))
        .client(0, 'A', Command::Acquire)
        .client(
            1_000,
            'A',
            Command::Partition {
                scope: PartitionScope::ServiceAndResource,
            },
        )
        .client(1_500, 'A', Command::Write)
        .client(3_000, 'A', Command::Heal);
    let sim = run(&scenario, 8_000);
    let landed = sim
        .history()
        .iter()
        .find(|r| matches!(r.event, Event::WriteAccepted { .. }))
        .unwrap_or_else(|| panic!("the write lands\n{}", story(&sim)));
    assert!(landed.at.ms() >= 3_000, "{}", story(&sim));
    assert!(
        story(&sim).contains("TCP sends it again"),
        "{}",
        story(&sim)
    );
    assert!(!sim
        .history()
        .iter()
        .any(|r| matches!(r.event, Event::MessageDropped { .. })));
}

#[test]
fn tcp_gives_up_after_its_retries_and_losing_messages_drops_them() {
    let long = Scenario::new(config(Backend::Etcd))
        .client(0, 'A', Command::Acquire)
        .client(
            1_000,
            'A',
            Command::Partition {
                scope: PartitionScope::Service,
            },
        );
    let sim = run(&long, 1_100_000);
    let gave_up = sim.history().iter().find_map(|r| match r.event {
        Event::MessageDropped {
            reason: DropReason::TcpGaveUp,
            ..
        } => Some(r.at),
        _ => None,
    });
    let at = gave_up.unwrap_or_else(|| panic!("TCP gives up ({TCP_RETRIES_MAX} tries)"));
    assert!((800_000..1_000_000).contains(&at.ms()), "gave up at {at}");

    let lossy = Scenario::new(config(Backend::Etcd))
        .client(0, 'A', Command::Acquire)
        .client(1_000, 'A', Command::LoseMessages { on: true })
        .client(1_500, 'A', Command::Write);
    let sim = run(&lossy, 3_000);
    assert!(sim.history().iter().any(|r| matches!(
        r.event,
        Event::MessageDropped {
            reason: DropReason::Lost,
            ..
        }
    )));
    assert_eq!(sim.resource().accepted(), 0, "{}", story(&sim));
}

#[test]
fn etcd_keeps_alive_at_a_third_of_the_granted_ttl() {
    let scenario = Scenario::new(Config {
        ttl_ms: 1_000,
        ..config(Backend::Etcd)
    })
    .client(0, 'A', Command::Acquire);
    let sim = run(&scenario, 5_000);
    let sent: Vec<u64> = sim
        .history()
        .iter()
        .filter(
            |r| matches!(&r.event, Event::MessageSent { body, .. } if body.label() == "keepalive"),
        )
        .map(|r| r.at.ms())
        .collect();
    assert!(sent.len() >= 5, "{sent:?}");
    for pair in sent.windows(2) {
        assert_eq!(
            pair[1] - pair[0],
            666,
            "granted 2 s, renewed every 666 ms: {sent:?}"
        );
    }
}

#[test]
fn a_partitioned_etcd_client_knows_its_lease_is_gone_about_when_the_server_deletes_its_key() {
    let scenario = Scenario::new(config(Backend::Etcd))
        .client(0, 'A', Command::Acquire)
        .client(
            1_000,
            'A',
            Command::Partition {
                scope: PartitionScope::Service,
            },
        );
    let sim = run(&scenario, 10_000);
    let lost = session_lost(&sim)
        .unwrap_or_else(|| panic!("A notices\n{}", story(&sim)))
        .ms();
    let deleted = sim
        .history()
        .iter()
        .find(|r| matches!(r.event, Event::Service(ServiceEvent::EtcdKeyDeleted { .. })))
        .map(|r| r.at.ms())
        .unwrap_or_else(|| panic!("the server deletes\n{}", story(&sim)));
    // The server looks every 500 ms (lessor.go `runLoop`); the client's
    // deadlineLoop every second (client/v3/lease.go, v3.4-v3.6): A knows
    // within a tick and a reply's travel of the server's delete.
    assert!(
        lost <= deleted + 1_100,
        "A knew at {lost} ms, the key went at {deleted} ms\n{}",
        story(&sim)
    );
}

/// When `who`'s keepalive replies came (its belief renewed or extended).
fn renewed(sim: &Sim, who: char) -> Vec<Millis> {
    sim.history()
        .iter()
        .filter_map(|r| match r.event {
            Event::Renewed { client: c, .. } if c == client(who) => Some(r.at),
            _ => None,
        })
        .collect()
}

/// When `who` sent its first keepalive: KeepAlive's start.
fn first_keepalive(sim: &Sim, who: char) -> Millis {
    sim.history()
        .iter()
        .find(|r| {
            matches!(&r.event, Event::MessageSent { from, body, .. }
                if *from == distlock::sim::Endpoint::Client(client(who)) && body.label() == "keepalive")
        })
        .map(|r| r.at)
        .unwrap_or_else(|| panic!("{who} keeps its lease alive\n{}", story(sim)))
}

/// etcd client/v3/lease.go (v3.4-v3.6): `KeepAlive` sets the first
/// deadline to `firstKeepAliveTimeout` (NewLease: DialTimeout + 1 s, and
/// `defaultTTL`, 5 s, "the assumed lease TTL used for the first keepalive
/// deadline before the actual TTL is known to the client", when that is
/// 1 s) and sends its first keepalive at once (`nextKeepAlive:
/// time.Now()`); only `recvKeepAlive` moves the deadline to reply + TTL.
/// So a holder whose first keepalive reply never comes loses its session
/// about 5 s after KeepAlive started, whatever the TTL: here at TTL 10 s,
/// long before the server lets the lease go.
/// When the first client's library ended its session (etcd's
/// `Done()`), if it did.
fn session_lost(sim: &Sim) -> Option<Millis> {
    sim.history()
        .iter()
        .find(|r| matches!(r.event, Event::Lost { .. }))
        .map(|r| r.at)
}

#[test]
fn an_etcd_holder_cut_off_before_its_first_keepalive_reply_counts_five_seconds() {
    let ttl = Config {
        ttl_ms: 10_000,
        ..config(Backend::Etcd)
    };
    // A seed whose lock Txn is answered before the first keepalive: cut
    // A's messages off between the two replies.
    let (scenario, start) = (1..200u64)
        .find_map(|seed| {
            let quiet = Scenario::new(Config {
                seed: distlock::sim::Seed(seed),
                ..ttl.clone()
            })
            .client(0, 'A', Command::Acquire);
            let sim = run(&quiet, 1_000);
            let granted = grants(&sim, 'A').first()?.0;
            let reply = *renewed(&sim, 'A').first()?;
            (granted.ms() + 1 < reply.ms()).then(|| {
                (
                    quiet.client(granted.ms() + 1, 'A', Command::LoseMessages { on: true }),
                    first_keepalive(&sim, 'A'),
                )
            })
        })
        .expect("some seed answers the Txn first");
    let sim = run(&scenario, 14_000);
    let text = story(&sim);
    let (_, _, until) = grants(&sim, 'A')[0];
    assert_eq!(
        until,
        Some(start.plus(5_000)),
        "A believes KeepAlive's start + 5 s, not the TTL\n{text}"
    );
    let lost = session_lost(&sim).unwrap_or_else(|| panic!("A's session ends\n{text}"));
    // deadlineLoop ticks every second from the first KeepAlive: the tick
    // at 5 s finds the deadline passed.
    assert_eq!(lost, start.plus(5_000), "{text}");
    let expired = sim
        .history()
        .iter()
        .find(|r| {
            matches!(
                r.event,
                Event::Service(ServiceEvent::EtcdLeaseExpired { .. })
            )
        })
        .map(|r| r.at)
        .unwrap_or_else(|| panic!("the server lets the lease go\n{text}"));
    assert!(
        expired.ms() > lost.ms() + 4_000,
        "the server keeps the lease its TTL: {expired}\n{text}"
    );
}

/// client/v3/lease.go (v3.4-v3.6) `deadlineLoop`: `time.NewTimer(time.Second)`,
/// reset each turn: the client looks at its deadlines once a second, from
/// its first KeepAlive (whose first reply the model takes as the phase:
/// on a LAN the two are one instant). A holder cut off after a later
/// reply loses its session at the first tick after reply + TTL, up to a
/// second late; one cut off right after its first reply, at reply + TTL,
/// as the real client did (the real-server check's etcd-first-keepalive).
#[test]
fn an_etcd_client_sees_its_deadline_at_its_one_second_tick() {
    let scenario = Scenario::new(Config {
        ttl_ms: 10_000,
        ..config(Backend::Etcd)
    })
    .client(0, 'A', Command::Acquire)
    .client(
        1_000,
        'A',
        Command::Partition {
            scope: PartitionScope::Service,
        },
    );
    let sim = run(&scenario, 14_000);
    let text = story(&sim);
    let start = renewed(&sim, 'A')[0];
    let last_reply = *renewed(&sim, 'A')
        .last()
        .expect("A heard a keepalive reply");
    let lost = session_lost(&sim).unwrap_or_else(|| panic!("A's session ends\n{text}"));
    let deadline = last_reply.plus(10_000);
    assert!(
        lost >= deadline && lost.ms() < deadline.ms() + 1_000,
        "{lost} vs deadline {deadline}\n{text}"
    );
    assert_eq!((lost.ms() - start.ms()) % 1_000, 0, "on a tick: {text}");
    // Cut off right after its grant, its last reply is its first: its
    // session ends on the tick at that reply + the TTL.
    let early = Scenario::new(Config {
        ttl_ms: 10_000,
        ..config(Backend::Etcd)
    })
    .client(0, 'A', Command::Acquire)
    .client(
        300,
        'A',
        Command::Partition {
            scope: PartitionScope::Service,
        },
    );
    let sim = run(&early, 14_000);
    let replies = renewed(&sim, 'A');
    assert_eq!(replies.len(), 1, "{}", story(&sim));
    let lost = session_lost(&sim);
    assert_eq!(lost, Some(replies[0].plus(10_000)), "{}", story(&sim));
}

#[test]
fn a_client_judges_its_lease_by_its_own_slow_clock() {
    let scenario = Scenario::new(config(Backend::Redlock))
        .client(0, 'A', Command::ClockRate { rate_pct: -20 })
        .client(0, 'A', Command::Renewal { on: false })
        .client(100, 'A', Command::Acquire);
    let sim = run(&scenario, 1_000);
    let (_, _, until) = grants(&sim, 'A')[0];
    let service_until = sim
        .holder()
        .and_then(|h| h.until)
        .expect("the service has an end");
    let until = until.expect("a Redlock lease has an end");
    assert!(
        until.ms() > service_until.ms() + 1_000,
        "a clock 20% slow believes the lease lasts a fifth longer: {until} vs {service_until}"
    );
    let validity = sim.validity(client('A')).expect("Redlock shows its budget");
    assert!(
        validity.left_ms > 0 && validity.left_ms < 5_000,
        "{validity:?}"
    );
    let sim = run(&scenario, 5_500);
    assert_eq!(
        sim.client_view(client('A')).state,
        ClientState::Holding,
        "by its own clock A still holds after the service let go"
    );
    assert!(sim.client_view(client('A')).stale);
}

#[test]
fn a_clock_jump_on_a_client_is_refused_when_zero_and_recorded_otherwise() {
    let mut sim = Sim::new(config(Backend::Etcd)).unwrap();
    assert!(sim
        .command(client('A'), Command::ClockJump { jump_ms: 0 })
        .is_err());
    assert!(sim
        .command(client('A'), Command::ClockRate { rate_pct: 90 })
        .is_err());
    sim.command(client('A'), Command::ClockJump { jump_ms: 3_000 })
        .unwrap();
    assert_eq!(sim.client_view(client('A')).clock_offset_ms, 3_000);
}
