//! The comparison of the eight systems, recomputed from runs of the core:
//! the cells the articles state must come out of the runs.

use distlock::lesson::compare::{cell, matrix, Outcome, COLUMNS};
use distlock::sim::{Backend, Fencing};

fn outcome(column: &str, backend: Backend, fencing: Fencing) -> Outcome {
    cell(column, backend, fencing).outcome
}

#[test]
fn every_system_has_a_judged_cell_for_every_story() {
    let rows = matrix();
    assert_eq!(rows.len(), Backend::ALL.len());
    for row in &rows {
        assert_eq!(row.cells.len(), COLUMNS.len(), "{}", row.backend);
        assert!(row.acquire_ms > 0, "{}: A acquires", row.backend);
        for (c, [off, on]) in COLUMNS.iter().zip(&row.cells) {
            for cell in [off, on] {
                if !matches!(
                    cell.outcome,
                    Outcome::NotApplicable(_) | Outcome::NotAffected
                ) {
                    assert!(!cell.why.is_empty(), "{} {}: says why", row.backend, c.id);
                }
            }
        }
    }
}

#[test]
fn fencing_with_an_ordered_token_rejects_the_late_write() {
    for backend in [
        Backend::ZooKeeper,
        Backend::Etcd,
        Backend::Chubby,
        Backend::Consul,
        Backend::Redis,
    ] {
        assert_eq!(
            outcome("gc-pause", backend, Fencing::Off),
            Outcome::Corrupted,
            "{backend}: unfenced, the late write corrupts"
        );
        assert_eq!(
            outcome("gc-pause", backend, Fencing::On),
            Outcome::Rejected,
            "{backend}: fenced, it is rejected"
        );
    }
}

#[test]
fn where_the_token_cannot_be_ordered_the_comparison_says_none() {
    for backend in [Backend::Redlock, Backend::DynamoDb, Backend::Postgres] {
        assert!(
            backend.token_short().starts_with("none"),
            "{backend}: {}",
            backend.token_short()
        );
        assert!(!backend.monotonic_tokens(), "{backend}");
    }
    // DynamoDB is fenced only by a condition on the lock item.
    assert_eq!(
        outcome("gc-pause", Backend::DynamoDb, Fencing::On),
        Outcome::Rejected
    );
}

#[test]
fn a_lock_with_no_lease_is_never_lost_to_a_pause() {
    for fencing in [Fencing::Off, Fencing::On] {
        assert_eq!(
            outcome("gc-pause", Backend::Postgres, fencing),
            Outcome::NeverLost
        );
    }
}

#[test]
fn only_systems_that_expire_by_wall_clock_feel_a_clock_jump() {
    for backend in Backend::ALL {
        let off = outcome("clock-jump", backend, Fencing::Off);
        match backend {
            Backend::Redis | Backend::Redlock => {
                assert_eq!(off, Outcome::Corrupted, "{backend}")
            }
            _ => assert_eq!(off, Outcome::NotAffected, "{backend}"),
        }
    }
}

#[test]
fn a_redis_failover_repeats_the_token_so_fencing_cannot_help() {
    assert_eq!(
        outcome("failover", Backend::Redis, Fencing::On),
        Outcome::Corrupted
    );
    for backend in [
        Backend::ZooKeeper,
        Backend::Etcd,
        Backend::Chubby,
        Backend::Consul,
    ] {
        assert_eq!(
            outcome("failover", backend, Fencing::Off),
            Outcome::NeverLost,
            "{backend}: the replicated lock survives its leader"
        );
    }
    assert!(matches!(
        outcome("failover", Backend::Redlock, Fencing::Off),
        Outcome::NotApplicable(_)
    ));
}

#[test]
fn a_crashed_holder_costs_a_lease_or_more() {
    for backend in Backend::ALL {
        match outcome("crashed-holder", backend, Fencing::Off) {
            Outcome::Waited { ms } => assert!(ms >= 3_500, "{backend}: {ms} ms"),
            other => panic!("{backend}: {other:?}"),
        }
    }
}
