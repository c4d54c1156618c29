//! The verdict where the eye is: the status strip says what became of the
//! stale write and why, in the words of each system's own check; the
//! stage's lines say who holds the lock at the service and what the
//! resource made of the latest write; the resource panel offers the new
//! holder's announcement. Rendered natively with Yew's server renderer.

#![cfg(not(target_arch = "wasm32"))]

use distlock::lesson::presets::{self, gc_pause};
use distlock::sim::{
    Action, Backend, Command, Config, FenceMode, FenceRule, Fencing, Millis, Scenario, Sim,
    Standing,
};
use distlock::ui::resource_panel::{
    resource_line, ResourceLineProps, ResourcePanel, ResourcePanelProps,
};
use distlock::ui::stage::{service_line, ServiceLineProps};
use distlock::ui::state::Action as PageAction;
use distlock::ui::status::{status, StatusProps};
use yew::prelude::*;
use yew::LocalServerRenderer;

use crate::common;
use common::client;

#[derive(Properties, PartialEq)]
struct Shown {
    html: Html,
}

/// Draws markup made by one of the page's plain functions.
#[component]
fn Show(props: &Shown) -> Html {
    props.html.clone()
}

async fn render(html: Html) -> String {
    LocalServerRenderer::<Show>::with_props(Shown { html })
        .hydratable(false)
        .render()
        .await
}

