//! How often the page draws time's passing while the clock runs.
//!
//! Every frame advances the simulation by the same step; only the drawing
//! is paced. A frame in which the run records something is always drawn.
//! A frame in which only time moved (the clock, the countdowns, the lease
//! bars, the dots on the wire, the playhead) costs the whole page's render
//! all the same: about 3 ms of the main thread on a desktop, six times that
//! on a slow phone, where every such frame would miss the screen's next
//! refresh (docs/budgets.md, "Frames on a slow phone"). So when a drawn
//! frame comes late, the page lets the next few frames of time alone pass
//! undrawn and draws time's passing at the rate the device keeps up with,
//! at least every `TIME_DRAWN_EVERY_MAX` frames. On a device that keeps
//! up, every frame is drawn, as before.

use super::state::Action;

/// One refresh of a 60 Hz screen, in milliseconds.
const REFRESH_MS: f64 = 1000.0 / 60.0;
/// A frame this long after the one before showed the last one twice.
const LATE_MS: f64 = 25.0;
/// Behind its frames, the page still draws time's passing at least once
/// in this many frames (15 times a second at 60 Hz).
pub const TIME_DRAWN_EVERY_MAX: u32 = 4;

/// Paces the drawing of frames in which only time moved; one per ticker.
#[derive(Debug, Default)]
pub struct FramePacing {
    last_ms: Option<f64>,
    /// Frames of time alone still to pass undrawn.
    undrawn: u32,
    /// Whether the frame before was one the page drew whatever happened.
    drew_last: bool,
}

impl FramePacing {
    /// The action for the frame at `at_ms` (the animation frame's time):
    /// `Tick` draws it; `TickUndrawn` draws it only if the run records
    /// something in it. When a drawn frame took `n` refreshes (the next
    /// came that late), the next `n - 1` frames of time alone pass
    /// undrawn, at most `TIME_DRAWN_EVERY_MAX - 1`: only a drawn frame's
    /// lateness counts, so however slow the device, time is drawn again.
    pub fn action(&mut self, at_ms: f64) -> Action {
        let since_ms = self.last_ms.map_or(0.0, |last| at_ms - last);
        self.last_ms = Some(at_ms);
        if since_ms > LATE_MS && self.drew_last {
            // Whole refreshes, rounded to the nearest (a cast truncates).
            let refreshes = ((since_ms + REFRESH_MS / 2.0) / REFRESH_MS) as u32;
            self.undrawn = refreshes.saturating_sub(1).min(TIME_DRAWN_EVERY_MAX - 1);
        }
        self.drew_last = self.undrawn == 0;
        if self.undrawn > 0 {
            self.undrawn -= 1;
            return Action::TickUndrawn;
        }
        Action::Tick
    }
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
    fn frames_on_time_are_all_drawn() {
        let times: Vec<f64> = (0..120).map(|i| f64::from(i) * REFRESH_MS).collect();
        assert!(paced(&times).into_iter().all(|drawn| drawn));
    }

    #[test]
    fn a_late_frame_lets_the_next_frames_of_time_alone_pass() {
        // The frame at 16.7 ms took three refreshes: this frame and the
        // next pass undrawn, then every frame on time is drawn.
        let drawn = paced(&[0.0, 16.7, 66.7, 83.3, 100.0, 116.7, 133.3]);
        assert_eq!(drawn, [true, true, false, false, true, true, true]);
    }

    #[test]
    fn time_is_drawn_at_least_every_few_frames_however_late() {
        let drawn = paced(&[0.0, 500.0, 516.7, 533.3, 550.0, 566.7]);
        assert_eq!(drawn, [true, false, false, false, true, true]);
        // Every frame late, the undrawn ones too: drawn every third frame.
        let times: Vec<f64> = (0..7).map(|i| f64::from(i) * 50.0).collect();
        assert_eq!(
            paced(&times),
            [true, false, false, true, false, false, true]
        );
        assert_eq!(TIME_DRAWN_EVERY_MAX, 4);
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
}
