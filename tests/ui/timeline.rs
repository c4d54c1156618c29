//! The timeline panel rendered to a string, and moving through time with
//! the page's reducer: back, forward, playing the recorded run again, and
//! forking it with a new command.

#![cfg(not(target_arch = "wasm32"))]

use distlock::sim::{Backend, ClientId, ClientState, Command, Config, Fencing, Millis, Seed, Sim};

use distlock::ui::state::{Action, AppState, Notice, StartSim};
use std::rc::Rc;
use yew::Reducible;

use crate::common;
use common::{client, first_scenario_clicked, timeline_at, timeline_until};

const SEED: u64 = 1;

async fn render(sim: Sim) -> String {
    common::render_app(Some(sim)).await
}

/// The markup of the timeline panel alone.
fn timeline_of(html: &str) -> &str {
    let start = html
        .find("class=\"panel timeline\"")
        .expect("the page has a timeline");
    let end = start + html[start..].find("</section>").expect("the panel closes");
    &html[start..end]
}

#[tokio::test]
async fn the_first_scenario_draws_the_overlap_the_grant_and_the_stale_write() {
    let html = render(first_scenario_clicked(
        Backend::Redlock,
        Fencing::Off,
        SEED,
        10_000,
    ))
    .await;
    let timeline = timeline_of(&html);
    assert!(timeline.contains("<svg"), "the picture is an SVG");
    assert!(
        timeline.contains("tl-zone--alarm")
            && timeline.contains("Believed holder: A still believes it holds while the service has given the lock to B"),
        "an alarm band on A's lane"
    );
    assert!(
        timeline.contains(">believed holder</text>"),
        "the band is labelled"
    );
    assert!(
        timeline.contains(">B token 2</text>"),
        "the service grants B token 2"
    );
    assert!(
        timeline.contains(">holds token 2</text>"),
        "B's lane shows its grant"
    );
    assert!(
        timeline.contains("tl-write--stale"),
        "A's write is a stale write accepted"
    );
    assert!(
        timeline.contains(">A t1 STALE</text>"),
        "the write carries its token"
    );
    assert!(!timeline.contains("tl-write--rejected"));
    for words in [
        "Legend",
        "believed holder: the service gave the lock to another client",
        "GC pause",
    ] {
        assert!(timeline.contains(words), "the legend says {words}");
    }
    assert!(
        timeline.contains("role=\"slider\""),
        "the playhead is a slider"
    );
    assert!(
        timeline.contains("aria-valuenow=\"10000\""),
        "at the clock's time"
    );
}

#[tokio::test]
async fn with_fencing_on_the_stale_write_is_drawn_rejected_with_its_reason() {
    let html = render(first_scenario_clicked(
        Backend::Redlock,
        Fencing::On,
        SEED,
        10_000,
    ))
    .await;
    let timeline = timeline_of(&html);
    assert!(
        timeline.contains("tl-write--rejected"),
        "A's write is rejected"
    );
    assert!(
        timeline.contains("token 1 &lt; highest accepted 2"),
        "its reason is in its sentence"
    );
    assert!(!timeline.contains("tl-write--stale"));
}

#[tokio::test]
async fn each_backend_draws_its_own_internals() {
    let etcd = render(first_scenario_clicked(
        Backend::Etcd,
        Fencing::Off,
        SEED,
        10_000,
    ))
    .await;
    let timeline = timeline_of(&etcd);
    assert!(
        timeline.contains(">rev 2</text>"),
        "etcd prints the revision of each write"
    );
    // The server finds A's lease expired at its 500 ms check (5.5 s) and
    // deletes A's key at revision 3; B's key follows at 4. Marks this close
    // keep their sentence even where a label does not fit.
    assert!(
        timeline.contains("deleted A&#39;s lock key (created at 2) at revision 3")
            || timeline.contains("deleted A's lock key (created at 2) at revision 3"),
        "{timeline}"
    );
    assert!(
        timeline.contains("put B"),
        "B's key is put after the deletion"
    );
    let redlock = render(first_scenario_clicked(
        Backend::Redlock,
        Fencing::Off,
        SEED,
        10_000,
    ))
    .await;
    let timeline = timeline_of(&redlock);
    assert!(
        timeline.contains(">Redis 1-5</text>"),
        "the five nodes fold into one lane"
    );
    assert!(
        timeline.contains("Show each Redis node"),
        "and unfold on request"
    );
}