/// The markup's text as a reader sees it: tags out, entities read.
fn text(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for ch in html.chars() {
        match ch {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&#x27;", "'")
        .replace("&#39;", "'")
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

fn config(backend: Backend, fencing: Fencing, fence: FenceMode) -> Config {
    Config {
        backend,
        fencing,
        fence,
        ..Config::default()
    }
}

/// The gc-pause story, with or without B's write, played to its end.
fn story(config: Config, b_writes: bool) -> Sim {
    let mut scenario: Scenario = gc_pause(config);
    if !b_writes {
        let b = client('B');
        scenario.actions.retain(|a| {
            !matches!(a.action, Action::Client { client, command: Command::Write } if client == b)
        });
    }
    let end = scenario.last_at().plus(40_000);
    Sim::replay(&scenario, end).expect("the story replays")
}

async fn strip_text(sim: &Sim) -> String {
    text(&render(status(&StatusProps::from_sim(sim, false))).await)
}

/// A's and B's tokens in the story, from the oracle.
fn tokens(sim: &Sim) -> (u64, u64) {
    let stale = sim
        .oracle()
        .stale_writes()
        .iter()
        .find(|s| s.standing == Standing::Stale)
        .expect("A's stale write");
    let b = stale.newer.and_then(|g| g.token).expect("B's token");
    (stale.token.expect("A's token").0, b.0)
}

#[tokio::test]
async fn fencing_off_the_strip_names_the_stale_write_and_the_newer_grant() {
    let sim = story(
        config(Backend::Etcd, Fencing::Off, FenceMode::Documented),
        true,
    );
    let (a, b) = tokens(&sim);
    let strip = strip_text(&sim).await;
    assert!(
        strip.contains(&format!(
            "B's increment was lost: the counter reads 1 after 2 increments. A's write with token {a} was accepted after B was granted token {b}. Fencing is off: nothing compared the tokens."
        )),
        "{strip}"
    );
}

#[tokio::test]
async fn fencing_on_without_b_writing_the_strip_says_the_resource_had_not_yet_seen_b() {
    for backend in Backend::ALL.into_iter().filter(|b| {
        b.fence_rule_in(&Config {
            backend: *b,
            ..Config::default()
        }) == FenceRule::Highest
    }) {
        let sim = story(config(backend, Fencing::On, FenceMode::Documented), false);
        let (a, _) = tokens(&sim);
        let strip = strip_text(&sim).await;
        assert!(
            strip.contains(&format!(
                "Counter corrupted: A's write with token {a} was accepted: the resource had not yet seen B's newer token. Fencing can only refuse a token older than one it has seen."
            )),
            "{backend}: {strip}"
        );
    }
}

/// A phone shows a verdict's head alone when it is a whole sentence (the
/// lost increment, the refused write), and its reason too when the head
/// leads into it ("... was accepted:").
#[tokio::test]
async fn a_head_that_leads_into_its_reason_is_not_shown_alone() {
    let alone = |html: &str| html.contains("status__verdict--alone");
    for (fencing, b_writes, expected) in [
        (Fencing::Off, true, true),
        (Fencing::On, true, true),
        (Fencing::On, false, false),
    ] {
        let sim = story(
            config(Backend::Etcd, fencing, FenceMode::Documented),
            b_writes,
        );
        let html = render(status(&StatusProps::from_sim(&sim, false))).await;
        assert!(html.contains("status__why"), "{html}");
        assert_eq!(
            alone(&html),
            expected,
            "fencing {fencing:?}, B writes {b_writes}: {html}"
        );
    }
}

#[tokio::test]
async fn fencing_on_with_b_writing_the_strip_says_what_the_resource_had_accepted() {
    let sim = story(
        config(Backend::Etcd, Fencing::On, FenceMode::Documented),
        true,
    );
    let (a, b) = tokens(&sim);
    let strip = strip_text(&sim).await;
    assert!(
        strip.contains(&format!(
            "Fencing stopped A's write with token {a}: the resource had already accepted token {b}."
        )),
        "{strip}"
    );
    assert!(!strip.contains("Counter corrupted"), "{strip}");
}

#[tokio::test]
async fn with_the_announcement_the_strip_says_who_announced_the_token() {
    let sim = story(
        config(Backend::ZooKeeper, Fencing::On, FenceMode::Takeover),
        false,
    );
    let (a, b) = tokens(&sim);
    let strip = strip_text(&sim).await;
    assert!(
        strip.contains(&format!(
            "Fencing stopped A's write with token {a}: the resource had already seen token {b}. B announced it as it took over, before writing anything."
        )),
        "{strip}"
    );
}

#[tokio::test]
async fn systems_without_an_ordered_token_say_what_they_check_instead() {
    // DynamoDB: the lock item's owner, no token named.
    let off = story(
        config(Backend::DynamoDb, Fencing::Off, FenceMode::Documented),
        true,
    );
    let strip = strip_text(&off).await;
    assert!(
        strip.contains("B's increment was lost: the counter reads 1 after 2 increments. A's write was accepted after B was granted the lock."),
        "{strip}"
    );
    assert!(strip.contains("the RVN is a random UUID"), "{strip}");
    assert!(
        !strip.contains("token 1"),
        "DynamoDB names no token: {strip}"
    );
    let on = story(
        config(Backend::DynamoDb, Fencing::On, FenceMode::Documented),
        false,
    );
    let strip = strip_text(&on).await;
    assert!(
        strip.contains("Fencing stopped A's write: the lock item names B as its owner."),
        "{strip}"
    );

    // PostgreSQL: the row's version, and no token from the lock. A is cut
    // off with its write on the wire (the story of its partition).
    for (fencing, words) in [
        (Fencing::Off, "B's increment was lost: the counter reads 2 after 3 increments. A's write was accepted after B was granted the lock. Fencing is off: a plain UPDATE, whatever version it had read (the advisory lock has no token)."),
        (Fencing::On, "Fencing stopped A's write: its UPDATE named version 1, and the row had moved on to version 2."),
    ] {
        let scenario = presets::POSTGRES_PARTITION.scenario(Backend::Postgres, fencing)
            .expect("PostgreSQL's partition story");
        let sim = Sim::replay(&scenario, scenario.last_at().plus(40_000)).unwrap();
        let strip = strip_text(&sim).await;
        assert!(strip.contains(words), "{fencing:?}: {strip}");
        assert!(!strip.contains("with token"), "{strip}");
    }

    // Consul's sequencer: the key's LockIndex and Session, asked of the
    // key; after a delete both holders have LockIndex 1.
    let scenario = presets::consul_lock_delay(
        Config {
            backend: Backend::Consul,
            ..Config::default()
        },
        distlock::sim::ConsulToken::Sequencer,
    );
    let sim = Sim::replay(&scenario, Millis(37_000)).unwrap();
    let strip = strip_text(&sim).await;
    assert!(
        strip.contains("Fencing stopped A's write with LockIndex 1: the lock key holds LockIndex 1 too, but under another Session."),
        "{strip}"
    );
    assert!(strip.contains("the check asks the lock key"), "{strip}");
}

#[tokio::test]
async fn nothing_stale_no_verdict() {
    let mut sim = Sim::new(Config::default()).unwrap();
    sim.command(client('A'), Command::Acquire).unwrap();
    sim.run_until(Millis(1_000));
    sim.command(client('A'), Command::Write).unwrap();
    sim.run_until(Millis(2_000));
    let props = StatusProps::from_sim(&sim, false);
    assert_eq!(props.verdict, None);
    let strip = strip_text(&sim).await;
    assert!(!strip.contains("Counter corrupted") && !strip.contains("Fencing stopped"));
    // The verdict's line is there already, in the same data words.
    assert!(
        strip.contains("Nothing lost yet: the counter reads 1 after 1 increment."),
        "{strip}"
    );
}

#[tokio::test]
async fn the_resource_line_shows_the_highest_token_and_the_last_verdict() {
    let sim = story(
        config(Backend::Etcd, Fencing::Off, FenceMode::Documented),
        true,
    );
    let (a, b) = tokens(&sim);
    let line = text(&render(resource_line(&ResourceLineProps::from_sim(&sim))).await);
    assert!(
        line.contains(&format!(
            "counter 1 after 2 increments: 1 lost · highest accepted token {b} · fencing off"
        )),
        "{line}"
    );
    assert!(
        line.contains(&format!(
            "last write: ✕ A with token {a}: accepted though stale, overwrote 1 increment"
        )),
        "{line}"
    );

    let saved = story(
        config(Backend::Etcd, Fencing::On, FenceMode::Takeover),
        false,
    );
    let html = render(resource_line(&ResourceLineProps::from_sim(&saved))).await;
    let line = text(&html);
    assert!(
        line.contains(&format!("highest accepted token none, announced {b}")),
        "{line}"
    );
    assert!(
        line.contains(&format!("A with token {a}: rejected (stale)")),
        "{line}"
    );
    assert!(
        html.contains("aria-label=\"Resource at a glance\""),
        "{html}"
    );

    let fresh = Sim::new(Config::default()).unwrap();
    let line = text(&render(resource_line(&ResourceLineProps::from_sim(&fresh))).await);
    assert!(line.contains("last write: no write yet"), "{line}");

    let pg = story(
        config(Backend::Postgres, Fencing::On, FenceMode::Documented),
        true,
    );
    let line = text(&render(resource_line(&ResourceLineProps::from_sim(&pg))).await);
    assert!(line.contains("(= row version)"), "{line}");
    assert!(!line.contains("token"), "PostgreSQL names no token: {line}");
}

#[tokio::test]
async fn the_service_line_shows_holder_lease_left_and_token_for_every_system() {
    for backend in Backend::ALL {
        let mut sim = Sim::new(Config {
            backend,
            ..Config::default()
        })
        .unwrap();
        let nobody = text(&render(service_line(&ServiceLineProps::from_sim(&sim))).await);
        assert!(
            nobody.contains(&format!("{}: nobody holds the lock", backend.name())),
            "{nobody}"
        );
        sim.command(client('B'), Command::Acquire).unwrap();
        sim.run_until(Millis(2_000));
        let props = ServiceLineProps::from_sim(&sim);
        assert_eq!(props.holder, Some(client('B')), "{backend}");
        let holder = sim.holder().unwrap();
        assert_eq!(props.token, holder.token, "{backend}");
        let line = text(&render(service_line(&props)).await);
        assert!(line.contains("holder B"), "{backend}: {line}");
        match holder.until {
            Some(until) => {
                let left = sim.now().until(until);
                assert_eq!(props.left_ms(), Some(left), "{backend}");
                assert!(line.contains(" left"), "{backend}: {line}");
            }
            None => assert!(line.contains("held while its"), "{backend}: {line}"),
        }
        match holder.token {
            Some(t) => assert!(line.contains(&format!("token {t}")), "{backend}: {line}"),
            None => assert!(line.contains("no token"), "{backend}: {line}"),
        }
    }
}

#[tokio::test]
async fn the_resource_panel_offers_the_fencing_modes_each_system_has() {
    let dispatch = Callback::from(|_: PageAction| ());
    for backend in Backend::ALL {
        let sim = Sim::new(Config {
            backend,
            fencing: Fencing::On,
            ..Config::default()
        })
        .unwrap();
        let props = ResourcePanelProps::from_sim(&sim).with_dispatch(dispatch.clone());
        let html = LocalServerRenderer::<ResourcePanel>::with_props(props)
            .hydratable(false)
            .render()
            .await;
        let modes = backend.fence_modes();
        let offered = html.contains("Fencing mode");
        assert_eq!(offered, modes.len() > 1, "{backend}");
        for mode in FenceMode::ALL {
            let listed = html.contains(&format!("value=\"{}\"", mode.word()));
            assert_eq!(
                listed,
                offered && modes.contains(&mode),
                "{backend}: {mode:?}"
            );
        }
        if offered {
            assert_eq!(
                html.contains("new holder fences on takeover"),
                modes.contains(&FenceMode::Takeover)
            );
            let documented = backend.documented_fence(sim.config());
            let label = documented.label();
            if documented == FenceMode::Version {
                // PostgreSQL: the version column is an ORM's pattern, the
                // stories' default, not something PostgreSQL documents.
                assert!(text(&html).contains(" (the stories' default)"), "{backend}");
                assert!(
                    text(&html).contains(&format!(
                        "{}'s stories fence with {label}, an application's pattern",
                        backend.name()
                    )),
                    "{backend}"
                );
            } else {
                assert!(text(&html).contains(" (documented)"), "{backend}");
                assert!(
                    text(&html).contains(&format!("{} documents {label}.", backend.name())),
                    "{backend}"
                );
            }
        }
    }
    // Without the page's dispatch, no choice that would do nothing.
    let sim = Sim::new(Config::default()).unwrap();
    let html = LocalServerRenderer::<ResourcePanel>::with_props(ResourcePanelProps::from_sim(&sim))
        .hydratable(false)
        .render()
        .await;
    assert!(!html.contains("Fencing mode"));
}
