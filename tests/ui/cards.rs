//! The client cards against the run, on every lock system: one grant reads
//! the same on the card, the status strip, the event log and the timeline;
//! a paused holder's Write says it is queued; a client that knows its lease
//! is gone says why it will not write; a waiter shows no lease bar; a stale
//! write the resource took is not shown as harmless. Rendered natively with
//! Yew's server renderer over real runs.

#![cfg(not(target_arch = "wasm32"))]

use distlock::lesson::presets::first_scenario_config;
use distlock::sim::{
    Backend, Belief, ClientId, Command, Config, Fencing, Millis, Seed, Sim, TokenWords,
};
use distlock::ui::client_card::{ClientCard, ClientCardProps};
use distlock::ui::event_log::log_lines;
use distlock::ui::state::{Action, AppState, Notice, StartSim};
use distlock::ui::status::{status, StatusProps};
use std::rc::Rc;
use yew::prelude::*;
use yew::{LocalServerRenderer, Reducible};

use crate::common;
use common::client;

const SEED: u64 = 1;
/// How far a run may go for a grant to come, in simulated time.
const GRANT_WITHIN_MS: u64 = 20_000;

fn config(backend: Backend, fencing: Fencing) -> Config {
    Config {
        backend,
        fencing,
        ..first_scenario_config(Seed(SEED))
    }
}

fn must(r: Result<(), distlock::sim::CommandError>, what: &str, backend: Backend) {
    r.unwrap_or_else(|e| panic!("{backend:?}: {what} refused: {e}"));
}

/// Runs event by event until `done` holds; panics past `within_ms`.
fn run_until_true(sim: &mut Sim, within_ms: u64, what: &str, done: impl Fn(&Sim) -> bool) {
    let deadline = sim.now().plus(within_ms);
    while !done(sim) {
        assert!(
            sim.now() < deadline && sim.step(),
            "{:?}: {what} not reached by t={deadline}",
            sim.config().backend
        );
    }
}

/// A run in which A asked for the lock and both it and the service say A
/// holds it, with the token the service gave (Redlock names its fence a
/// moment after its holder).
fn granted_to_a(backend: Backend) -> Sim {
    let mut sim = Sim::new(config(backend, Fencing::Off)).expect("valid config");
    let a = client('A');
    must(sim.command(a, Command::Acquire), "A acquire", backend);
    run_until_true(&mut sim, GRANT_WITHIN_MS, "A granted", |s| {
        s.belief(a).is_holding() && s.holder().is_some_and(|h| h.client == a)
    });
    // Whatever follows the grant at once (Redlock's fence, a confirmation).
    let settle = sim.now().plus(50);
    sim.run_until(settle);
    sim
}

/// Every tag stripped, whitespace folded: the text a reader gets.
fn text_of(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for ch in html.chars() {
        match ch {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                out.push(' ');
            }
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    let out = out
        .replace("&#x27;", "'")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The markup of the first element whose opening tag holds `needle`, to its
/// closing `</tag>` (elements of the same name are not nested in it).
fn element<'a>(html: &'a str, needle: &str, tag: &str) -> &'a str {
    let at = html
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} is not in the markup"));
    let start = html[..at].rfind('<').expect("inside a tag");
    let end = at
        + html[at..]
            .find(&format!("</{tag}>"))
            .unwrap_or_else(|| panic!("{needle}'s {tag} closes"));
    &html[start..end + tag.len() + 3]
}

async fn card_html(sim: &Sim, c: ClientId) -> String {
    let props = ClientCardProps::from_sim(sim, c, 8, Callback::noop());
    LocalServerRenderer::<ClientCard>::with_props(props)
        .hydratable(false)
        .render()
        .await
}

#[derive(Properties, PartialEq)]
struct StripProps {
    status: StatusProps,
}

#[component]
fn Strip(props: &StripProps) -> Html {
    status(&props.status)
}

async fn strip_html(sim: &Sim) -> String {
    let props = StripProps {
        status: StatusProps::from_sim(sim, false),
    };
    LocalServerRenderer::<Strip>::with_props(props)
        .hydratable(false)
        .render()
        .await
}

/// The card's token as read, without the note after " · " that says why
/// etcd's tokens skip numbers.
fn card_token(card: &str) -> String {
    let line = text_of(element(card, "class=\"client-card__token\"", "p"));
    match line.split_once(" · ") {
        Some((token, _)) => token.to_string(),
        None => line,
    }
}

