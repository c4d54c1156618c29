//! The one script player: a script ahead of the clock, each action run as
//! the clock reaches its time. A story, a run kept after travelling back
//! in time and a shared link all play through it.

use super::engine::{RunOutcome, Sim};
use super::error::CommandError;
use super::scenario::{Scenario, ScenarioError, TimedAction};
use super::types::Millis;
use std::rc::Rc;

/// What to do when the run refuses a scripted action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusals {
    /// Stop with an error naming the action: a link or file must replay
    /// exactly what was recorded.
    Stop,
    /// Skip it, as the same click would be refused, and go on: a story
    /// replayed with a changed setting (B writes, but B never got the lock).
    Skip,
}

/// A script and how far it has been played. Cloning shares the script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Playback {
    actions: Rc<[TimedAction]>,
    next: usize,
    refusals: Refusals,
    /// Actions the run refused and `Skip` passed over.
    skipped: usize,
    /// The latest action `Skip` passed over, and why, until taken.
    refused: Option<(TimedAction, CommandError)>,
}

impl Playback {
    pub fn new(actions: impl Into<Rc<[TimedAction]>>, refusals: Refusals) -> Playback {
        Playback {
            actions: actions.into(),
            next: 0,
            refusals,
            skipped: 0,
            refused: None,
        }
    }

    /// The same script with its first `done` actions already run.
    pub fn resumed_at(self, done: usize) -> Playback {
        Playback {
            next: done.min(self.actions.len()),
            ..self
        }
    }

    /// A fresh run of `scenario` played up to `t`.
    pub fn start(
        scenario: &Scenario,
        refusals: Refusals,
        t: Millis,
    ) -> Result<(Sim, Playback), ScenarioError> {
        scenario.validate()?;
        let mut sim = Sim::new(scenario.config.clone()).map_err(ScenarioError::Config)?;
        let mut playback = Playback::new(scenario.actions.as_slice(), refusals);
        playback.run_to(&mut sim, t)?;
        Ok((sim, playback))
    }

    /// Runs the actions due by `t`, each at its time, and moves the clock
    /// to `t`. Actions scheduled before the clock are run now.
    pub fn run_to(&mut self, sim: &mut Sim, t: Millis) -> Result<RunOutcome, ScenarioError> {
        while let Some(timed) = self.actions.get(self.next).copied() {
            if timed.at > t {
                break;
            }
            if let RunOutcome::Truncated { events } = sim.run_until(timed.at) {
                return Ok(RunOutcome::Truncated { events });
            }
            self.act_next(sim)?;
        }
        Ok(sim.run_until(t))
    }

    /// One step forward: the next action if it is due no later than the
    /// next event (at its time), else the next event. False when neither
    /// is left.
    pub fn step(&mut self, sim: &mut Sim) -> Result<bool, ScenarioError> {
        let due = self.next_at();
        match (due, sim.next_event_at()) {
            (Some(at), next_event) if next_event.is_none_or(|e| at <= e) => {
                sim.run_until(at);
                self.act_next(sim)?;
                Ok(true)
            }
            _ => Ok(sim.step()),
        }
    }

    fn act_next(&mut self, sim: &mut Sim) -> Result<(), ScenarioError> {
        let Some(timed) = self.actions.get(self.next).copied() else {
            return Ok(());
        };
        self.next += 1;
        let Err(error) = sim.act(timed.action) else {
            return Ok(());
        };
        match self.refusals {
            Refusals::Stop => Err(ScenarioError::Refused {
                index: self.next - 1,
                at: timed.at,
                error,
            }),
            Refusals::Skip => {
                self.skipped += 1;
                self.refused = Some((timed, error));
                Ok(())
            }
        }
    }

    /// The latest action the run refused and `Skip` passed over, once.
    pub fn take_refusal(&mut self) -> Option<(TimedAction, CommandError)> {
        self.refused.take()
    }

    /// The whole script, played or not.
    pub fn actions(&self) -> &[TimedAction] {
        &self.actions
    }

    /// How many actions have been run (or skipped).
    pub fn done(&self) -> usize {
        self.next
    }

    /// When the next action is due.
    pub fn next_at(&self) -> Option<Millis> {
        self.actions.get(self.next).map(|a| a.at)
    }

    /// The actions not yet run.
    pub fn ahead(&self) -> &[TimedAction] {
        &self.actions[self.next..]
    }

    pub fn is_done(&self) -> bool {
        self.next >= self.actions.len()
    }

    /// How many actions the run refused and were skipped.
    pub fn skipped(&self) -> usize {
        self.skipped
    }
}

impl Sim {
    /// Replays a scenario exactly up to time `t`: the actions due by then,
    /// and the clock moved to `t`. A refused action is an error.
    pub fn replay(scenario: &Scenario, t: Millis) -> Result<Sim, ScenarioError> {
        Playback::start(scenario, Refusals::Stop, t).map(|(sim, _)| sim)
    }

    /// Replays a scenario up to its last scripted action.
    pub fn from_scenario(scenario: &Scenario) -> Result<Sim, ScenarioError> {
        Sim::replay(scenario, scenario.last_at())
    }

    /// Plays a story up to `t` the way the page plays it: a step the run
    /// refuses is skipped, as the same click would be, and the rest go on.
    pub fn play(scenario: &Scenario, t: Millis) -> Result<Sim, ScenarioError> {
        Playback::start(scenario, Refusals::Skip, t).map(|(sim, _)| sim)
    }
}
