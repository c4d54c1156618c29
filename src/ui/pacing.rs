//! How often the page draws time's passing while the clock runs.
//!
//! Every frame advances the simulation by the same step; only the drawing
//! is paced. A frame in which the run records something is always drawn.
//! A frame in which only time moved runs no render and writes nothing to
//! the page: what moves with time alone (the lease bars, the timeline's
//! playhead and the edge of its open spans) is carried on between renders
//! by the compositor (`use_glide`), at the rate the model gives it, from
//! where the last render drew it. The words and digits that count time
//! (the clock, the countdowns) are drawn again `WORDS_PER_S` times a
//! second of the reader's time, in a render that also puts every moving
//! part back exactly where the run is (docs/budgets.md, "Frames on a slow
//! phone").

use super::state::Action;
use std::cell::Cell;

/// How many times a second of wall time the page draws time's words.
pub const WORDS_PER_S: u32 = 4;
/// One refresh of a 60 Hz screen, in milliseconds.
const REFRESH_MS: f64 = 1000.0 / 60.0;
/// Wall milliseconds between two such renders, less half a refresh: frames
/// come a little early or late, and one a hair early waits no whole frame.
const WORDS_EVERY_MS: f64 = 1000.0 / WORDS_PER_S as f64 - REFRESH_MS / 2.0;

thread_local! {
    /// Frames a second the screen gives the ticker, as last measured
    /// (`FramePacing`): 60 until measured. The clock moves one step a
    /// frame, so on a 120 Hz screen, or one that drops frames, time runs at
    /// that rate, and the compositor's motion between renders must run at
    /// it too. Only the drawing reads it, never the run.
    static FRAMES_PER_S: Cell<f64> = const { Cell::new(60.0) };
}

/// The weight of the newest frame in the measured frame rate.
const RATE_WEIGHT: f64 = 0.1;
/// A gap longer than this (a hidden tab, a breakpoint) is no frame rate.
const GAP_MAX_MS: f64 = 100.0;

/// Paces the drawing of frames in which only time moved; one per ticker.
#[derive(Debug, Default)]
pub struct FramePacing {
    /// When time's words were last drawn.
    drawn_ms: Option<f64>,
    /// The frame before, whose gap to this one measures the frame rate.
    last_ms: Option<f64>,
}

impl FramePacing {
    /// The action for the frame at `at_ms` (the animation frame's time):
    /// `Tick` draws it; `TickUndrawn` draws it only if the run records
    /// something in it. The first frame, and the first one at least
    /// `WORDS_EVERY_MS` after the last `Tick`, draws time's words.
    pub fn action(&mut self, at_ms: f64) -> Action {
        if let Some(gap) = self.last_ms.map(|last| at_ms - last) {
            if gap > 0.0 && gap < GAP_MAX_MS {
                FRAMES_PER_S.with(|rate| {
                    let gap_ms = 1000.0 / rate.get();
                    let mean_ms = gap_ms + (gap - gap_ms) * RATE_WEIGHT;
                    rate.set(1000.0 / mean_ms);
                });
            }
        }
        self.last_ms = Some(at_ms);
        match self.drawn_ms {
            Some(drawn) if at_ms - drawn < WORDS_EVERY_MS => Action::TickUndrawn,
            _ => {
                self.drawn_ms = Some(at_ms);
                Action::Tick
            }
        }
    }
}

/// Virtual milliseconds that pass in a wall millisecond while the clock
/// runs with `frame_ms` a frame at the frame rate last measured: the rate
/// at which the compositor carries time's motion between renders.
pub fn virtual_per_wall_ms(frame_ms: u64) -> f64 {
    frame_ms as f64 * FRAMES_PER_S.with(Cell::get) / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The actions for frames at these times, drawn or not.
    fn paced(times_ms: &[f64]) -> Vec<bool> {
        let mut pacing = FramePacing::default();
        times_ms
            .iter()
            .map(|&t| pacing.action(t) == Action::Tick)
            .collect()
    }

    #[test]
    fn time_alone_is_drawn_four_times_a_second() {
        let times: Vec<f64> = (0..120).map(|i| f64::from(i) * REFRESH_MS).collect();
        let drawn: Vec<usize> = paced(&times)
            .into_iter()
            .enumerate()
            .filter_map(|(i, drawn)| drawn.then_some(i))
            .collect();
        // Two seconds of frames: the first, then every fifteenth.
        assert_eq!(drawn, [0, 15, 30, 45, 60, 75, 90, 105]);
    }

    #[test]
    fn a_late_frame_is_drawn_and_the_count_starts_again_from_it() {
        let drawn = paced(&[0.0, 16.7, 300.0, 316.7, 533.3, 550.0, 566.7]);
        assert_eq!(drawn, [true, false, true, false, false, true, false]);
    }

    #[test]
    fn the_compositor_moves_time_at_the_tickers_rate() {
        // 8x: 128 virtual ms a frame, 60 frames a second until measured.
        assert_eq!(virtual_per_wall_ms(128), 7.68);
        assert_eq!(virtual_per_wall_ms(16), 0.96);
    }

    #[test]
    fn the_rate_follows_the_screens_frames() {
        // A 120 Hz screen: the clock moves twice as fast in wall time.
        let times: Vec<f64> = (0..200).map(|i| f64::from(i) * 1000.0 / 120.0).collect();
        paced(&times);
        let rate = virtual_per_wall_ms(128);
        assert!((rate - 15.36).abs() < 0.01, "{rate}");
        // A hidden tab's long gap changes nothing.
        paced(&[0.0, 5_000.0]);
        assert!((virtual_per_wall_ms(128) - rate).abs() < 1e-9);
        FRAMES_PER_S.with(|r| r.set(60.0));
    }

    #[test]
    fn an_undrawn_frame_moves_the_clock_and_is_drawn_when_the_run_records_something() {
        use crate::sim::{ClientId, Command, Millis};
        use crate::ui::state::AppState;
        use std::rc::Rc;
        use yew::Reducible;

        let running = Rc::new(AppState::default()).reduce(Action::Start);
        let undrawn = running.clone().reduce(Action::TickUndrawn);
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
            let next = state.clone().reduce(Action::TickUndrawn);
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
            let next = state.clone().reduce(Action::TickUndrawn);
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
        let drawn = state.reduce(Action::Tick);
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
            let next = state.clone().reduce(Action::TickUndrawn);
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
            state = state.reduce(Action::TickUndrawn);
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
            state = state.reduce(Action::TickUndrawn);
            frames += 1;
        }
        assert!(!state.running, "the tour stops at its key moment");
        assert_eq!(state.words_ms, state.sim.borrow().now());
    }
}
