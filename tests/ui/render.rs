//! Component tests: the page rendered to a string natively with Yew's
//! server renderer, asserted on its markup.

#![cfg(not(target_arch = "wasm32"))]

use distlock::lesson::presets;
use distlock::sim::Sim;
use distlock::sim::{
    rvn_text, Backend, Command, Config, Fencing, Millis, NodeCommand, NodeId, Seed, ServiceDetail,
};

use distlock::lesson::presets::first_scenario_config;
use distlock::ui::resource_panel::{ResourcePanel, ResourcePanelProps};
use distlock::ui::state::{
    parse_pause_s, parse_seed, parse_speed_quarters, parse_ttl_ms, ttl_words, Action, AppState,
    Notice,
};
use distlock::ui::status::StatusProps;
use distlock::words::{decimal, Extra};
use std::rc::Rc;
use yew::{LocalServerRenderer, Reducible};

use crate::common;
use common::{client, first_scenario_clicked, render_app};

const SEED: u64 = 1;

/// The whole opening tag around the first occurrence of `needle`.
fn tag_around<'a>(html: &'a str, needle: &str) -> &'a str {
    let at = html
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} is not in the page"));
    let start = html[..at].rfind('<').expect("inside a tag");
    let end = at + html[at..].find('>').expect("the tag closes");
    &html[start..=end]
}

/// The text right after the tag around `needle`, up to the next tag.
fn text_after<'a>(html: &'a str, needle: &str) -> &'a str {
    let tag = tag_around(html, needle);
    let start = html.find(tag).expect("found above") + tag.len();
    let end = start + html[start..].find('<').unwrap_or(0);
    &html[start..end]
}

/// Every button in the markup with this exact visible name.
fn count_buttons(html: &str, name: &str) -> usize {
    html.matches(&format!(">{name}</button>")).count()
}

#[tokio::test(flavor = "current_thread")]
async fn page_carries_the_names_tests_and_screen_readers_rely_on() {
    let html = render_app(None).await;
    for letter in ['A', 'B', 'C', 'D'] {
        let tag = tag_around(&html, &format!("aria-label=\"Client {letter}\""));
        assert!(
            tag.starts_with("<section"),
            "client {letter} is a region: {tag}"
        );
    }
    for name in [
        "Acquire",
        "Write",
        "Release",
        "GC pause",
        "Partition",
        "More faults",
    ] {
        assert_eq!(count_buttons(&html, name), 4, "{name} on every card");
    }
    // The two crashes, both words on each button: process and host.
    for (verb, kind) in [("Crash", "(process exits)"), ("Power off", "(host dies)")] {
        let name = format!(
            "<span class=\"client-card__crash-verb\">{verb}</span> <span class=\"client-card__crash-kind\">{kind}</span></button>"
        );
        assert_eq!(
            html.matches(&name).count(),
            4,
            "{verb} {kind} on every card"
        );
    }
    for name in ["Start", "Step", "Reset", "Set up the scenario to run first"] {
        assert_eq!(count_buttons(&html, name), 1, "one {name} button");
    }
    let group = tag_around(&html, "role=\"radiogroup\"");
    assert!(group.contains("aria-labelledby=\"backend-legend\""));
    assert_eq!(text_after(&html, "id=\"backend-legend\""), "Backend");
    for backend in Backend::ALL {
        let option = backend.name();
        assert!(
            html.contains(&format!("<span>{option}</span>")),
            "radio {option}"
        );
    }
    // The backend's radios (the Spanner section has two of its own).
    assert_eq!(html.matches("name=\"backend\"").count(), Backend::ALL.len());
    for label in ["Fencing", "TTL (s)", "Speed", "Seed", "Renewal"] {
        assert!(html.contains(&format!(">{label}</span>")), "label {label}");
    }
    assert_eq!(html.matches(">Pause (s)</span>").count(), 4);
    // A card's fields and buttons name their client beside the short word.
    for c in ["A", "B", "C", "D"] {
        for button in [
            "Pause (s)",
            "Renewal",
            "Acquire",
            "Write",
            "Release",
            "GC pause",
        ] {
            let named = format!("aria-label=\"{button}, client {c}\"");
            assert!(html.contains(&named), "{named}");
        }
    }
    let speed = tag_around(&html, "id=\"speed\"");
    for attr in ["type=\"range\"", "min=\"0.25\"", "max=\"8\""] {
        assert!(speed.contains(attr), "speed input {attr}: {speed}");
    }
    assert!(tag_around(&html, "id=\"ttl\"").contains("type=\"number\""));
    assert!(tag_around(&html, "id=\"fencing\"").contains("type=\"checkbox\""));
    for word in ["holder", "token", "rejected"] {
        assert!(
            html.contains(&format!("<dt>{word}</dt>")),
            "status word {word}"
        );
    }
    assert!(html.contains("aria-label=\"Status\""));
    assert_eq!(text_after(&html, "data-testid=\"rejected-count\""), "0");
    assert!(html.contains("t=0.0 s"));
    // The log is for reading; the narrator is the page's one polite voice.
    let log = tag_around(&html, "aria-label=\"Event log\"");
    assert!(
        log.starts_with("<ol") && !log.contains("aria-live"),
        "{log}"
    );
    assert_eq!(
        html.matches("aria-live=\"polite\"").count(),
        html.matches("class=\"tour__caption\"").count()
            + html.matches("class=\"timeline__caption\"").count()
            + html.matches("class=\"timeline__wire\"").count()
            + 1,
        "one narrator, beside the captions that answer the reader's own moves"
    );
    assert!(html.contains("data-testid=\"narrator\""));
    for region in ["Lock service", "Resource", "Messages in flight", "Controls"] {
        assert!(
            html.contains(&format!("aria-label=\"{region}\"")),
            "region {region}"
        );
    }
    assert!(
        html.contains("What you&#x27;re looking at") || html.contains("What you're looking at")
    );
    assert!(html.contains("The scenario to run first"));
    assert!(html.contains("shared-counter"));
    assert!(html.contains("etcd: token = create_revision of the lock key"));
}

#[tokio::test(flavor = "current_thread")]
async fn pause_chooser_offers_2_5_8_15_with_8_chosen() {
    let html = render_app(None).await;
    for s in [2, 5, 15] {
        assert_eq!(
            html.matches(&format!("<option value=\"{s}\">{s}</option>"))
                .count(),
            4
        );
    }
    assert_eq!(
        html.matches("<option value=\"8\" selected=\"selected\">8</option>")
            .count(),
        4
    );
}