/// The status strip's token field, as read.
fn strip_token(strip: &str) -> String {
    let fact = element(strip, "<dt>token</dt>", "div");
    text_of(element(fact, "<dd", "dd"))
}

fn log_texts(sim: &Sim) -> Vec<String> {
    let words = TokenWords::of(sim.config().backend);
    log_lines(sim.history(), false, words)
        .iter()
        .map(|l| l.text.to_string())
        .collect()
}

#[tokio::test(flavor = "current_thread")]
async fn one_grant_reads_the_same_on_card_strip_log_and_timeline_on_every_system() {
    for backend in Backend::ALL {
        let mut sim = granted_to_a(backend);
        let a = client('A');
        let words = TokenWords::of(backend);
        let holder = sim.holder().expect("A holds");
        let believed = sim.belief(a).token();
        if words == TokenWords::Granted {
            assert_eq!(
                believed, holder.token,
                "{backend:?}: A's token is the service's"
            );
        }
        let said = words.grant(holder.token);
        assert_eq!(said, words.grant(believed), "{backend:?}");

        let card = card_html(&sim, a).await;
        assert_eq!(card_token(&card), said, "{backend:?}: the card");
        assert_eq!(
            card.contains("a revision: every etcd write counts"),
            backend == Backend::Etcd,
            "{backend:?}: only etcd's card says why its tokens skip numbers"
        );
        let strip = strip_html(&sim).await;
        assert_eq!(
            strip_token(&strip),
            words.value(holder.token),
            "{backend:?}: the strip"
        );

        // A writes, so the timeline's resource lane and the log carry it too.
        must(sim.command(a, Command::Write), "A write", backend);
        run_until_true(&mut sim, GRANT_WITHIN_MS, "A's write answered", |s| {
            s.last_write(a) == Some(distlock::sim::LastWrite::Accepted)
        });
        // Long enough for the bars to carry their labels (a bar too short
        // keeps its words in its tooltip).
        let later = sim.now().plus(3_000);
        sim.run_until(later);
        assert_eq!(
            sim.holder().map(|h| (h.client, h.token)),
            Some((a, holder.token)),
            "{backend:?}: A keeps its grant"
        );
        let log = log_texts(&sim);
        let acquired = log
            .iter()
            .find(|l| l.contains("A acquired the lock"))
            .unwrap_or_else(|| panic!("{backend:?}: no grant in the log: {log:?}"));
        assert!(
            acquired.contains(&format!("A acquired the lock, {said}")),
            "{backend:?}: the log's grant says {said}: {acquired}"
        );
        let named = log
            .iter()
            .find(|l| l.contains("the service now says A holds the lock"))
            .unwrap_or_else(|| panic!("{backend:?}: no holder line in the log: {log:?}"));
        assert!(
            named.contains(&format!("({said})")),
            "{backend:?}: the log's holder line says {said}: {named}"
        );
        let timeline = common::timeline_at(&sim, sim.now().ms(), sim.now().ms(), false).await;
        assert!(
            timeline.contains(&format!("A {said}")),
            "{backend:?}: the service lane names A's grant as \"A {said}\""
        );
        assert!(
            timeline.contains(&format!("believes {said}")),
            "{backend:?}: A's lane says \"believes {said}\""
        );
        let mark = match (words, believed) {
            (TokenWords::Granted, Some(t)) => format!("A t{t} ok"),
            (TokenWords::RowVersion, Some(v)) => format!("A v{} ok", v.0),
            (_, None) => "A ok".to_string(),
        };
        assert!(
            timeline.contains(&format!(">{mark}<")),
            "{backend:?}: the write's mark reads {mark}"
        );
        if words == TokenWords::RowVersion {
            // The row's version is no token: nowhere is it called one.
            for (place, text) in [
                ("card", text_of(&card)),
                ("strip", text_of(&strip)),
                ("log", log.join("\n")),
                ("timeline", timeline.clone()),
            ] {
                assert!(
                    !text.contains("token 0") && !text.contains("token 1"),
                    "{backend:?}: the {place} calls the row's version a token"
                );
            }
            assert!(
                text_of(&card).contains("WHERE version = "),
                "{backend:?}: the card says the version is the resource's own check"
            );
            assert!(strip_token(&strip) == "no token");
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn postgres_says_no_token_on_card_strip_and_log() {
    let sim = granted_to_a(Backend::Postgres);
    let card = card_html(&sim, client('A')).await;
    assert_eq!(card_token(&card), "no token");
    assert!(text_of(&card).contains(
        "no token from the lock: the resource checks the row's version itself (WHERE version = 0)"
    ));
    assert_eq!(strip_token(&strip_html(&sim).await), "no token");
    let log = log_texts(&sim);
    assert!(
        log.iter()
            .any(|l| l.contains("A acquired the lock, no token, row version 0")),
        "{log:?}"
    );
}

/// The card's Write button, its opening tag and its name.
fn write_button(card: &str) -> (String, String) {
    let button = ["Write on wake</button>", "Write</button>"]
        .iter()
        .find_map(|name| card.find(&format!(">{name}")).map(|at| (at, *name)))
        .map(|(at, name)| {
            let start = card[..at].rfind("<button").expect("a button");
            (
                card[start..=at].to_string(),
                name.trim_end_matches("</button>").to_string(),
            )
        });
    button.expect("the card has a Write button")
}

#[tokio::test(flavor = "current_thread")]
async fn a_paused_holder_writes_on_wake_and_then_knows_its_lease_is_gone() {
    let mut learned = Vec::new();
    for backend in Backend::ALL {
        let mut sim = granted_to_a(backend);
        let a = client('A');
        let ttl = sim.config().ttl_ms;
        must(
            sim.command(a, Command::GcPause { pause_ms: 20_000 }),
            "A pause",
            backend,
        );
        let card = card_html(&sim, a).await;
        let (tag, name) = write_button(&card);
        assert_eq!(
            name, "Write on wake",
            "{backend:?}: the paused holder's Write"
        );
        assert!(!tag.contains("disabled"), "{backend:?}: it can be clicked");
        assert!(
            tag.contains("aria-describedby=\"write-note-a\""),
            "{backend:?}: the button is described by the card's line: {tag}"
        );
        let note = text_of(element(&card, "id=\"write-note-a\"", "p"));
        assert!(
            note.starts_with("A is frozen until t=")
                && note.ends_with(" s: a write clicked now leaves the instant it wakes."),
            "{backend:?}: {note}"
        );
        // Clicked now: queued, and gone out the instant A wakes.
        must(
            sim.command(a, Command::Write),
            "A write while paused",
            backend,
        );
        sim.run_until(Millis(sim.now().ms() + 20_000));
        assert!(
            sim.history().iter().any(|r| matches!(
                r.event,
                distlock::sim::Event::WriteSent { client, .. } if client == a
            )),
            "{backend:?}: the queued write went out"
        );
        // Long enough after waking for any library to hear its lease is gone.
        sim.run_until(Millis(sim.now().ms() + 3 * ttl));
        let view = sim.client_view(a);
        let card = card_html(&sim, a).await;
        let (tag, name) = write_button(&card);
        assert_eq!(name, "Write", "{backend:?}: awake, Write is Write again");
        match view.lost {
            Some(reason) => {
                learned.push(backend);
                assert!(tag.contains("disabled"), "{backend:?}: no write now");
                let line = text_of(element(&card, "id=\"write-note-a\"", "p"));
                assert_eq!(
                    line, "A's client library now knows it lost the lock: it sends no more writes.",
                    "{backend:?}"
                );
                // How it learned stays in the tooltip.
                assert!(
                    tag.replace("&#x27;", "'")
                        .contains(&format!("lost the lock ({reason})")),
                    "{backend:?}: {tag}"
                );
                // The tooltip says it too (the apostrophe escaped or not).
                let title = tag.replace("&#x27;", "'");
                assert!(
                    title.contains("title=\"A's client library now knows it lost the lock"),
                    "{backend:?}: the tooltip says it too: {tag}"
                );
            }
            None => assert!(
                !card.contains("write-note-a"),
                "{backend:?}: no line about a loss it has not learned"
            ),
        }
    }
    // Every system whose client library times its lease or hears of its end;
    // not PostgreSQL's, whose paused client keeps its session (its kernel
    // answers TCP) and so its lock.
    assert_eq!(
        learned,
        Backend::ALL
            .into_iter()
            .filter(|&b| b != Backend::Postgres)
            .collect::<Vec<_>>(),
        "the systems whose clients learn their lease is gone"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn only_a_client_with_a_lease_shows_lease_bars_on_every_system() {
    for backend in Backend::ALL {
        let mut sim = granted_to_a(backend);
        let b = client('B');
        must(sim.command(b, Command::Acquire), "B acquire", backend);
        sim.run_until(Millis(sim.now().ms() + 300));
        for c in ClientId::ALL {
            let view = sim.client_view(c);
            let holds = view.belief.is_holding() || sim.holder().is_some_and(|h| h.client == c);
            let card = card_html(&sim, c).await;
            assert_eq!(
                card.contains("lease-bar"),
                holds,
                "{backend:?}: {c} ({:?}) shows lease bars only if it holds a lease",
                view.belief
            );
            if !holds {
                assert!(
                    !text_of(&card)
                        .contains(distlock::ui::service_panel::words(backend).service_says),
                    "{backend:?}: {c} shows no word of the service's lease"
                );
            }
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_waiting_etcd_client_shows_no_lease_bar() {
    let mut sim = granted_to_a(Backend::Etcd);
    let b = client('B');
    must(sim.command(b, Command::Acquire), "B acquire", Backend::Etcd);
    run_until_true(&mut sim, 2_000, "B waiting", |s| {
        matches!(s.belief(b), Belief::Waiting { .. })
    });
    // etcd keeps a lease for the waiter's key: it is not the lock's.
    assert!(sim.client_view(b).service_until.is_some());
    let card = card_html(&sim, b).await;
    assert!(!card.contains("lease-bar"));
    assert!(!text_of(&card).contains("etcd says"));
    assert!(text_of(&card).contains("no lease yet: waiting in the queue"));
}

/// The scenario to run first, clicked by hand: A's write is clicked during
/// its pause, B acquires and writes, A wakes and its write goes out.
fn article_by_hand(backend: Backend, fencing: Fencing) -> Sim {
    let mut sim = Sim::new(config(backend, fencing)).expect("valid config");
    let (a, b) = (client('A'), client('B'));
    must(sim.command(a, Command::Acquire), "A acquire", backend);
    sim.run_until(Millis(1_000));
    must(
        sim.command(a, Command::GcPause { pause_ms: 8_000 }),
        "A pause",
        backend,
    );
    must(sim.command(a, Command::Write), "A write", backend);
    sim.run_until(Millis(6_000));
    must(sim.command(b, Command::Acquire), "B acquire", backend);
    sim.run_until(Millis(7_000));
    // Some systems make B wait longer (Chubby's lock-delay, PostgreSQL's
    // holder that never lost its session): B writes once it holds, if ever.
    let b_holds = |s: &Sim| s.belief(b).is_holding();
    let until = Millis(40_000);
    while !b_holds(&sim) && sim.now() < until && sim.step() {}
    if b_holds(&sim) {
        must(sim.command(b, Command::Write), "B write", backend);
    }
    let later = sim.now().plus(3_000).max(Millis(10_000));
    sim.run_until(later);
    sim
}

#[tokio::test(flavor = "current_thread")]
async fn a_stale_write_the_resource_took_is_not_shown_as_harmless() {
    let mut corrupted = Vec::new();
    let mut saved = Vec::new();
    for backend in Backend::ALL {
        for fencing in [Fencing::Off, Fencing::On] {
            let sim = article_by_hand(backend, fencing);
            let a = client('A');
            let stale = sim
                .oracle()
                .stale_writes()
                .iter()
                .rfind(|w| w.client == a)
                .copied();
            let card = text_of(&card_html(&sim, a).await);
            match stale {
                Some(w) if w.accepted && w.standing.is_stale() => {
                    corrupted.push((backend, fencing));
                    let holder = w.holder.map_or(
                        "the lock had gone to another client since".to_string(),
                        |h| format!("{h} held the lock"),
                    );
                    assert!(
                        card.contains(&format!("last write: accepted although {holder} (stale)")),
                        "{backend:?} {fencing:?}: A's card says its write was stale: {card}"
                    );
                    assert!(!card.contains("last write: accepted;"), "{backend:?}");
                }
                Some(w) if w.standing.is_stale() => {
                    saved.push((backend, fencing));
                    assert!(
                        card.contains(
                            "last write: rejected: a stale write, fencing saved the counter"
                        ),
                        "{backend:?} {fencing:?}: {card}"
                    )
                }
                _ => assert!(
                    !card.contains("(stale)"),
                    "{backend:?} {fencing:?}: no stale write, no alarm: {card}"
                ),
            }
        }
    }
    // With these timings B is granted during A's pause on these four (the
    // others keep the lock out of reach longer: lock-delays, sessions);
    // every card of both kinds was checked above, and no other shows an alarm.
    for backend in [
        Backend::Redis,
        Backend::Redlock,
        Backend::ZooKeeper,
        Backend::Etcd,
    ] {
        assert!(
            corrupted.contains(&(backend, Fencing::Off)),
            "{backend:?}: A's write corrupts the counter with fencing off"
        );
        assert!(
            saved.contains(&(backend, Fencing::On)),
            "{backend:?}: fencing saves it"
        );
    }
    // The lesson's own case: etcd, fencing off, B wrote first.
    let sim = article_by_hand(Backend::Etcd, Fencing::Off);
    let card = text_of(&card_html(&sim, client('A')).await);
    assert!(
        card.contains("last write: accepted although B held the lock (stale)"),
        "{card}"
    );
}

fn state() -> Rc<AppState> {
    let sim = Sim::new(config(Backend::Etcd, Fencing::Off)).expect("valid config");
    Rc::new(AppState::new(Some(StartSim(Rc::new(sim)))))
}

#[test]
fn the_ttl_field_applies_a_value_in_range_and_refuses_one_out_of_it() {
    let start = state();
    assert_eq!(start.ttl_text, "5");
    let refused = start.clone().reduce(Action::SetTtl("999999".into()));
    assert_eq!(refused.config().ttl_ms, 5_000, "the run keeps its TTL");
    assert_eq!(refused.ttl_text, "5", "the field shows the run's TTL again");
    match &refused.notice {
        Some(Notice::Refused(why)) => assert_eq!(
            why,
            "A TTL of 999999 s is out of range: type a number of seconds from 1 to 60. The run is unchanged."
        ),
        other => panic!("a refusal says why: {other:?}"),
    }
    let words = refused.clone().reduce(Action::SetTtl("soon".into()));
    assert!(
        matches!(&words.notice, Some(Notice::Refused(w)) if w.contains("\"soon\" is not a number") && w.contains("from 1 to 60"))
    );
    assert_eq!(words.ttl_text, "5");
    let applied = refused.reduce(Action::SetTtl("7".into()));
    assert_eq!(applied.config().ttl_ms, 7_000);
    assert_eq!(applied.ttl_text, "7");
    assert!(applied.notice.is_none(), "a value taken clears the refusal");
    // The same value again leaves the run as it is.
    let same = applied.clone().reduce(Action::SetTtl("7.0".into()));
    assert!(Rc::ptr_eq(&same, &applied));
}

#[test]
fn the_seed_field_applies_a_whole_number_and_refuses_anything_else() {
    let start = state();
    let refused = start.clone().reduce(Action::SetSeed("12x".into()));
    assert_eq!(refused.config().seed, Seed(SEED));
    assert_eq!(refused.seed_text, SEED.to_string());
    assert!(
        matches!(&refused.notice, Some(Notice::Refused(w)) if w.contains("\"12x\" is not a whole number"))
    );
    let applied = refused.reduce(Action::SetSeed(" 42 ".into()));
    assert_eq!(applied.config().seed, Seed(42));
    assert_eq!(applied.seed_text, "42");
}

#[test]
fn the_command_that_fills_the_script_says_so_where_it_is_seen() {
    let mut now = state();
    let a = distlock::sim::ClientId::ALL[0];
    for i in 0..distlock::sim::SCRIPT_LEN_MAX {
        let on = i % 2 == 1;
        now = now.reduce(Action::Client(a, distlock::sim::Command::Renewal { on }));
        let full = i + 1 == distlock::sim::SCRIPT_LEN_MAX;
        match (&now.notice, full) {
            (None, false) => {}
            (Some(Notice::Info(words)), true) => {
                assert!(words.starts_with("This run holds 1000 commands"), "{words}");
                assert!(words.contains("the clock still runs") && words.contains("Reset"));
            }
            (notice, _) => panic!("after command {}: {notice:?}", i + 1),
        }
    }
    // The run goes on: the clock still moves when started.
    let before = now.sim.borrow().now();
    let moved = now.reduce(Action::Start).reduce(Action::Tick(16));
    assert!(moved.sim.borrow().now() > before);
}
