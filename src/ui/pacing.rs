//! When the running clock wakes, and how far each wake moves it.
//!
//! The clock is paced by wall time and sleeps between the moments
//! something must be drawn. After each wake it asks the run when the next
//! thing is due (an event in the simulation's queue, a story's step, a
//! replayed future's next command or its end, a tour's key moment, the end
//! of the day: `AppState::until_due`) and when time's words (the clock,
//! the countdowns) are next to be drawn, `WORDS_PER_S` times a second of
//! the reader's time; it sets one timer for the sooner of the two, and the
//! timer asks for one animation frame (`browser::Alarm`). In that frame
//! the clock moves as far as the wall time since the last wake says, at
//! the speed's exact rate (`virtual_per_wall_ms`), and the page runs the
//! tick: `Tick` draws time's words, `TickUndrawn` draws only if the run
//! recorded something. Faster than 4x, wakes are at least a tenth of a
//! second apart (`WAKES_APART_MS`), each drawing all the run did since the
//! last. Between wakes no timer fires, no frame is asked
//! for and no script runs: what moves with time alone (the lease bars, the
//! timeline's playhead and the edge of its open spans, the messages on
//! their way) is carried on by the compositor (`use_glide`) at that same
//! rate, from where the last render drew it. Before a reader's action the
//! clock is first brought to the wall time (`Pace::catch_up`), so a click
//! lands where the moving parts showed the run (docs/budgets.md, "Time on
//! the compositor").
//!
//! Only the clock's pace reads wall time: the run moves by the virtual
//! milliseconds each wake hands it, and a run's history depends on the
//! virtual times of its commands alone.

use super::state::Action;

/// How many times a second of wall time the page draws time's words.
pub const WORDS_PER_S: u32 = 4;
/// One refresh of a 60 Hz screen, in milliseconds.
const REFRESH_MS: f64 = 1000.0 / 60.0;
/// Wall milliseconds between two renders of time's words.
const WORDS_EVERY_MS: f64 = 1000.0 / WORDS_PER_S as f64;
/// How early a frame may come and still count as the one a wake was set
/// for: frames come a little early or late, and one a hair early should
/// not leave its work to one more frame.
const EARLY_MS: f64 = REFRESH_MS / 2.0;
/// How late a wake may come and still move the clock by all the wall time
/// that passed: a timer fires a few milliseconds late and its frame comes
/// at the next refresh, well within three refreshes. A later wake comes
/// after a stall (a hidden tab, whose frames wait until it is shown; a
/// breakpoint; a long task on a slow phone), and the clock then moves only
/// this much past the wake it had set, as the frame clock before it moved
/// one frame's step whatever the gap: the run never leaps over what the
/// reader was not shown.
const LATE_MAX_MS: f64 = 3.0 * REFRESH_MS;

/// Above this rate (4x: 64 virtual ms a sixtieth of a second) the clock
/// wakes at most `WAKES_APART_MS` after its last wake, even for a thing
/// due sooner: the run moves on to the wake's moment, every event in
/// between run at its own virtual time, and the page draws them in one
/// render. A message's hop at the slowed default latency (25-100 virtual
/// ms) lasts at most two frames there, at the real ones well under one:
/// no message can be watched on its way, and drawing each one in a frame
/// of its own only keeps the main thread busy. The reader then sees the
/// run in ten steps a second, as the still copy painted ten times a second
/// that the frame budget compares the page with, and what moves with time
/// glides on between them at the screen's rate.
const WAKES_APART_ABOVE_RATE: f64 = virtual_per_wall_ms(WAKES_APART_ABOVE_FRAME_MS);
/// The same rate as virtual milliseconds a frame (`AppState::frame_ms`).
pub const WAKES_APART_ABOVE_FRAME_MS: u64 = 64;
/// Wall milliseconds between two wakes of a clock running faster than
/// `WAKES_APART_ABOVE_RATE`: ten renders a second at most.
const WAKES_APART_MS: f64 = 100.0;

/// Virtual milliseconds that pass in a wall millisecond while the clock
/// runs with `frame_ms` a sixtieth of a second of wall time
/// (`AppState::frame_ms`): the rate at which the clock moves and at which
/// the compositor carries time's motion between renders.
pub const fn virtual_per_wall_ms(frame_ms: u64) -> f64 {
    frame_ms as f64 * 60.0 / 1000.0
}

/// The wake a running clock has set.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Wake {
    /// When, in wall milliseconds.
    at_ms: f64,
    /// Virtual milliseconds from the clock to the thing due then, if the
    /// wake is for one (and not for time's words alone).
    due_ms: Option<u64>,
}