fn reduce(state: Rc<AppState>, action: Action) -> Rc<AppState> {
    state.reduce(action)
}

fn at_end() -> Rc<AppState> {
    Rc::new(AppState::new(Some(StartSim(Rc::new(
        first_scenario_clicked(Backend::Etcd, Fencing::Off, SEED, 10_000),
    )))))
}

fn state_of(state: &AppState, letter: char) -> ClientState {
    state.sim.borrow().client_view(client(letter)).state
}

#[test]
fn moving_the_playhead_back_shows_the_page_as_it_was() {
    let end = at_end();
    let past = reduce(end.clone(), Action::Seek(6_500));
    assert_eq!(past.sim.borrow().now(), Millis(6_500));
    assert_eq!(past.end(), Millis(10_000), "the whole run is kept");
    assert_eq!(
        state_of(&past, 'A'),
        ClientState::Paused,
        "A is still frozen at 6.5 s"
    );
    assert_eq!(
        state_of(&past, 'B'),
        ClientState::Holding,
        "B holds at 6.5 s"
    );
    assert_eq!(
        past.sim.borrow().resource().accepted(),
        0,
        "no write has landed yet"
    );
    // Forward again to the end: the very same run.
    let back = reduce(past, Action::Seek(10_000));
    assert!(back.future.is_none());
    assert_eq!(back.sim.borrow().history(), end.sim.borrow().history());
}

#[test]
fn playing_on_from_the_past_runs_the_recorded_commands_again() {
    let end = at_end();
    let mut state = reduce(end.clone(), Action::Seek(500));
    state = reduce(state, Action::Start);
    for _ in 0..10_000 {
        if state.future.is_none() && state.sim.borrow().now() >= Millis(10_000) {
            break;
        }
        let frame_ms = state.frame_ms();
        state = reduce(state, Action::Tick(frame_ms));
    }
    let replayed = Sim::replay(&state.sim.borrow().scenario(), Millis(10_000)).expect("replays");
    assert_eq!(replayed.history(), end.sim.borrow().history());
    assert_eq!(state.sim.borrow().script(), end.sim.borrow().script());
}

#[test]
fn stepping_in_the_past_walks_the_recorded_run() {
    let end = at_end();
    let mut state = reduce(end.clone(), Action::Seek(0));
    let mut steps = 0;
    while state.future.is_some() && steps < 100_000 {
        state = reduce(state, Action::Step);
        steps += 1;
    }
    assert!(state.future.is_none(), "stepping reaches the end");
    let history = state.sim.borrow().history().to_vec();
    let original = end.sim.borrow().history().to_vec();
    let n = history.len().min(original.len());
    assert_eq!(history[..n], original[..n], "the same run, event by event");
}

#[test]
fn a_command_in_the_past_forks_the_run() {
    let end = at_end();
    let past = reduce(end, Action::Seek(6_500));
    let forked = reduce(past, Action::Client(client('C'), Command::Acquire));
    assert!(forked.future.is_none(), "the future is dropped");
    assert_eq!(forked.end(), Millis(6_500));
    let script = forked.sim.borrow().script().to_vec();
    assert_eq!(
        script.last().map(|a| a.at),
        Some(Millis(6_500)),
        "the new command is recorded"
    );
    assert!(
        script.iter().all(|a| a.at <= Millis(6_500)),
        "later commands are gone"
    );
    match &forked.notice {
        Some(Notice::Info(text)) => assert!(text.starts_with("Forked at 6.5 s"), "{text}"),
        other => panic!("the fork is announced, got {other:?}"),
    }
}

#[test]
fn a_refused_command_in_the_past_keeps_the_recorded_run() {
    let past = reduce(at_end(), Action::Seek(6_500));
    // C holds nothing, so its release is refused.
    let refused = reduce(past, Action::Client(client('C'), Command::Release));
    assert!(
        matches!(refused.notice, Some(Notice::Refused(_))),
        "{:?}",
        refused.notice
    );
    assert!(refused.future.is_some(), "nothing changed");
}