#[tokio::test(flavor = "current_thread")]
async fn disabled_buttons_say_why_in_their_tooltip() {
    let html = render_app(None).await;
    assert!(
        html.contains("A does not hold the lock, so it has no token to write with: acquire first"),
        "Write on an idle card is disabled with the reason"
    );
    let release = tag_around(&html, "title=\"A neither holds nor waits for the lock\"");
    assert!(release.contains("disabled"), "{release}");
    let write = tag_around(&html, "title=\"A does not hold the lock");
    assert!(write.contains("disabled"), "{write}");
    assert!(
        html.contains("Nothing is scheduled"),
        "Step with nothing to run"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn fencing_off_shows_the_corruption_banner() {
    let sim = first_scenario_clicked(Backend::Etcd, Fencing::Off, SEED, 10_000);
    assert!(
        sim.oracle().corruptions() > 0,
        "A's late write should be accepted"
    );
    let html = render_app(Some(sim)).await;
    assert!(
        html.contains("Two holders, one increment lost: the counter reads 1 after 2 increments"),
        "the banner counts the lost increment"
    );
    assert!(
        html.contains("A wrote with token"),
        "says who wrote with which token"
    );
    assert!(!html.contains("fencing saved the counter"));
    assert_eq!(text_after(&html, "data-testid=\"rejected-count\""), "0");
}

#[tokio::test(flavor = "current_thread")]
async fn fencing_on_shows_the_save_banner_with_the_real_token() {
    let sim = first_scenario_clicked(Backend::Etcd, Fencing::On, SEED, 10_000);
    let stale = *sim
        .oracle()
        .last_stale_write()
        .unwrap_or_else(|| panic!("A's late write reached the resource"));
    assert!(!stale.accepted, "fencing rejects it");
    let token = stale.token.expect("A writes with a token");
    let html = render_app(Some(sim)).await;
    assert!(html.contains(&format!(
        "Stale token {token} rejected: fencing saved the counter"
    )));
    assert!(!html.contains("Two holders, one corrupted counter"));
    assert_eq!(text_after(&html, "data-testid=\"rejected-count\""), "1");
}

#[tokio::test(flavor = "current_thread")]
async fn resource_panel_alone_renders_from_plain_props() {
    let sim = first_scenario_clicked(Backend::Etcd, Fencing::Off, SEED, 10_000);
    let props = ResourcePanelProps::from_sim(&sim);
    assert_eq!(props.accepted, 2, "B's write and A's stale one");
    let html = LocalServerRenderer::<ResourcePanel>::with_props(props)
        .hydratable(false)
        .render()
        .await;
    assert!(html.contains("banner--corrupt"));
    assert!(html.contains("only knows the tokens it has seen in writes"));
}

#[tokio::test(flavor = "current_thread")]
async fn status_strip_shows_holder_token_and_clock() {
    let mut sim = Sim::new(Config::default()).expect("default config");
    sim.command(client('B'), Command::Acquire)
        .expect("B acquires");
    sim.run_until(Millis(5_200));
    let props = StatusProps::from_sim(&sim, false);
    assert_eq!(props.holder, Some(client('B')));
    let html = render_app(Some(sim)).await;
    assert!(html.contains("<dt>holder</dt><dd class=\"status__value\">B</dd>"));
    assert!(html.contains("t=5.2 s"));
}

#[tokio::test(flavor = "current_thread")]
async fn a_write_clicked_during_a_pause_is_shown_queued() {
    let mut sim = Sim::new(Config::default()).expect("default config");
    let a = client('A');
    sim.command(a, Command::Acquire).expect("A acquires");
    sim.run_until(Millis(1_000));
    sim.command(a, Command::GcPause { pause_ms: 8_000 })
        .expect("A pauses");
    sim.command(a, Command::Write)
        .expect("a paused holder's write is queued");
    let html = render_app(Some(sim)).await;
    assert!(html.contains("queued until it wakes: write"));
    assert!(html.contains("client-card--paused"));
    assert!(html.contains(">paused</p>") || html.contains("paused</p>"));
}

#[tokio::test(flavor = "current_thread")]
async fn partition_turns_into_heal_and_the_card_says_partitioned() {
    let mut sim = Sim::new(Config::default()).expect("default config");
    let c = client('C');
    sim.command(
        c,
        Command::Partition {
            scope: distlock::sim::PartitionScope::Service,
        },
    )
    .expect("C partitions");
    let html = render_app(Some(sim)).await;
    assert_eq!(count_buttons(&html, "Heal"), 1);
    assert_eq!(count_buttons(&html, "Partition"), 3);
    assert!(html.contains("client-card--partitioned"));
    assert!(html.contains("cut off from the lock service"));
}

#[tokio::test(flavor = "current_thread")]
async fn a_stale_holder_card_is_drawn_as_an_alarm() {
    // Stop the clock at t=6.5 s: A is still frozen and believes it holds,
    // while the service has let its lease go and B holds.
    let config = first_scenario_config(Seed(SEED));
    let mut sim = Sim::new(config).expect("valid");
    let (a, b) = (client('A'), client('B'));
    sim.command(a, Command::Acquire).expect("A");
    sim.run_until(Millis(1_000));
    sim.command(a, Command::GcPause { pause_ms: 8_000 })
        .expect("pause");
    sim.run_until(Millis(6_000));
    sim.command(b, Command::Acquire).expect("B");
    sim.run_until(Millis(6_500));
    assert!(sim.client_view(a).stale);
    let html = render_app(Some(sim)).await;
    assert!(html.contains("client-card--stale"));
    assert!(html.contains("A believes it holds the lock; the service says it does not."));
    assert!(html.contains("lease-bar--alarm"));
}

#[tokio::test(flavor = "current_thread")]
async fn each_backend_shows_its_own_internals() {
    let config = |backend| Config {
        backend,
        ..Config::default()
    };
    let redlock = render_app(Some(Sim::new(config(Backend::Redlock)).expect("ok"))).await;
    for n in 1..=5 {
        assert!(redlock.contains(&format!("aria-label=\"Crash node {n}\"")));
        assert!(redlock.contains(&format!("aria-label=\"Clock +10 s on node {n}\"")));
    }
    assert!(redlock.contains("Value-checked release"));
    assert!(redlock.contains("Delayed restart"));
    assert!(redlock.contains("Redlock: the lock value is random"));

    let mut zk = Sim::new(config(Backend::ZooKeeper)).expect("ok");
    zk.command(client('A'), Command::Acquire).expect("A");
    zk.command(client('B'), Command::Acquire).expect("B");
    zk.run_until(Millis(2_000));
    let zk = render_app(Some(zk)).await;
    assert!(zk.contains("zxid"));
    assert!(
        zk.contains("lock-0000000000"),
        "sequence numbers start at 0"
    );
    assert!(zk.contains("holds the lock"));
    assert!(zk.contains("waits (watches the one before)"));

    let mut etcd = Sim::new(config(Backend::Etcd)).expect("ok");
    etcd.command(client('A'), Command::Acquire).expect("A");
    etcd.run_until(Millis(2_000));
    let etcd = render_app(Some(etcd)).await;
    assert!(etcd.contains("revision "));
    assert!(etcd.contains("create_rev"));
    assert!(etcd.contains("A's lease ends at t="), "{etcd}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_crashed_redis_node_offers_restart() {
    let config = Config {
        backend: Backend::Redlock,
        ..Config::default()
    };
    let mut sim = Sim::new(config).expect("ok");
    let node = NodeId::new(3).expect("node 3");
    sim.node_command(node, NodeCommand::Crash)
        .expect("crash node 3");
    let html = render_app(Some(sim)).await;
    assert!(html.contains("aria-label=\"Restart node 3\""));
    assert!(html.contains("nodes__row--down"));
}

fn reduce(state: Rc<AppState>, action: Action) -> Rc<AppState> {
    state.reduce(action)
}

#[test]
fn bad_input_changes_nothing_and_says_why() {
    let start = Rc::new(AppState::default());
    let before = start.config();
    for action in [
        Action::SetTtl("75".into()),
        Action::SetTtl("0".into()),
        Action::SetTtl("abc".into()),
        Action::SetTtl("".into()),
        Action::SetSeed("-3".into()),
        Action::SetSeed("99999999999999999999999".into()),
        Action::SetSpeed("9".into()),
        Action::ChoosePause(client('A'), "7".into()),
    ] {
        let after = reduce(start.clone(), action.clone());
        assert_eq!(after.config(), before, "{action:?} changed the config");
        assert!(
            matches!(after.notice, Some(Notice::Refused(_))),
            "{action:?} gave no message"
        );
        assert!(
            Rc::ptr_eq(&after.sim, &start.sim),
            "{action:?} replaced the run"
        );
    }
}

#[test]
fn a_refused_entry_puts_its_field_back_to_the_run() {
    let start = Rc::new(AppState::default());
    let seed = reduce(start.clone(), Action::SetSeed("12x".into()));
    assert_eq!(seed.seed_text, "1", "the field shows the run's seed again");
    assert_eq!(seed.config().seed, Seed(1));
    assert!(
        matches!(seed.notice, Some(Notice::Refused(_))),
        "and says why"
    );
    let cleared = reduce(start, Action::SetTtl("".into()));
    assert_eq!(cleared.ttl_text, "5", "the field shows the run's TTL again");
    let typed = reduce(cleared, Action::SetTtl("2.50".into()));
    assert_eq!(
        (typed.ttl_text.as_str(), typed.config().ttl_ms),
        ("2.5", 2_500),
        "the field shows the value the run uses, as the run words it"
    );
    let first = reduce(typed, Action::SetUpFirstScenario);
    assert_eq!(first.ttl_text, "5", "a preset set-up rewrites the field");
}

#[test]
fn good_settings_start_a_fresh_run() {
    let start = Rc::new(AppState::default());
    start
        .sim
        .borrow_mut()
        .command(client('A'), Command::Acquire)
        .expect("A acquires");
    let ttl = reduce(start.clone(), Action::SetTtl("12.5".into()));
    assert_eq!(ttl.config().ttl_ms, 12_500);
    assert!(ttl.sim.borrow().history().is_empty(), "a fresh run");
    let redlock = reduce(ttl, Action::SetBackend(Backend::Redlock));
    assert_eq!(redlock.config().backend, Backend::Redlock);
    assert_eq!(redlock.config().ttl_ms, 12_500, "other settings stay");
    let fenced = reduce(redlock, Action::SetFencing(true));
    assert_eq!(fenced.config().fencing, Fencing::On);
    let seeded = reduce(fenced, Action::SetSeed(" 42 ".into()));
    assert_eq!(seeded.config().seed, Seed(42));
    let first = reduce(seeded, Action::SetUpFirstScenario);
    let config = first.config();
    assert_eq!(
        (config.backend, config.fencing, config.ttl_ms),
        (Backend::Redlock, Fencing::Off, 5_000),
        "the first story on the system chosen, fencing off, TTL 5 s"
    );
    assert_eq!(config.seed, Seed(42), "the seed is kept");
}

#[test]
fn ticks_move_virtual_time_by_their_step_only_while_running() {
    let start = Rc::new(AppState::default());
    let stopped = reduce(start.clone(), Action::Tick(16));
    assert!(
        Rc::ptr_eq(&stopped, &start),
        "a stopped clock skips the re-render"
    );
    let running = reduce(start, Action::Start);
    let fast = reduce(running, Action::SetSpeed("8".into()));
    assert_eq!(fast.frame_ms(), 128, "16 ms x 8 a sixtieth of a second");
    let after = reduce(fast, Action::Tick(300));
    assert_eq!(after.sim.borrow().now(), Millis(300));
    let paused = reduce(after, Action::Pause);
    let still = reduce(paused.clone(), Action::Tick(300));
    assert_eq!(still.sim.borrow().now(), Millis(300));
}

#[test]
fn step_runs_one_event_and_stops_the_clock() {
    let start = Rc::new(AppState::default());
    start
        .sim
        .borrow_mut()
        .command(client('A'), Command::Acquire)
        .expect("A acquires");
    let next = start
        .sim
        .borrow()
        .next_event_at()
        .expect("a message is on its way");
    let stepped = reduce(reduce(start, Action::Start), Action::Step);
    assert!(!stepped.running);
    assert_eq!(stepped.sim.borrow().now(), next);
}

#[test]
fn parsers_accept_what_people_type() {
    assert_eq!(parse_ttl_ms("5"), Ok(5_000));
    assert_eq!(parse_ttl_ms(" 1 "), Ok(1_000));
    assert_eq!(parse_ttl_ms("60"), Ok(60_000));
    assert!(parse_ttl_ms("60.5").is_err());
    assert!(parse_ttl_ms("NaN").is_err());
    assert!(parse_ttl_ms("inf").is_err());
    assert_eq!(parse_seed("18446744073709551615"), Ok(Seed(u64::MAX)));
    assert!(parse_seed("1.5").is_err());
    assert_eq!(parse_speed_quarters("0.25"), Ok(1));
    assert_eq!(parse_speed_quarters("8x"), Ok(32));
    assert!(parse_speed_quarters("0.1").is_err());
    assert_eq!(parse_pause_s("15"), Ok(15));
    assert!(parse_pause_s("3").is_err());
}

#[test]
fn a_loaded_story_plays_its_script_as_the_clock_runs() {
    let start = Rc::new(AppState::default());
    let loaded = reduce(start, Action::LoadPreset(&presets::GC_PAUSE));
    assert!(loaded.story.is_some(), "the story is loaded");
    let mut state = reduce(reduce(loaded, Action::SetSpeed("8".into())), Action::Start);
    for _ in 0..100 {
        let frame_ms = state.frame_ms();
        state = reduce(state, Action::Tick(frame_ms));
    }
    let sim = state.sim.borrow();
    assert!(sim.now() >= Millis(12_000));
    assert!(
        sim.oracle().corruptions() > 0,
        "the scripted stale write corrupts the counter"
    );
    let story = state.story.as_ref().expect("still loaded");
    assert!(story.script.is_done(), "every step ran");
}

#[test]
fn stepping_runs_a_due_story_step_first() {
    let start = Rc::new(AppState::default());
    let loaded = reduce(start, Action::LoadPreset(&presets::GC_PAUSE));
    assert!(loaded.sim.borrow().history().is_empty());
    let stepped = reduce(loaded, Action::Step);
    assert_eq!(stepped.story.as_ref().map(|s| s.script.done()), Some(1));
    assert!(
        !stepped.sim.borrow().history().is_empty(),
        "A's acquire ran at t=0"
    );
}

#[test]
fn a_story_follows_fencing_and_leaves_with_an_unsuitable_backend() {
    let start = Rc::new(AppState::default());
    let loaded = reduce(start, Action::LoadPreset(&presets::GC_PAUSE));
    let fenced = reduce(loaded, Action::SetFencing(true));
    assert_eq!(fenced.config().fencing, Fencing::On);
    assert_eq!(
        fenced.story.as_ref().map(|s| s.script.done()),
        Some(0),
        "replays from t=0"
    );
    let zk = reduce(fenced, Action::SetBackend(Backend::ZooKeeper));
    assert!(zk.story.is_some(), "gc-pause suits every backend");
    assert_eq!(zk.config().fencing, Fencing::On, "fencing stays");
    let loaded = reduce(zk, Action::LoadPreset(&presets::RELEASE_OTHER));
    assert_eq!(
        loaded.config().backend,
        Backend::Redis,
        "a Redis story switches ZooKeeper to the first Redis flavour"
    );
    assert_eq!(
        loaded.config().redis.release,
        distlock::sim::ReleaseMode::PlainDel,
        "the story's own settings come with it"
    );
    let etcd = reduce(loaded, Action::SetBackend(Backend::Etcd));
    assert!(etcd.story.is_none(), "release-other does not suit etcd");
}

#[tokio::test(flavor = "current_thread")]
async fn every_story_is_one_click_away_grouped_by_backend() {
    let html = render_app(None).await;
    let from = html
        .find("aria-label=\"Stories by backend\"")
        .expect("the menu");
    let menu = &html[from..from + html[from..].find("</nav>").expect("the menu ends")];
    for group in ["Every backend", "Redlock", "ZooKeeper", "etcd"] {
        assert!(menu.contains(&format!(">{group}</h3>")), "{group}");
    }
    for preset in distlock::lesson::presets::PRESETS {
        assert!(
            menu.contains(&format!(">{}</button>", preset.title)),
            "{}",
            preset.id
        );
    }
}

#[test]
fn one_click_loads_a_story_and_switches_to_a_backend_it_suits() {
    let start = Rc::new(AppState::default());
    assert_eq!(start.config().backend, Backend::Etcd);
    let loaded = reduce(start, Action::LoadPreset(&presets::REDLOCK_RESTART));
    assert_eq!(loaded.config().backend, Backend::Redlock);
    let loaded_story = loaded.story.as_ref().expect("loaded");
    assert_eq!(loaded_story.preset.id, "redlock-restart");
    assert!(loaded_story.tour.len() >= 3, "{:?}", loaded_story.tour);
    // A story for every backend stays on the current one.
    let zk = reduce(loaded, Action::SetBackend(Backend::ZooKeeper));
    let gc = reduce(zk, Action::LoadPreset(&presets::GC_PAUSE));
    assert_eq!(gc.config().backend, Backend::ZooKeeper);
    assert!(gc.story.is_some());
}

/// Ticks until the clock stops (a tour's Next stops on its key moment).
fn run_to_stop(mut state: Rc<AppState>) -> Rc<AppState> {
    for _ in 0..10_000 {
        if !state.running {
            break;
        }
        let frame_ms = state.frame_ms();
        state = reduce(state, Action::Tick(frame_ms));
    }
    assert!(!state.running, "the clock stopped");
    state
}

/// A tour's Next played to its moment, a question it asks first skipped.
fn next_moment(state: Rc<AppState>) -> Rc<AppState> {
    let state = reduce(state, Action::TourNext);
    let asked = state
        .story
        .as_ref()
        .is_some_and(|s| s.quiz.asking.is_some());
    assert!(!asked || !state.running, "a question stops the clock");
    if asked {
        run_to_stop(reduce(state, Action::TourAnswer(None)))
    } else {
        run_to_stop(state)
    }
}

#[test]
fn the_tour_stops_on_each_key_moment_and_back_replays_to_the_last() {
    let loaded = reduce(
        Rc::new(AppState::default()),
        Action::LoadPreset(&presets::GC_PAUSE),
    );
    let moments = loaded.story.as_ref().unwrap().tour.clone();
    let mut state = loaded;
    for (i, moment) in moments.iter().enumerate() {
        state = next_moment(state);
        let now = state.sim.borrow().now();
        assert_eq!(now, moment.at, "moment {i}");
        assert_eq!(state.story.as_ref().unwrap().reached(now), i + 1);
    }
    let end = state.sim.borrow().history().len();
    assert!(state.sim.borrow().oracle().corruptions() > 0);
    let back = reduce(state, Action::TourBack);
    let now = back.sim.borrow().now();
    assert_eq!(
        now,
        moments[moments.len() - 2].at,
        "back to the moment before"
    );
    assert!(back.sim.borrow().history().len() < end);
    assert_eq!(
        back.sim.borrow().oracle().corruptions(),
        0,
        "not yet corrupted then"
    );
    // Playing on from there gives the same run again.
    let again = next_moment(back);
    assert_eq!(again.sim.borrow().now(), moments[moments.len() - 1].at);
    assert_eq!(again.sim.borrow().oracle().corruptions(), 1);
}

#[tokio::test(flavor = "current_thread")]
async fn a_tour_points_at_what_to_look_at() {
    let loaded = reduce(
        Rc::new(AppState::default()),
        Action::LoadPreset(&presets::GC_PAUSE),
    );
    let first = run_to_stop(reduce(loaded, Action::TourNext));
    let state = AppState::clone(&first);
    let story = state.story.as_ref().unwrap();
    let moment = story
        .current(state.sim.borrow().now())
        .expect("at a key moment");
    assert_eq!(moment.look, distlock::lesson::tour::Look::Card(client('A')));
    assert!(
        moment.caption.contains("A holds the lock"),
        "{}",
        moment.caption
    );
    use distlock::ui::stories::{Stories, StoriesProps};
    let props = StoriesProps::from_state(&state, Backend::Etcd, yew::Callback::noop());
    let html = LocalServerRenderer::<Stories>::with_props(props)
        .hydratable(false)
        .render()
        .await;
    let total = story.tour.len();
    assert!(html.contains(&format!("Key moment 1 of {total}")), "{html}");
    assert!(html.contains("Look at client A."), "{html}");
    assert!(
        !html.contains("Try this: "),
        "the fix is offered only after the break: {html}"
    );
    assert_eq!(count_buttons(&html, "Next"), 1);
}

#[test]
fn try_this_flips_one_setting_and_undo_puts_it_back() {
    let loaded = reduce(
        Rc::new(AppState::default()),
        Action::LoadPreset(&presets::REDLOCK_RESTART),
    );
    use distlock::sim::RestartPolicy;
    assert_eq!(loaded.config().redis.restart, RestartPolicy::Immediate);
    let tried = reduce(loaded, Action::TryThis(true));
    assert_eq!(tried.config().redis.restart, RestartPolicy::Delayed);
    let tour = &tried.story.as_ref().unwrap().tour;
    assert!(
        tour.iter().all(|m| !m.caption.contains("Two holders")),
        "the tour follows the change: {tour:?}"
    );
    let undone = reduce(tried, Action::TryThis(false));
    assert_eq!(undone.config().redis.restart, RestartPolicy::Immediate);
}

#[test]
fn keys_act_on_the_selected_client() {
    use distlock::ui::guide::{shortcut_of, Shortcut};
    let key = |state, k: &str| reduce(state, Action::Shortcut(shortcut_of(k).expect(k)));
    let state = key(Rc::new(AppState::default()), "2");
    assert_eq!(state.selected, client('B'));
    let state = key(state, "a");
    assert_eq!(state.sim.borrow().scenario().actions.len(), 1, "B acquires");
    let state = key(state, " ");
    assert!(state.running, "space starts the clock");
    let state = key(state, " ");
    assert!(!state.running, "and pauses it");
    let state = key(state, "p");
    assert!(state
        .sim
        .borrow()
        .client_view(client('B'))
        .partition
        .is_some());
    let state = key(state, "p");
    assert!(
        state
            .sim
            .borrow()
            .client_view(client('B'))
            .partition
            .is_none(),
        "p again heals"
    );
    // x crashes B's process, and again restarts it; o powers its host off.
    let state = key(state, "x");
    assert!(
        state.sim.borrow().client_view(client('B')).exited,
        "x: the process exits"
    );
    let state = key(state, "x");
    assert!(
        !state.sim.borrow().client_view(client('B')).crashed,
        "x again restarts"
    );
    let state = key(state, "o");
    let b = state.sim.borrow().client_view(client('B'));
    assert!(b.crashed && !b.exited, "o: the host dies");
    let state = key(state, "o");
    assert!(
        !state.sim.borrow().client_view(client('B')).crashed,
        "o again restarts"
    );
    let state = key(state, "?");
    assert!(state.help);
    let state = key(state, "Escape");
    assert!(!state.help);
    assert_eq!(shortcut_of("z"), None);
    assert_eq!(shortcut_of("5"), None);
    assert_eq!(shortcut_of("ArrowRight"), Some(Shortcut::Step));
}

#[test]
fn step_is_offered_while_a_story_has_steps_left() {
    use distlock::ui::controls::ControlsProps;
    let fresh = Rc::new(AppState::default());
    let blocked = ControlsProps::from_sim(&fresh.sim.borrow(), &fresh, yew::Callback::noop());
    assert!(
        blocked.step_blocked.is_some(),
        "nothing to run in a fresh run"
    );
    let loaded = reduce(fresh, Action::LoadPreset(&presets::GC_PAUSE));
    let props = ControlsProps::from_sim(&loaded.sim.borrow(), &loaded, yew::Callback::noop());
    assert_eq!(props.step_blocked, None, "the story's first step can run");
}

#[tokio::test(flavor = "current_thread")]
async fn a_full_history_says_how_many_events_it_left_out() {
    use distlock::ui::event_log::{EventLog, EventLogProps};
    let props = |dropped| EventLogProps {
        lines: Rc::new(Vec::new()),
        lines_max: distlock::ui::event_log::LOG_LINES_MAX,
        total: 200_000,
        dropped,
        with_messages: false,
        dispatch: yew::Callback::noop(),
        run: 1,
        run_link: yew::Callback::from(|()| String::new()),
    };
    let full = LocalServerRenderer::<EventLog>::with_props(props(37))
        .hydratable(false)
        .render()
        .await;
    assert!(
        full.contains("The history is full at 200000 records")
            && full.contains("the last 37 events were not recorded"),
        "{full}"
    );
    let room = LocalServerRenderer::<EventLog>::with_props(props(0))
        .hydratable(false)
        .render()
        .await;
    assert!(!room.contains("history is full"), "{room}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_message_line_offers_its_wire_text_and_other_lines_do_not() {
    use distlock::sim::EventKind;
    use distlock::ui::event_log::{EventLog, EventLogProps, LogLine};
    let line = |index, kind, message| LogLine {
        index,
        kind,
        text: format!("line {index}").into(),
        message,
    };
    let props = EventLogProps {
        lines: Rc::new(vec![
            line(1, EventKind::Message, Some(7)),
            line(0, EventKind::Lock, None),
        ]),
        lines_max: distlock::ui::event_log::LOG_LINES_MAX,
        total: 2,
        dropped: 0,
        with_messages: true,
        dispatch: yew::Callback::noop(),
        run: 1,
        run_link: yew::Callback::from(|()| String::new()),
    };
    let html = LocalServerRenderer::<EventLog>::with_props(props)
        .hydratable(false)
        .render()
        .await;
    assert_eq!(
        html.matches(r#"<details class="log__wire">"#).count(),
        1,
        "{html}"
    );
    assert!(
        html.contains(r#"<summary data-wire="7" class="log__wire-toggle">wire</summary>"#),
        "{html}"
    );
    assert!(
        !html.contains("<details class=\"log__wire\" open"),
        "closed until asked: {html}"
    );
    // Nothing is asked of the worker until the disclosure is opened.
    assert!(!html.contains("work__status"), "{html}");
}

#[test]
fn decimals_are_read_as_people_type_them() {
    assert_eq!(decimal("2.5", 3, Extra::Round), Some(2_500));
    assert_eq!(decimal(" 30 ", 3, Extra::Round), Some(30_000));
    assert_eq!(decimal(".125", 3, Extra::Round), Some(125));
    assert_eq!(decimal("7.", 3, Extra::Round), Some(7_000));
    assert_eq!(
        decimal("1.0005", 3, Extra::Round),
        Some(1_001),
        "rounded half up"
    );
    assert_eq!(decimal("1.0004", 3, Extra::Round), Some(1_000));
    for bad in [
        "",
        ".",
        "-1",
        "+1",
        "1e3",
        "1,5",
        "one",
        "1.2.3",
        "99999999999999999999",
    ] {
        assert_eq!(decimal(bad, 3, Extra::Round), None, "{bad:?}");
    }
    assert_eq!(ttl_words(5_000), "5");
    assert_eq!(ttl_words(2_500), "2.5");
    assert_eq!(ttl_words(1_025), "1.025");
    assert_eq!(parse_ttl_ms("2.5"), Ok(2_500));
    assert_eq!(parse_speed_quarters("1.1"), Ok(4), "rounded to a quarter");
    assert_eq!(
        parse_speed_quarters("0.125x"),
        Ok(1),
        "half a quarter rounds up"
    );
}

/// A run on `config`'s backend driven by `steps` (time, client, command).
fn scripted(config: Config, steps: &[(u64, char, Command)], until_ms: u64) -> Sim {
    let mut sim = Sim::new(config).expect("valid config");
    for &(at, who, command) in steps {
        sim.run_until(Millis(at));
        sim.command(client(who), command)
            .unwrap_or_else(|e| panic!("{who} {command} refused: {e}"));
    }
    sim.run_until(Millis(until_ms));
    sim
}

/// The page after `steps` on `backend`, the first scenario's settings
/// otherwise, run to `until_ms`.
async fn page_after(backend: Backend, steps: &[(u64, char, Command)], until_ms: u64) -> String {
    let config = Config {
        backend,
        ..first_scenario_config(Seed(SEED))
    };
    render_app(Some(scripted(config, steps, until_ms))).await
}

/// The page after the scenario to run first, clicked through on etcd
/// with fencing off, at 10 s.
async fn first_scenario_page_on_etcd() -> String {
    render_app(Some(first_scenario_clicked(
        Backend::Etcd,
        Fencing::Off,
        SEED,
        10_000,
    )))
    .await
}

#[tokio::test]
async fn cards_say_which_zookeeper_client_runs_and_redlock_shows_its_validity_budget() {
    let html = page_after(Backend::ZooKeeper, &[(0, 'A', Command::Acquire)], 1_000).await;
    assert!(
        html.contains("ZooKeeper client: Curator: CONNECTED"),
        "{html}"
    );
    // The native client from 3.9.3 (ZOOKEEPER-4508) expires its own
    // session 4/3 of the timeout after it last heard the ensemble:
    // apache/zookeeper release-3.9.3, ClientCnxn.java 424
    // (`expirationTimeout = sessionTimeout * 4 / 3`) and 1245-1253.
    assert!(
        html.contains("kazoo, or the native client before 3.9.3"),
        "the library is a setting"
    );
    let html = page_after(Backend::Redlock, &[(0, 'A', Command::Acquire)], 1_000).await;
    assert!(
        html.contains("validity = TTL 5.0 s - elapsed 1.0 s - drift 52 ms = 3.9 s"),
        "{html}"
    );
}

#[tokio::test]
async fn a_clamped_session_timeout_is_said_in_the_zookeeper_panel() {
    let config = Config {
        backend: Backend::ZooKeeper,
        ttl_ms: 1_000,
        ..first_scenario_config(Seed(SEED))
    };
    let html = render_app(Some(Sim::new(config).unwrap())).await;
    assert!(
        html.contains("The clients ask for 1.0 s (the TTL setting); the server clamps it to 2-20 x tickTime and grants 4.0 s."),
        "{html}"
    );
}

#[tokio::test]
async fn a_late_write_with_nobody_granted_since_is_called_a_write_without_a_lease() {
    let config = first_scenario_config(Seed(SEED));
    let sim = scripted(
        config,
        &[
            (0, 'A', Command::Acquire),
            (1_000, 'A', Command::GcPause { pause_ms: 8_000 }),
            (1_000, 'A', Command::Write),
        ],
        10_000,
    );
    let html = render_app(Some(sim)).await;
    assert!(
        html.contains("Write without a lease: at t=9.0 s A wrote"),
        "{html}"
    );
    assert!(!html.contains("banner--alarm"), "no corruption banner");
}

#[tokio::test]
async fn a_client_clock_can_run_slow_jump_and_lose_messages_from_its_card() {
    let html = first_scenario_page_on_etcd().await;
    for name in ["Slow clock (-20%)", "Clock +5 s", "Lose messages"] {
        assert_eq!(count_buttons(&html, name), 4, "{name} on every card");
    }
    let config = first_scenario_config(Seed(SEED));
    let sim = scripted(
        config,
        &[
            (0, 'B', Command::ClockRate { rate_pct: -20 }),
            (0, 'B', Command::ClockJump { jump_ms: 5_000 }),
        ],
        1_000,
    );
    let html = render_app(Some(sim)).await;
    assert!(
        html.contains("its clock: 4.8 s ahead, running 20% slow"),
        "{html}"
    );
    assert_eq!(count_buttons(&html, "Clock runs true"), 1);
}

#[tokio::test]
async fn the_chubby_panel_shows_its_sequencer_and_lock_delay_and_a_card_its_jeopardy() {
    let config = Config {
        backend: Backend::Chubby,
        ..first_scenario_config(Seed(SEED))
    };
    let cut = Command::Partition {
        scope: distlock::sim::PartitionScope::Service,
    };
    let steps = [
        (0, 'A', Command::Acquire),
        (500, 'B', Command::Acquire),
        (1_000, 'A', cut),
    ];
    let html = render_app(Some(scripted(config.clone(), &steps, 7_000))).await;
    for words in [
        "Chubby's sequencer and lock-delay",
        "lock generation number ",
        "exclusive, generation 1",
        "Acquire blocked at the master: B",
        "aria-label=\"Master fails over\"",
        "Simplified on purpose:",
        "1 min (25.0 s here)",
        "Chubby: token = the lock generation number",
        "Chubby session: jeopardy.",
        "grace period until t=",
        "client-card--jeopardy",
        "Chubby master says",
        // Whether a cut-off holder is stopped in time depends on the
        // lock-delay, and the note says which with the value.
        "Lock-delay 1 min (25.0 s here) is long enough",
        "20 s (8.3 s here)",
    ] {
        assert!(html.contains(words), "{words}\n{html}");
    }
    // The master ends A's session near 9.7 s: the lock-delay holds it.
    let html = render_app(Some(scripted(config, &steps, 12_000))).await;
    assert!(html.contains("free, but nobody may claim it for"), "{html}");
    assert!(html.contains("tl-lock-delay"), "drawn on the service lane");
}
#[tokio::test(flavor = "current_thread")]
async fn dynamodb_panel_shows_the_item_its_rvn_and_the_waiters_watch() {
    use distlock::lesson::presets;

    let scenario = presets::DYNAMODB_TAKEOVER
        .scenario(Backend::DynamoDb, Fencing::On)
        .expect("its story");
    // At 5 s: A is frozen holding the item, B watches its last RVN.
    let mut sim = Sim::play(&scenario, Millis(5_000)).expect("the story plays");
    sim.run_until(Millis(5_000));
    let ServiceDetail::DynamoDb(detail) = sim.service_detail() else {
        panic!("a DynamoDB run");
    };
    let item = detail.item.expect("A's item");
    let html = render_app(Some(sim.clone())).await;
    for words in [
        "ownerName",
        "leaseDuration",
        rvn_text(item.rvn).as_str(),
        "Waiters' watches",
        "B saw A's RVN",
        "Simplified on purpose: the table is one always-available service",
        "DynamoDB lock client settings",
        "no token: the lock item's RVN is a random UUID",
        // Whether a holder stops at its deadline is the application's
        // code, and the panel and A's card say which it runs.
        "id=\"dynamo-checks-on\"",
        "id=\"dynamo-checks-off\"",
        "Now: the application checks.",
        "its application polls isExpired() before each write",
    ] {
        assert!(html.contains(words), "{words}");
    }
    assert!(tag_around(&html, "id=\"dynamo-wait\"").contains("select"));
    let mut never = scenario.clone();
    never.config.dynamo.app_checks_expiry = false;
    let unasked = Sim::play(&never, Millis(5_000)).expect("the story plays");
    let html = render_app(Some(unasked)).await;
    for words in [
        "Now: the application never asks.",
        "its application never asks isExpired()",
    ] {
        assert!(html.contains(words), "{words}");
    }

    // After A's late write: the save banner explains the condition on the item.
    sim.run_until(Millis(14_000));
    let html = render_app(Some(sim)).await;
    assert!(html.contains("ConditionCheck that the lock item names its writer"));
    assert!(html.contains("cannot be ordered"));
}
#[tokio::test(flavor = "current_thread")]
async fn consul_shows_its_session_and_indexes_and_a_card_its_leaderch() {
    let config = Config {
        backend: Backend::Consul,
        ..Config::default()
    };
    let mut sim = Sim::new(config).expect("ok");
    sim.command(client('A'), Command::Acquire).expect("A");
    sim.run_until(Millis(1_000));
    sim.command(client('B'), Command::Acquire).expect("B");
    sim.run_until(Millis(2_000));
    let html = render_app(Some(sim)).await;
    assert!(html.contains("session and indexes: key locks/shared-counter"));
    for column in [
        "LockIndex",
        "ModifyIndex (the token)",
        "CreateIndex",
        "invalidated in",
        "serfHealth",
    ] {
        assert!(html.contains(column), "{column}");
    }
    assert!(html.contains("Waiters poll, in no order (no queue)"));
    assert!(html.contains(">Fail over the Consul leader<"));
    assert!(html.contains("Fence with LockIndex alone"));
    assert!(html.contains("Fence with the sequencer (LockIndex and Session)"));
    assert!(html.contains("Behavior=delete"));
    assert!(html.contains("id=\"consul-lock-delay\""));
    // MonitorRetries beside them: the api's 0 chosen, consul lock's 3 offered.
    assert!(html.contains("id=\"consul-monitor-retries\""));
    assert!(html.contains("0: give the lock up (api default)"));
    assert!(html.contains("3, 1 s apart (consul lock)"));
    assert!(html.contains("(consul lock asks 3 times, 1 s apart)"));
    // memberlist's suspicion in the model's pool of 7 (issue 50, row 4),
    // and what a failover holds (row 1).
    assert!(html.contains("the 3 servers and the 4 clients' agents"));
    assert!(html.contains("starts at 24 s and falls to its 4 s minimum"));
    assert!(html.contains("a blocking GET waits its own wait and 7 s more"));
    assert!(html.contains("Simplified on purpose: the servers are one Raft cluster"));
    // A's card: its session and an open leaderCh; B's: polling.
    assert!(html.contains("holds; monitorLock watches the key (leaderCh open)"));
    assert!(html.contains("Lock(): blocking GET until the key"));
    assert!(html.contains("Consul says"));
}

#[tokio::test]
async fn postgres_shows_pg_locks_its_connections_and_one_server_for_lock_and_data() {
    let html = page_after(
        Backend::Postgres,
        &[
            (0, 'A', Command::Acquire),
            (500, 'B', Command::Acquire),
            (1_000, 'C', Command::PowerOff),
            (1_500, 'A', Command::Write),
        ],
        3_000,
    )
    .await;
    // The lock service's own books: pg_locks and each backend's keepalive.
    for needle in [
        "pg_locks: locktype advisory, objid 42, mode ExclusiveLock",
        "t (holds it)",
        "f (blocked)",
        "active (waiting: advisory)",
        "probes sent",
        // PostgreSQL's default keepalives are Linux's: 9 probes.
        "0 of 9",
        "Linux defaults (the settings at 0)",
        "Fail over to the standby",
        "Simplified on purpose: one primary with one asynchronous standby",
        "counter row version ",
    ] {
        assert!(html.contains(needle), "{needle}\n{html}");
    }
    // The resource: one server, the value is the version column.
    assert!(
        html.contains("Here the lock and the data live in one PostgreSQL server"),
        "{html}"
    );
    assert!(html.contains("value = version"), "{html}");
    // The cards: the connection, no lease, no renewal, the host that dies.
    assert!(
        html.contains("holds advisory lock 42: no lease to run out"),
        "{html}"
    );
    assert!(html.contains("blocked in pg_advisory_lock(42)"), "{html}");
    assert!(html.contains("holds it, no lease to run out"), "{html}");
    assert!(
        html.contains("PostgreSQL's advisory lock has no lease to renew"),
        "the renewal switch says why it is off\n{html}"
    );
    assert!(
        tag_around(
            &html,
            "PostgreSQL keeps its session and lock until TCP keepalives give up"
        )
        .contains("title="),
        "the Power off button says what a dead host costs here"
    );
    assert!(
        tag_around(&html, "PostgreSQL reads EOF and frees its lock at once").contains("title="),
        "the Crash (process exits) button says what a process exit costs here"
    );
    // C's host died before it opened a connection: its card says what the
    // server noticed, nothing.
    assert!(
        html.contains("the server hears nothing; it has no session of its"),
        "{html}"
    );
    // The controls: the TTL plays no part.
    assert!(html.contains("PostgreSQL ignores the TTL"), "{html}");
    assert!(
        html.contains("PostgreSQL: no token from the lock; fencing = the row's version column"),
        "{html}"
    );
    assert!(
        html.contains("A's session holds the lock, with no end"),
        "{html}"
    );
    // Other backends keep their own words.
    let html = first_scenario_page_on_etcd().await;
    assert!(!html.contains("PostgreSQL ignores the TTL"));
    assert!(!html.contains("live in one"));
}

// The lesson: "Set up the scenario to run first" starts the first story's
// tour; the tour closes, ends by itself, and offers the fix as its last step.

#[tokio::test(flavor = "current_thread")]
async fn set_up_starts_the_first_story_at_its_first_key_moment_on_the_chosen_system() {
    for backend in [Backend::Etcd, Backend::ZooKeeper, Backend::Consul] {
        let chosen = reduce(Rc::new(AppState::default()), Action::SetBackend(backend));
        let fenced = reduce(chosen, Action::SetFencing(true));
        let ttl = reduce(fenced, Action::SetTtl("12".into()));
        let set_up = reduce(ttl, Action::SetUpFirstScenario);
        let config = set_up.config();
        assert_eq!(
            (config.backend, config.fencing, config.ttl_ms),
            (backend, Fencing::Off, 5_000)
        );
        let story = set_up.story.as_ref().expect("the first story is loaded");
        assert_eq!(story.preset.id, "gc-pause");
        assert!(set_up.running, "it plays to the first key moment");
        let stopped = run_to_stop(set_up);
        let state = AppState::clone(&stopped);
        let story = state.story.as_ref().unwrap();
        let now = state.sim.borrow().now();
        assert_eq!(
            now, story.tour[0].at,
            "{backend:?}: stopped on the first moment"
        );
        let html = common::render_stories(&state).await;
        let total = story.tour.len();
        assert!(html.contains(&format!("Key moment 1 of {total}")), "{html}");
        assert!(html.contains("A holds the lock"), "{html}");
        assert!(html.contains("aria-label=\"Close tour\""), "{html}");
        // One count: the key moments; the script's steps are not counted.
        assert!(!html.contains(" steps"), "{html}");
    }
}

#[tokio::test(flavor = "current_thread")]
async fn the_tour_closes_with_its_button_or_escape_and_comes_back() {
    use distlock::ui::guide::{shortcut_of, Shortcut};
    let set_up = run_to_stop(reduce(
        Rc::new(AppState::default()),
        Action::SetUpFirstScenario,
    ));
    let closed = reduce(set_up.clone(), Action::ShowTour(false));
    assert!(closed.story.as_ref().unwrap().tour_closed);
    let html = common::render_stories(&closed).await;
    assert!(!html.contains("aria-label=\"Tour\""), "{html}");
    assert!(html.contains(">Show the tour</button>"), "{html}");
    let shown = reduce(closed, Action::ShowTour(true));
    assert!(!shown.story.as_ref().unwrap().tour_closed);

    // Escape closes the shortcuts first, then the tour.
    let escape = Action::Shortcut(shortcut_of("Escape").expect("Escape"));
    let help = reduce(shown, Action::ShowHelp(true));
    let once = reduce(help, escape.clone());
    assert!(!once.help && !once.story.as_ref().unwrap().tour_closed);
    let twice = reduce(once, escape);
    assert!(twice.story.as_ref().unwrap().tour_closed);
    assert_eq!(shortcut_of("Escape"), Some(Shortcut::Escape));
}

#[tokio::test(flavor = "current_thread")]
async fn the_tour_offers_the_fix_last_and_ends_by_itself_once_the_story_is_over() {
    let mut state = run_to_stop(reduce(
        Rc::new(AppState::default()),
        Action::SetUpFirstScenario,
    ));
    let total = state.story.as_ref().unwrap().tour.len();
    for _ in 1..total {
        state = next_moment(state);
    }
    let html = common::render_stories(&state).await;
    assert!(
        html.contains(&format!("Key moment {total} of {total}")),
        "{html}"
    );
    assert!(html.contains("stale write"), "{html}");
    assert!(html.contains(">Now turn fencing on</button>"), "{html}");

    // The clock runs on past the last moment: the bar folds into a line.
    let on = reduce(state.clone(), Action::Start);
    let mut later = on;
    for _ in 0..200 {
        let frame_ms = later.frame_ms();
        later = reduce(later, Action::Tick(frame_ms));
    }
    let html = common::render_stories(&later).await;
    assert!(!html.contains("aria-label=\"Tour\""), "{html}");
    assert!(html.contains("The tour is over."), "{html}");
    assert!(html.contains(">Replay the tour</button>"), "{html}");

    // The last step turns fencing on and starts the tour again.
    let fixed = run_to_stop(reduce(state, Action::TryThisInTour));
    assert_eq!(fixed.config().fencing, Fencing::On);
    let story = fixed.story.as_ref().unwrap();
    assert_eq!(fixed.sim.borrow().now(), story.tour[0].at);
    assert!(story.tour.last().unwrap().caption.contains("rejected"));

    let replayed = run_to_stop(reduce(later, Action::ReplayTour));
    let story = replayed.story.as_ref().unwrap();
    assert_eq!(replayed.sim.borrow().now(), story.tour[0].at);
}

#[tokio::test(flavor = "current_thread")]
async fn the_stories_menu_is_one_button_until_opened() {
    let html = render_app(None).await;
    let toggle = tag_around(&html, "aria-controls=\"stories-menu\"");
    assert!(toggle.contains("aria-expanded=\"false\""), "{toggle}");
    let menu = tag_around(&html, "id=\"stories-menu\"");
    assert!(menu.contains("hidden"), "closed at first: {menu}");
}

#[tokio::test(flavor = "current_thread")]
async fn single_redis_offers_three_waits_named_as_they_behave() {
    let config = Config {
        backend: Backend::Redis,
        redis: distlock::sim::RedisOptions {
            wait: distlock::sim::ReplicaWait::Redisson,
            ..Default::default()
        },
        ..first_scenario_config(Seed(SEED))
    };
    let html = render_app(Some(scripted(config, &[(0, 'A', Command::Acquire)], 2_000))).await;
    for words in [
        "id=\"redis-wait-off\"",
        "id=\"redis-wait-redisson\"",
        "id=\"redis-wait-app\"",
        "WAITs as Redisson does",
        "a master with no replica grants unreplicated",
        "the application's WAIT 1",
    ] {
        assert!(html.contains(words), "{words}\n{html}");
    }
}

/// A crashed client's card says what its lock service noticed, in that
/// service's words, and nothing of a Lock() call that died with it.
#[tokio::test]
async fn a_crashed_card_says_what_its_service_noticed() {
    let html = page_after(
        Backend::Consul,
        &[(0, 'A', Command::Acquire), (1_000, 'A', Command::PowerOff)],
        3_500,
    )
    .await;
    assert!(
        html.contains("serf marked its node failed: its session was invalidated, then lock-delay"),
        "{html}"
    );
    assert!(
        !html.contains("its agent cannot reach the servers"),
        "{html}"
    );
    let html = page_after(
        Backend::Etcd,
        &[(0, 'A', Command::Acquire), (1_000, 'A', Command::Exit)],
        1_200,
    )
    .await;
    assert!(
        html.contains("a closed stream revokes nothing: the lease runs out at its TTL"),
        "{html}"
    );
    assert!(html.contains(">Restart</button>"), "{html}");
}

/// Faster than 4x the clock wakes ten times a second and a hop lasts a
/// frame or two: the strip draws only the messages TCP holds across a
/// partition, and says how to watch the others. At 4x, or stopped at any
/// speed, it draws every message.
#[tokio::test(flavor = "current_thread")]
async fn faster_than_4x_the_strip_draws_only_the_messages_tcp_holds() {
    use distlock::ui::messages::{Messages, MessagesProps};
    let (fast, four) = (16 * 8, 16 * 4);
    let mut sim = Sim::new(first_scenario_config(Seed(SEED))).expect("a valid config");
    sim.command(client('A'), Command::Acquire).expect("A asks");
    let drawn = |sim: &Sim, frame_ms: u64| MessagesProps::from_sim(sim, frame_ms);
    assert_eq!(
        drawn(&sim, 0).flights.len(),
        1,
        "A's request, the clock stopped"
    );
    assert_eq!(drawn(&sim, four).flights.len(), 1, "at 4x");
    let quick = drawn(&sim, fast);
    assert!(
        quick.quick && quick.flights.is_empty() && quick.hidden == 0,
        "{quick:?}"
    );
    let html = LocalServerRenderer::<Messages>::with_props(quick)
        .render()
        .await;
    assert!(
        html.contains("Too quick to watch at this speed: pause, or 4x or slower."),
        "{html}"
    );
    assert!(!html.contains("Nothing on the wire."), "{html}");

    // B, cut off from the service, asks: TCP holds its request and sends
    // it again, for minutes.
    let b = client('B');
    let cut = Command::Partition {
        scope: distlock::sim::PartitionScope::Service,
    };
    sim.command(b, cut).expect("B cut off");
    sim.command(b, Command::Acquire).expect("B asks");
    let deadline = sim.now().plus(10_000);
    while !sim.in_flight().any(|m| m.retransmits > 0) {
        assert!(
            sim.now() < deadline && sim.step(),
            "B's request sent again by t={deadline}"
        );
    }
    let quick = drawn(&sim, fast);
    assert!(!quick.flights.is_empty(), "{quick:?}");
    assert!(quick.flights.iter().all(|f| f.held), "{quick:?}");
    assert!(drawn(&sim, four).flights.len() >= quick.flights.len());
}