/// The running clock's pace: where wall time stood at its last wake, when
/// it last drew time's words, and the wake it has set. One per page.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Pace {
    /// The wall time of the last wake (or of the start), in milliseconds,
    /// where the run's clock stands; `None` while the clock stands.
    woke_ms: Option<f64>,
    /// When time's words were last drawn, in wall milliseconds.
    words_ms: f64,
    /// The part of a virtual millisecond the wall time since the last wake
    /// has added, not yet moved.
    carry: f64,
    /// The next wake set, if one is.
    wake: Option<Wake>,
}

impl Pace {
    /// The clock starts at `at_ms`, drawn there (the render that started it).
    pub fn start(&mut self, at_ms: f64) {
        *self = Pace {
            woke_ms: Some(at_ms),
            words_ms: at_ms,
            ..Pace::default()
        };
    }

    /// The clock stands.
    pub fn stop(&mut self) {
        *self = Pace::default();
    }

    pub fn running(&self) -> bool {
        self.woke_ms.is_some()
    }

    /// Sets the next wake, after a wake or a render at `at_ms`: at the
    /// moment `until_due_ms` virtual milliseconds past the clock (the next
    /// thing due, if any) at `rate` virtual milliseconds a wall
    /// millisecond, or when time's words are next due if that is sooner.
    /// Returns the wall milliseconds from `at_ms` to the wake (0: the next
    /// frame), or `None` while the clock stands.
    pub fn plan(&mut self, at_ms: f64, until_due_ms: Option<u64>, rate: f64) -> Option<f64> {
        let woke = self.woke_ms?;
        let words_at = self.words_ms + WORDS_EVERY_MS;
        let due_at = until_due_ms.map(|ms| woke + (ms as f64 - self.carry).max(0.0) / rate);
        let mut wake = match due_at {
            Some(due_at) if due_at <= words_at => Wake {
                at_ms: due_at,
                due_ms: until_due_ms,
            },
            _ => Wake {
                at_ms: words_at,
                due_ms: None,
            },
        };
        if rate > WAKES_APART_ABOVE_RATE + 1e-9 {
            wake.at_ms = wake.at_ms.max(woke + WAKES_APART_MS);
        }
        self.wake = Some(wake);
        Some((wake.at_ms - at_ms).max(0.0))
    }

    /// The tick of the wake in the animation frame at `at_ms`: the virtual
    /// milliseconds the clock moves, in a `Tick` when time's words are due
    /// (drawn), or else a `TickUndrawn` (drawn only if the run records
    /// something). The wake is spent: the next is set by `plan`.
    pub fn wake(&mut self, at_ms: f64, rate: f64) -> Action {
        let step = self.advance(at_ms, rate);
        self.wake = None;
        if at_ms - self.words_ms >= WORDS_EVERY_MS - EARLY_MS {
            self.words_ms = at_ms;
            Action::Tick(step)
        } else {
            Action::TickUndrawn(step)
        }
    }

    /// The tick that brings the running clock to `at_ms` before a reader's
    /// action, so it acts where the moving parts showed the run; `None`
    /// while the clock stands. The wake set stays set, for the same moment.
    pub fn catch_up(&mut self, at_ms: f64, rate: f64) -> Option<Action> {
        self.running()
            .then(|| Action::TickUndrawn(self.advance(at_ms, rate)))
    }