#[test]
fn the_left_arrow_goes_back_a_second_and_keeps_the_run() {
    let end = at_end();
    let back = reduce(end, Action::Shortcut(distlock::ui::guide::Shortcut::Back));
    assert_eq!(back.sim.borrow().now(), Millis(9_000));
    assert_eq!(back.end(), Millis(10_000));
}

/// Every lane of `rows`, drawn into `svg` up to `until`.
fn draw_lanes(
    svg: &mut distlock::ui::timeline_draw::Svg,
    scale: &distlock::ui::timeline_draw::Scale,
    rows: &[distlock::ui::timeline_draw::Row],
    picture: &distlock::sim::Picture,
    until: u64,
) {
    for row in rows {
        distlock::ui::timeline_draw::lane(svg, scale, *row, picture, until);
    }
}

#[test]
fn any_width_and_window_draw_without_failing() {
    use distlock::sim::Picture;
    use distlock::ui::timeline_draw::{self as draw, Scale, Svg};
    let sim = first_scenario_clicked(Backend::Redlock, Fencing::Off, SEED, 10_000);
    let picture = Picture::from_history(sim.history());
    for width in [0.0, 10.0, 55.0, 390.0, 4000.0] {
        for (v0, v1) in [(0, 1), (0, 12_000), (5_000, 5_200), (50_000, 90_000)] {
            let scale = Scale { v0, v1, width };
            let rows = draw::rows(true, true);
            let mut svg = Svg::default();
            draw::axis(&mut svg, &scale, draw::height(&rows));
            draw_lanes(&mut svg, &scale, &rows, &picture, 12_000);
            draw::messages(&mut svg, &scale, &rows, &picture.arrows);
            assert!(!svg.markup.contains("NaN"), "width {width}");
        }
    }
}

