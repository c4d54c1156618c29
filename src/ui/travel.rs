//! Time travel. The page can show any earlier moment of the run while
//! keeping the whole run: moving the playhead replays the recorded commands
//! from the start (the core is deterministic, so the replay *is* the run at
//! that time); playing on from there runs the recorded commands again at
//! their times; a new command in the past forks the run and drops the rest.

use super::state::{AppState, Notice, Story};
use crate::sim::Millis;
use crate::sim::{Playback, Refusals, Sim};
use crate::words::seconds_1;
use std::cell::RefCell;
use std::rc::Rc;

impl AppState {
    /// Calls `f` with the whole run: the kept future when the page shows
    /// the past, the page's run otherwise.
    pub fn with_whole<R>(&self, f: impl FnOnce(&Sim) -> R) -> R {
        match &self.future {
            Some(whole) => f(whole),
            None => f(&self.sim.borrow()),
        }
    }

    /// How far the run has gone: the end of the kept future, or now.
    pub fn end(&self) -> Millis {
        self.with_whole(Sim::now)
    }

    /// The page as it was (or will be, up to the end of the run) at `t`.
    pub(crate) fn travel_to(&self, t: Millis) -> AppState {
        let now = self.sim.borrow().now();
        let scenario = match &self.future {
            Some(whole) if t >= whole.now() => {
                return AppState {
                    running: false,
                    ..self.at_head(whole)
                }
            }
            Some(whole) => whole.scenario(),
            // At the head, only the past can be visited.
            None if t >= now => return self.paused(),
            None => self.sim.borrow().scenario(),
        };
        let replayed = match Sim::replay(&scenario, t) {
            Ok(sim) => sim,
            Err(e) => {
                return self.with_notice(Notice::Refused(format!(
                    "The run could not be replayed to {}: {e}",
                    seconds_1(t.ms())
                )))
            }
        };
        let future = match &self.future {
            Some(whole) => whole.clone(),
            // The run as it stands, kept by replaying it to now: the same
            // run, and the page's live one is left as it was.
            None => match Sim::replay(&scenario, now) {
                Ok(whole) => Rc::new(whole),
                Err(_) => return self.paused(),
            },
        };
        AppState {
            story: story_at(&self.story, t),
            sim: Rc::new(RefCell::new(replayed)),
            future: Some(future),
            running: false,
            stop_at: None,
            notice: None,
            ..AppState::clone(self)
        }
    }

    fn paused(&self) -> AppState {
        AppState {
            running: false,
            stop_at: None,
            ..AppState::clone(self)
        }
    }

    /// Back at the end of the recorded run, which goes on live from there.
    pub(crate) fn at_head(&self, whole: &Rc<Sim>) -> AppState {
        // Replaying the kept run to its end gives the run itself.
        let sim = Sim::replay(&whole.scenario(), whole.now());
        let Ok(sim) = sim else {
            return self.clone();
        };
        AppState {
            story: story_at(&self.story, whole.now()),
            sim: Rc::new(RefCell::new(sim)),
            future: None,
            ..AppState::clone(self)
        }
    }

    /// Runs the recorded commands due by `target` at their times, as the
    /// first run did (events due at a command's time run before it).
    pub(crate) fn replay_recorded_until(&self, target: Millis) -> Option<Story> {
        let mut ahead = self.recorded_ahead()?;
        // The same commands at the same moments of the same run: accepted again.
        let _same = ahead.run_to(&mut self.sim.borrow_mut(), target);
        story_at(&self.story, target)
    }

    /// When the kept future's next command not yet run is due.
    pub(crate) fn next_recorded_at(&self) -> Option<Millis> {
        self.recorded_ahead()?.next_at()
    }

    /// The kept future's commands not yet run, as a script ahead of the clock.
    fn recorded_ahead(&self) -> Option<Playback> {
        let whole = self.future.as_ref()?;
        let done = self.sim.borrow().script().len();
        Some(Playback::new(whole.script(), Refusals::Skip).resumed_at(done))
    }

    /// One event (or one recorded command) forward through the kept future.
    pub(crate) fn step_recorded(&self) -> AppState {
        let (Some(whole), Some(mut ahead)) = (self.future.clone(), self.recorded_ahead()) else {
            return self.clone();
        };
        let _same = ahead.step(&mut self.sim.borrow_mut());
        let now = self.sim.borrow().now();
        let done = self.sim.borrow().script().len() >= whole.script().len();
        AppState {
            story: story_at(&self.story, now),
            future: if done && now >= whole.now() {
                None
            } else {
                Some(whole)
            },
            running: false,
            ..AppState::clone(self)
        }
    }

    /// A command given while looking at the past: the run after this
    /// moment is dropped and the command starts a new future.
    pub(crate) fn forked(&self) -> AppState {
        let Some(whole) = &self.future else {
            return self.clone();
        };
        let now = self.sim.borrow().now();
        let dropped = whole
            .script()
            .len()
            .saturating_sub(self.sim.borrow().script().len().saturating_sub(1));
        let commands = match dropped {
            0 => "no recorded commands".to_string(),
            1 => "1 recorded command".to_string(),
            n => format!("{n} recorded commands"),
        };
        AppState {
            future: None,
            notice: Some(Notice::Info(format!(
                "Forked at {}: the run after it ({} to {}, {commands}) was dropped, and your command starts a new future.",
                seconds_1(now.ms()),
                seconds_1(now.ms()),
                seconds_1(whole.now().ms()),
            ))),
            ..self.clone()
        }
    }
}

/// A story with its next step the first one after `t`.
fn story_at(story: &Option<Story>, t: Millis) -> Option<Story> {
    story.as_ref().map(|s| s.at(t))
}