    /// Moves the clock's wall time to `at_ms` (no further than `LATE_MAX_MS`
    /// past the wake set) and returns the virtual milliseconds that adds:
    /// at least as far as the thing the wake was set for, once its moment
    /// has come.
    fn advance(&mut self, at_ms: f64, rate: f64) -> u64 {
        let Some(woke) = self.woke_ms else {
            return 0;
        };
        let latest = self.wake.map_or(woke, |w| w.at_ms.max(woke)) + LATE_MAX_MS;
        let wall = (at_ms.min(latest) - woke).max(0.0);
        let exact = wall * rate + self.carry;
        // A whole millisecond computed a hair short (0.96 and 7.68 are not
        // exact in binary) is a whole millisecond.
        let mut step = (exact + 1e-6).floor();
        self.carry = (exact - step).max(0.0);
        if let Some(Wake {
            at_ms: wake_at,
            due_ms: Some(due),
        }) = self.wake
        {
            if at_ms >= wake_at - EARLY_MS && step < due as f64 {
                step = due as f64;
                self.carry = 0.0;
            }
        }
        let step = step as u64;
        self.woke_ms = Some(at_ms.max(woke));
        if let Some(wake) = &mut self.wake {
            wake.due_ms = wake.due_ms.map(|due| due.saturating_sub(step));
        }
        step
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 8x: 128 virtual ms a sixtieth of a second.
    const RATE_8X: f64 = 7.68;

    /// The wakes of a clock started at 0 and woken in the first frame of a
    /// 60 Hz screen at or after each wake it sets, until `until_ms`; the
    /// thing due comes `due_every_ms` virtual ms after each wake, if given.
    /// Each wake: its frame's time and its tick.
    fn wakes(until_ms: f64, due_every_ms: Option<u64>, rate: f64) -> Vec<(f64, Action)> {
        let mut pace = Pace::default();
        pace.start(0.0);
        let mut at = 0.0;
        let mut out = Vec::new();
        loop {
            let delay = pace.plan(at, due_every_ms, rate).expect("running");
            // The next refresh at or after the wake.
            at = ((at + delay) / REFRESH_MS - 1e-6).ceil() * REFRESH_MS;
            if at > until_ms {
                return out;
            }
            out.push((at, pace.wake(at, rate)));
        }
    }

    /// Whether a wake was set `ms` wall milliseconds on.
    fn set_in(delay: Option<f64>, ms: f64) -> bool {
        delay.is_some_and(|d| (d - ms).abs() < 1e-6)
    }

    fn step(action: &Action) -> u64 {
        match action {
            Action::Tick(ms) | Action::TickUndrawn(ms) => *ms,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_clock_moves_at_the_speeds_exact_rate() {
        // 8x: 128 virtual ms a sixtieth of a second; 1x: 16.
        assert_eq!(virtual_per_wall_ms(128), 7.68);
        assert_eq!(virtual_per_wall_ms(16), 0.96);
    }

    #[test]
    fn with_nothing_due_the_clock_wakes_only_for_times_words() {
        let woken = wakes(2_010.0, None, RATE_8X);
        // Two seconds: time's words four times a second, nothing between.
        assert_eq!(woken.len(), 8, "{woken:?}");
        assert!(woken.iter().all(|(_, a)| matches!(a, Action::Tick(_))));
        for pair in woken.windows(2) {
            let apart = pair[1].0 - pair[0].0;
            assert!(
                (250.0 - 1e-6..250.0 + REFRESH_MS).contains(&apart),
                "{apart}"
            );
        }
        // The steps add up to the wall time at the rate, to the millisecond.
        let moved: u64 = woken.iter().map(|(_, a)| step(a)).sum();
        let last = woken.last().unwrap().0;
        assert_eq!(moved, (last * RATE_8X).floor() as u64);
    }

    #[test]
    fn a_thing_due_wakes_the_clock_in_the_frame_of_its_moment_and_is_reached() {
        // 1x, something due every 100 virtual ms: a wake for each, which
        // reaches it, and time's words drawn four times a second among them.
        let woken = wakes(1_100.0, Some(100), 0.96);
        let mut wall = 0.0;
        for (at, action) in &woken {
            if let Action::TickUndrawn(step) = action {
                assert!(*step >= 100, "{action:?} reaches the thing due");
            }
            // The first frame at or after 100 / 0.96 = 104.2 wall ms.
            assert!(at - wall < 104.2 + REFRESH_MS, "{at} after {wall}");
            wall = *at;
        }
        let drawn = woken.iter().filter(|(_, a)| matches!(a, Action::Tick(_)));
        assert_eq!(drawn.count(), 4, "{woken:?}");
        assert!(woken.len() >= 8, "{woken:?}");
    }

    #[test]
    fn above_4x_the_clock_wakes_at_most_ten_times_a_second() {
        // 8x, something due every 16 virtual ms (about 2 wall ms): a wake
        // every 100 wall ms, each moving the clock past all that came due.
        let woken = wakes(1_010.0, Some(16), RATE_8X);
        assert_eq!(woken.len(), 10, "{woken:?}");
        for pair in woken.windows(2) {
            let apart = pair[1].0 - pair[0].0;
            assert!(
                (100.0 - 1e-6..100.0 + REFRESH_MS).contains(&apart),
                "{apart}"
            );
        }
        assert!(woken.iter().all(|(_, a)| step(a) >= 16 * 6), "{woken:?}");
        let moved: u64 = woken.iter().map(|(_, a)| step(a)).sum();
        let last = woken.last().unwrap().0;
        assert_eq!(moved, (last * RATE_8X).floor() as u64);
        // 4x: a wake in the frame of each thing due, as at every speed up
        // to it.
        let woken = wakes(1_010.0, Some(16), 3.84);
        assert!(woken.len() >= 59, "{}", woken.len());
    }

    #[test]
    fn a_frame_a_hair_early_does_the_work_of_its_wake() {
        let mut pace = Pace::default();
        pace.start(0.0);
        // Due 960 virtual ms on at 8x: 125 wall ms.
        assert!(set_in(pace.plan(0.0, Some(960), RATE_8X), 125.0));
        // The frame comes at 120: the event is reached all the same.
        assert_eq!(pace.wake(120.0, RATE_8X), Action::TickUndrawn(960));
        // Time's words, due at 250, are drawn by a frame at 245.
        assert!(set_in(pace.plan(120.0, None, RATE_8X), 130.0));
        assert_eq!(pace.wake(245.0, RATE_8X), Action::Tick(960));
    }

    #[test]
    fn a_stall_moves_the_clock_no_further_than_a_few_frames_past_its_wake() {
        let mut pace = Pace::default();
        pace.start(0.0);
        assert!(set_in(pace.plan(0.0, None, 0.96), 250.0));
        // A hidden tab: its frame comes when it is shown again, 5 s on.
        let late = pace.wake(5_000.0, 0.96);
        // 250 + 50 wall ms at 0.96.
        assert_eq!(late, Action::Tick(288));
        // From there the clock goes on from the frame's time.
        assert!(set_in(pace.plan(5_000.0, None, 0.96), 250.0));
        assert_eq!(step(&pace.wake(5_250.0, 0.96)), 240);
    }

    #[test]
    fn a_readers_action_first_brings_the_clock_to_the_wall_time() {
        let mut pace = Pace::default();
        assert_eq!(pace.catch_up(10.0, 0.96), None, "a standing clock");
        assert_eq!(pace.plan(10.0, Some(100), 0.96), None);
        pace.start(0.0);
        // Due 480 virtual ms on at 1x: 500 wall ms, after time's words.
        assert!(set_in(pace.plan(0.0, Some(480), 0.96), 250.0));
        assert_eq!(pace.catch_up(100.0, 0.96), Some(Action::TickUndrawn(96)));
        // The wake set stays where it was, and the clock moves on from
        // where the action left it.
        assert_eq!(pace.wake(250.0, 0.96), Action::Tick(144));
        // The thing due is 240 virtual ms on: 250 wall ms.
        assert!(set_in(pace.plan(250.0, Some(240), 0.96), 250.0));
        // An action just before its moment does the wake's work.
        assert_eq!(pace.catch_up(495.0, 0.96), Some(Action::TickUndrawn(240)));
        pace.stop();
        assert!(!pace.running());
        assert_eq!(pace.catch_up(600.0, 0.96), None);
    }

    #[test]
    fn an_undrawn_frame_moves_the_clock_and_is_drawn_when_the_run_records_something() {
        use crate::sim::{ClientId, Command, Millis};
        use crate::ui::state::AppState;
        use std::rc::Rc;
        use yew::Reducible;

        let running = Rc::new(AppState::default()).reduce(Action::Start);
        let undrawn = running.clone().reduce(Action::TickUndrawn(16));
        assert!(
            Rc::ptr_eq(&undrawn, &running),
            "time alone: the same state, no render"
        );
        assert_eq!(
            undrawn.sim.borrow().now(),
            Millis(16),
            "the clock moved all the same"
        );
        let mut state = undrawn.reduce(Action::Client(ClientId::ALL[0], Command::Acquire));
        let mut drawn = 0;
        for _ in 0..200 {
            let before = state.sim.borrow().history().len();
            let next = state.clone().reduce(Action::TickUndrawn(16));
            let recorded = next.sim.borrow().history().len() != before;
            assert_eq!(
                !Rc::ptr_eq(&next, &state),
                recorded,
                "drawn exactly when recorded"
            );
            drawn += usize::from(recorded);
            state = next;
        }
        assert!(drawn > 0, "the request, its grant and renewals are drawn");
        assert_eq!(state.sim.borrow().now(), Millis(16 * 201));
    }

    #[test]
    fn a_frame_drawn_for_an_event_keeps_times_words_and_skips_what_it_left_alone() {
        use crate::sim::{ClientId, Command};
        use crate::ui::client_card::ClientCardProps;
        use crate::ui::state::AppState;
        use std::rc::Rc;
        use yew::{Callback, Reducible};

        // The page's dispatch is one callback for its whole life.
        let dispatch: Callback<Action> = Callback::noop();
        let card = |state: &AppState, c: ClientId| ClientCardProps {
            clock: state.clock(),
            ..ClientCardProps::from_sim(&state.sim.borrow(), c, 8, dispatch.clone())
        };
        let a = ClientId::ALL[0];
        let d = ClientId::ALL[3];
        let mut state = Rc::new(AppState::default())
            .reduce(Action::Client(a, Command::Acquire))
            .reduce(Action::Start);
        let words = state.words_ms;
        let idle = card(&state, d);
        let mut events = 0;
        for _ in 0..100 {
            let next = state.clone().reduce(Action::TickUndrawn(16));
            if !Rc::ptr_eq(&next, &state) {
                events += 1;
                assert_eq!(next.words_ms, words, "an event frame keeps time's words");
                assert!(next.sim.borrow().now() > words);
                assert_eq!(
                    card(&next, d),
                    idle,
                    "D's card, left alone, is not drawn again"
                );
            }
            state = next;
        }
        assert!(events > 0, "A's request and grant are drawn");
        let drawn = state.reduce(Action::Tick(16));
        assert_eq!(
            drawn.words_ms,
            drawn.sim.borrow().now(),
            "a Tick draws time's words"
        );
        assert_ne!(card(&drawn, d), idle, "and with them every card");
    }

    #[test]
    fn the_strip_skips_an_event_that_left_it_alone() {
        use crate::sim::{ClientId, Command};
        use crate::ui::state::AppState;
        use crate::ui::status::StatusProps;
        use std::rc::Rc;
        use yew::Reducible;

        let strip = |state: &AppState| StatusProps {
            clock: state.clock(),
            ..StatusProps::from_sim(&state.sim.borrow(), state.running)
        };
        let mut state = Rc::new(AppState::default())
            .reduce(Action::Client(ClientId::ALL[0], Command::Acquire))
            .reduce(Action::Client(ClientId::ALL[1], Command::Acquire))
            .reduce(Action::Start);
        let (mut events, mut strip_kept) = (0, 0);
        for _ in 0..400 {
            let next = state.clone().reduce(Action::TickUndrawn(16));
            if !Rc::ptr_eq(&next, &state) {
                events += 1;
                strip_kept += usize::from(strip(&next) == strip(&state));
                let holder = |s: &AppState| s.sim.borrow().holder().map(|h| h.client);
                if holder(&next) != holder(&state) {
                    assert_ne!(strip(&next), strip(&state), "a new holder is drawn");
                }
            }
            state = next;
        }
        assert!(events > 4, "{events}");
        assert!(
            strip_kept > 0,
            "a message on its way leaves the strip alone"
        );
    }

    #[test]
    fn every_change_but_a_running_clocks_event_frame_draws_times_words_again() {
        use crate::sim::{ClientId, Command};
        use crate::ui::state::AppState;
        use std::rc::Rc;
        use yew::Reducible;

        let a = ClientId::ALL[0];
        let mut state = Rc::new(AppState::default())
            .reduce(Action::Client(a, Command::Acquire))
            .reduce(Action::Start);
        let drawn = state.words_drawn;
        for _ in 0..100 {
            state = state.reduce(Action::TickUndrawn(16));
        }
        assert_eq!(state.words_drawn, drawn, "event frames draw no words");
        let paused = state.reduce(Action::Pause);
        let now = paused.sim.borrow().now();
        assert_eq!(paused.words_drawn, drawn + 1);
        // A command at the same moment: the same words, drawn again.
        let cut = paused.reduce(Action::Client(a, Command::PowerOff));
        assert_eq!(cut.sim.borrow().now(), now);
        assert_eq!(cut.words_ms, now);
        assert_eq!(cut.words_drawn, drawn + 2);
    }

    #[test]
    fn a_frame_that_stops_the_clock_draws_times_words_where_it_stopped() {
        use crate::ui::state::AppState;
        use std::rc::Rc;
        use yew::Reducible;

        let mut state = Rc::new(AppState::default())
            .reduce(Action::SetUpFirstScenario)
            .reduce(Action::TourNext);
        assert!(state.running, "the tour plays to its next key moment");
        let mut frames = 0;
        while state.running && frames < 10_000 {
            state = state.reduce(Action::TickUndrawn(16));
            frames += 1;
        }
        assert!(!state.running, "the tour stops at its key moment");
        assert_eq!(state.words_ms, state.sim.borrow().now());
    }
}