/// While the clock runs live, frames that bring no new record leave the
/// lanes' markup as it was, so the page keeps their elements: what has
/// ended is drawn apart from what is still open, and open shapes reach past
/// the plot, cut at the clock by a clip.
#[test]
fn while_the_clock_runs_the_lanes_keep_their_markup_from_frame_to_frame() {
    use distlock::sim::Picture;
    use distlock::ui::timeline_draw::{self as draw, Detail, Part, Scale, Svg};
    // At 10 s, B holds the lock: its leases are open spans.
    let sim = first_scenario_clicked(Backend::Etcd, Fencing::Off, SEED, 10_000);
    let picture = Picture::from_history(sim.history());
    let scale = Scale {
        v0: 0,
        v1: 15_000,
        width: 960.0,
    };
    let rows = draw::rows(false, false);
    let drawn = |part: Part, until: u64| {
        let mut svg = Svg::new(Detail::Plain, part);
        draw_lanes(&mut svg, &scale, &rows, &picture, until);
        svg.markup
    };
    let (settled, open) = (drawn(Part::Settled, 10_000), drawn(Part::Open, 10_000));
    assert_eq!(settled, drawn(Part::Settled, 10_400), "ended marks moved");
    assert_eq!(open, drawn(Part::Open, 10_400), "open shapes moved");
    assert!(
        open.contains("tl-granted") && open.contains("tl-believed"),
        "{open}"
    );
    assert!(
        !settled.contains("100000.0"),
        "an ended shape reaches past the plot"
    );
    // Between them, the two parts draw every kind of mark the whole does.
    let whole = drawn(Part::All, 10_000);
    for class in whole
        .split("class=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
    {
        assert!(
            settled.contains(class) || open.contains(class),
            "{class} is drawn by neither part"
        );
    }
}

/// Four clients taking turns at everything a visitor can click, on
/// `backend`, for about 40 s: leases granted, lost and expired, pauses,
/// partitions, crashes and heartbeats on every lane.
fn busy_run(backend: Backend) -> Sim {
    use distlock::sim::PartitionScope;
    let config = Config {
        backend,
        seed: Seed(SEED),
        ..Config::default()
    };
    let mut sim = Sim::new(config).expect("valid config");
    let cycle = [
        Command::Acquire,
        Command::Write,
        Command::GcPause { pause_ms: 2_500 },
        Command::Write,
        Command::Release,
        Command::Partition {
            scope: PartitionScope::Service,
        },
        Command::Acquire,
        Command::Heal,
        Command::PowerOff,
        Command::Restart,
    ];
    for turn in 0..160 {
        sim.run_until(Millis(250 * (turn + 1)));
        let client = ClientId::ALL[(turn as usize / 3) % ClientId::COUNT];
        // Refused commands (acquiring while crashed, ...) change nothing.
        let _ = sim.command(client, cycle[turn as usize % cycle.len()]);
    }
    sim.run_until(Millis(42_000));
    sim
}

/// The page keeps a lane's drawing while the lane's key (`lane_key`) and
/// the window stay the same, and an open part's only until a label would
/// come to fit it (`kept_until`). Played frame by frame as the clock runs
/// live at 8x, on every system, each lane's settled and open parts drawn
/// with the key of the frame before are the same markup; more than two
/// settled drawings in three are kept, and more than three open ones in
/// four (they are drawn again only when something happens on the lane or
/// a label comes to fit, not at every frame).
#[test]
fn a_lane_drawn_with_the_key_of_the_frame_before_is_the_same_markup() {
    use distlock::sim::Picture;
    use distlock::ui::timeline_draw::{self as draw, Detail, LaneKey, Part, Scale, Svg};
    for backend in Backend::ALL {
        let sim = busy_run(backend);
        let history = sim.history();
        let end = sim.now().ms();
        for nodes_open in [false, true] {
            let rows = draw::rows(backend == Backend::Redlock, nodes_open);
            for (part, share) in [(Part::Settled, (2, 3)), (Part::Open, (3, 4))] {
                let mut picture = Picture::default();
                // Each lane's last drawing: its key, until when it is kept,
                // its markup.
                type Kept = ((Scale, LaneKey), u64, String);
                let mut last: Vec<Option<Kept>> = vec![None; rows.len()];
                let (mut kept, mut lanes) = (0, 0);
                // About one frame at 8x.
                for now in (0..=end).step_by(133) {
                    picture.feed(&history[..history.partition_point(|r| r.at.ms() <= now)]);
                    // The window grows in steps, as the page's does.
                    let scale = Scale {
                        v0: 0,
                        v1: (now / 10_000 + 1) * 10_000,
                        width: 960.0,
                    };
                    for (row, last) in rows.iter().zip(last.iter_mut()) {
                        // The page keeps a lane's drawing while the window
                        // (and the detail, part and rows, the same here)
                        // stays too.
                        let key = (scale, draw::lane_key(&picture, row.lane, now, part));
                        let mut svg = Svg::new(Detail::Plain, part);
                        draw_lanes(&mut svg, &scale, std::slice::from_ref(row), &picture, now);
                        if let Some((_, _, markup)) = last
                            .as_ref()
                            .filter(|(k, until, _)| *k == key && now < *until)
                        {
                            assert_eq!(
                                markup, &svg.markup,
                                "{backend:?}, {part:?} {:?} at t={now} ms: the key of the frame before, other markup",
                                row.lane
                            );
                            kept += 1;
                        } else {
                            let until = draw::kept_until(&svg, &scale, now);
                            assert!(until > now, "{part:?}: kept until {until} at {now}");
                            *last = Some((key, until, svg.markup));
                        }
                        lanes += 1;
                    }
                }
                assert!(
                    kept * share.1 > lanes * share.0,
                    "{backend:?} {part:?}: only {kept} of {lanes} lane drawings kept"
                );
            }
        }
    }
}

/// The value of the first `attribute` after `marker` in `html`.
fn attribute_after<'a>(html: &'a str, marker: &str, attribute: &str) -> &'a str {
    let from = html.find(marker).unwrap_or_else(|| panic!("no {marker}"));
    value_of(&html[from..], attribute)
}

/// The value of `attribute` on the element of class `class` in `html`.
fn attribute_of<'a>(html: &'a str, class: &str, attribute: &str) -> &'a str {
    let marker = format!("class=\"{class}\"");
    let at = html.find(&marker).unwrap_or_else(|| panic!("no {class}"));
    let open = html[..at].rfind('<').expect("a tag");
    value_of(&html[open..at], attribute)
}

fn value_of<'a>(html: &'a str, attribute: &str) -> &'a str {
    let key = format!(" {attribute}=\"");
    let at = html.find(&key).unwrap_or_else(|| panic!("no {attribute}")) + key.len();
    &html[at..at + html[at..].find('"').expect("it closes")]
}

/// A render for an event while the clock runs draws the parts that move
/// with time alone (the playhead, the box that cuts the open spans) where
/// time's words last put them, so their glides, started there, run on
/// undisturbed; the playhead's value is the clock's, exactly. Stopped, they
/// stand where the clock does.
#[tokio::test(flavor = "current_thread")]
async fn an_event_frame_leaves_the_parts_that_glide_where_times_words_put_them() {
    // At 10 s, B holds the lock: its lease is an open span, cut at the clock.
    let sim = first_scenario_clicked(Backend::Etcd, Fencing::Off, SEED, 10_000);
    let words = 9_616;
    let (one, two) = (
        timeline_at(&sim, 9_872, words, true).await,
        timeline_at(&sim, 10_000, words, true).await,
    );
    let place = |html: &str| {
        (
            attribute_after(html, "class=\"tl-playhead\"", "transform").to_string(),
            attribute_of(html, "tl-open__size", "width").to_string(),
        )
    };
    assert_eq!(
        place(&one),
        place(&two),
        "an event frame moved a gliding part"
    );
    assert_eq!(attribute_of(&two, "tl-playhead", "aria-valuenow"), "10000");
    assert_eq!(attribute_of(&one, "tl-playhead", "aria-valuenow"), "9872");
    // Stopped, the playhead stands at the clock.
    let stopped = timeline_at(&sim, 10_000, words, false).await;
    assert_ne!(
        attribute_after(&stopped, "class=\"tl-playhead\"", "transform"),
        place(&two).0,
        "a stopped clock's playhead stands where time's words were"
    );
}

/// Only a recorded run that goes on past the clock is veiled: while the
/// clock runs live, a render for an event (time's words drawn a little
/// before the clock) draws no veil between them and the clock, which came
/// with every event and went with the next words; a replayed run's future
/// is veiled from where time's words put its edge.
#[tokio::test(flavor = "current_thread")]
async fn only_a_recorded_future_is_veiled() {
    let sim = first_scenario_clicked(Backend::Etcd, Fencing::Off, SEED, 10_000);
    let live = timeline_until(&sim, (10_000, 9_616, 10_000), true).await;
    assert!(
        !live.contains("tl-future"),
        "a live run's event frame drew a veil"
    );
    let replayed = timeline_until(&sim, (10_000, 9_616, 20_000), true).await;
    assert!(
        replayed.contains("tl-future"),
        "a replayed run's future was not veiled"
    );
}

/// The event log drawn with time's words: a render for an event while the
/// clock runs shows the log of the last render of time's words, and the
/// next one (or any other change of state: Pause, Step, a tour's key
/// moment, moving in time) shows every line. While the clock runs it draws
/// the newest lines that fill its box; stopped, `LOG_LINES_MAX`.
#[test]
fn the_log_waits_for_times_words_and_is_exact_when_they_are_drawn() {
    use distlock::sim::TokenWords;
    use distlock::ui::event_log::{log_lines, LogCache, LOG_LINES_FULL};
    let before = first_scenario_clicked(Backend::Etcd, Fencing::Off, SEED, 4_000);
    let after = first_scenario_clicked(Backend::Etcd, Fencing::Off, SEED, 10_000);
    let how = (1, true, TokenWords::of(Backend::Etcd));
    let exact = log_lines(after.history(), true, how.2);
    assert!(exact.len() > LOG_LINES_FULL, "{} lines", exact.len());
    let mut cache = LogCache::default();
    let first = cache.shown((7, true), before.history(), 0, how);
    let kept = cache.shown((7, true), after.history(), 0, how);
    assert_eq!(kept, first, "an event frame drew the log");
    let running = cache.shown((8, true), after.history(), 0, how);
    assert_eq!(running.total, after.history().len());
    assert_eq!(
        *running.lines,
        exact[..LOG_LINES_FULL],
        "time's words drew an old log"
    );
    assert_ne!(running.lines, first.lines);
    let paused = cache.shown((9, false), after.history(), 0, how);
    assert_eq!(*paused.lines, exact, "a stopped clock's log is not whole");
}
