//! Guided stories and the keyboard: loading a preset in one click, its tour
//! (play to the next key moment, or back to the last one by replay), its
//! "try this" switch, and the shortcuts that drive the selected card.

use super::state::{Action, AppState, Notice, Story, PAUSE_DEFAULT_S};
use crate::lesson::presets::{self, Preset, PRESETS};
use crate::lesson::tour::{self, Moment};
use crate::sim::{Backend, ClientId, Command, Config, Fencing, Millis, PartitionScope, Scenario};

use std::rc::Rc;

/// What a key asks for; resolved against the page's state by the reducer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shortcut {
    StartPause,
    Step,
    /// Back in time.
    Back,
    Select(ClientId),
    Acquire,
    Write,
    Release,
    GcPause,
    /// Partition the selected client, or heal it if it is cut off.
    Partition,
    /// Crash the selected client's process (or restart it once crashed).
    Exit,
    /// Power off the selected client's host (or restart it once crashed).
    PowerOff,
    Help,
    /// Describe the whole state aloud.
    Describe,
    /// Turn fencing on or off: a fresh run.
    Fencing,
    /// Close the help.
    Escape,
}

/// The shortcut for a key as `KeyboardEvent.key` names it, if any.
pub fn shortcut_of(key: &str) -> Option<Shortcut> {
    Some(match key {
        " " | "Spacebar" => Shortcut::StartPause,
        "ArrowRight" => Shortcut::Step,
        "ArrowLeft" => Shortcut::Back,
        "1" | "2" | "3" | "4" => {
            let index = key.as_bytes()[0] - b'1';
            Shortcut::Select(ClientId::new(index)?)
        }
        "a" | "A" => Shortcut::Acquire,
        "w" | "W" => Shortcut::Write,
        "r" | "R" => Shortcut::Release,
        "g" | "G" => Shortcut::GcPause,
        "p" | "P" => Shortcut::Partition,
        "x" | "X" => Shortcut::Exit,
        "o" | "O" => Shortcut::PowerOff,
        "d" | "D" => Shortcut::Describe,
        "f" | "F" => Shortcut::Fencing,
        "?" => Shortcut::Help,
        "Escape" => Shortcut::Escape,
        _ => return None,
    })
}

/// Every shortcut, as the help lists it.
pub const SHORTCUTS: &[(&str, &str)] = &[
    ("Space", "start or pause the clock"),
    ("→", "step to the next event"),
    ("←", "back in time"),
    ("1 – 4", "select client A to D"),
    ("a", "acquire, on the selected client"),
    ("w", "write"),
    ("r", "release"),
    ("g", "GC pause, for the length chosen on its card"),
    ("p", "partition, or heal"),
    ("x", "crash: the process exits (or restart)"),
    ("o", "power off: the host dies (or restart)"),
    ("f", "fencing on or off (a fresh run)"),
    ("d", "describe the whole state aloud: who holds the lock, who believes it, what the resource accepted"),
    ("?", "show or hide these shortcuts"),
];

/// The presets grouped the way the stories menu shows them.
pub fn preset_groups() -> Vec<(String, Vec<&'static Preset>)> {
    let mut groups: Vec<(String, Vec<&'static Preset>)> = Vec::new();
    for p in PRESETS {
        let name = if p.backends.len() == Backend::ALL.len() {
            "Every backend".to_string()
        } else {
            let names: Vec<&str> = p.backends.iter().map(|b| b.name()).collect();
            names.join(" and ")
        };
        match groups.iter_mut().find(|(n, _)| *n == name) {
            Some((_, list)) => list.push(p),
            None => groups.push((name, vec![p])),
        }
    }
    // The stories every backend tells come first (moved, not sorted: a
    // sort of these pairs brought the wasm 4 KiB of its own).
    if let Some(every) = groups.iter().position(|(n, _)| n == "Every backend") {
        let group = groups.remove(every);
        groups.insert(0, group);
    }
    groups
}

impl Story {
    /// The key moments of this story's script run with `config`.
    pub fn tour_for(
        preset: &'static Preset,
        actions: &[crate::sim::TimedAction],
        config: &Config,
    ) -> Rc<Vec<Moment>> {
        let scenario = Scenario {
            actions: actions.to_vec(),
            ..Scenario::new(config.clone())
        };
        let run_ms = preset.run_ms_on(config.backend);
        Rc::new(tour::moments(preset, &scenario, Millis(run_ms)))
    }

    /// How many key moments the run has reached by `now`.
    pub fn reached(&self, now: Millis) -> usize {
        self.tour.iter().take_while(|m| m.at <= now).count()
    }

    /// The moment the run is at or last passed.
    pub fn current(&self, now: Millis) -> Option<&Moment> {
        self.reached(now)
            .checked_sub(1)
            .and_then(|i| self.tour.get(i))
    }
}

impl AppState {
    /// One click on a story: its backend if the current one does not suit
    /// it, a fresh run, and the tour at its start.
    pub(crate) fn load_preset(&self, preset: &'static Preset, config: Config) -> AppState {
        let backend = if preset.backends.contains(&config.backend) {
            config.backend
        } else {
            preset.backends[0]
        };
        let loaded = self.load_story(preset, Config { backend, ..config });
        AppState {
            stop_at: None,
            ..loaded
        }
        .with_notice(Notice::Info(format!(
            "Loaded \"{}\" on {}. Press Next to play to its first key moment, or Start to watch it all.",
            preset.title,
            backend.name()
        )))
    }

    /// "Set up the scenario to run first": the story of the GC pause that
    /// outlives the lease on the system chosen now, fencing off and the
    /// TTL at 5 s as the story needs, played to its first key moment so the
    /// tour's first caption shows at once.
    pub(crate) fn set_up_first_scenario(&self, config: Config) -> AppState {
        let loaded = AppState {
            pause_s: [PAUSE_DEFAULT_S; 4],
            ..self.load_story(
                FIRST_STORY,
                Config {
                    fencing: Fencing::Off,
                    ..config
                },
            )
        };
        if loaded.story.is_none() {
            return loaded;
        }
        let backend = loaded.config().backend;
        loaded.tour_next().with_notice(Notice::Info(format!(
            "Set up on {}: fencing off, TTL {} s. Next plays to the next key moment.",
            backend.name(),
            loaded.config().ttl_ms / 1_000
        )))
    }

    /// Shows or closes the tour's bar; the story and its clock go on.
    pub(crate) fn show_tour(&self, open: bool) -> AppState {
        match &self.story {
            Some(story) => AppState {
                story: Some(Story {
                    tour_closed: !open,
                    ..story.clone()
                }),
                ..AppState::clone(self)
            },
            None => AppState::clone(self),
        }
    }

    /// The story again from t=0, its tour open at its first key moment.
    pub(crate) fn replay_tour(&self) -> AppState {
        if self.story.is_none() {
            return self.with_notice(Notice::Refused(
                "Load a story first: its tour stops at each key moment.".into(),
            ));
        }
        let start = self.travel_to(Millis(0));
        // From the start, every question is asked again.
        let story = start.story.as_ref().map(|s| Story {
            quiz: s.quiz.before(0),
            ..s.clone()
        });
        AppState { story, ..start }.show_tour(true).tour_next()
    }

    /// Plays to the next key moment and stops there.
    pub(crate) fn tour_next(&self) -> AppState {
        let now = self.sim.borrow().now();
        let Some(story) = &self.story else {
            return self.with_notice(Notice::Refused(
                "Load a story first: its tour stops at each key moment.".into(),
            ));
        };
        let index = story.reached(now);
        match story.tour.get(index) {
            // Predict, then see: the question first, the moment once answered.
            Some(moment) if self.questions && story.quiz.must_ask(index, moment.question.as_ref()) => {
                self.ask(story, index)
            }
            // Next with the question up skips it.
            Some(_) if story.quiz.asking == Some(index) => self.answer(None),
            Some(moment) => AppState {
                running: true,
                stop_at: Some(moment.at),
                notice: None,
                ..AppState::clone(self)
            },
            None => self.with_notice(Notice::Info(
                "That was the last key moment. Start lets the run go on, or try the suggested change.".into(),
            )),
        }
    }

    /// Back to the previous key moment (or the start), by replaying the run.
    pub(crate) fn tour_back(&self) -> AppState {
        let now = self.sim.borrow().now();
        let Some(story) = &self.story else {
            return self.with_notice(Notice::Refused(
                "Load a story first: its tour stops at each key moment.".into(),
            ));
        };
        let reached = story.reached(now);
        let target = match reached.checked_sub(2) {
            Some(i) => story.tour[i].at,
            None => Millis(0),
        };
        let back = self.travel_to(target);
        // The moments ahead again: their questions are asked again.
        let story = back.story.as_ref().map(|s| Story {
            quiz: s.quiz.before(s.reached(target)),
            ..s.clone()
        });
        AppState { story, ..back }
    }

    /// Flips the loaded story's suggested setting on or off; the story
    /// replays from t=0 with it.
    pub(crate) fn try_this(&self, on: bool, config: Config) -> AppState {
        let Some(story) = &self.story else {
            return self.with_notice(Notice::Refused("Load a story first.".into()));
        };
        let preset = story.preset;
        let tweak = preset.try_this.tweak;
        let next = if on {
            tweak.apply(&config)
        } else {
            let original = preset
                .scenario(config.backend, Fencing::Off)
                .map(|s| s.config)
                .unwrap_or_else(|| config.clone());
            tweak.revert(&config, &original)
        };
        self.restart_with(next)
    }

    /// Resolves a key against the page as it is now.
    pub(crate) fn shortcut(self: Rc<Self>, key: Shortcut) -> Rc<AppState> {
        let c = self.selected;
        let act = |command| Action::Client(c, command);
        let action = match key {
            Shortcut::StartPause if self.running => Action::Pause,
            Shortcut::StartPause => Action::Start,
            Shortcut::Step => Action::Step,
            Shortcut::Back => return Rc::new(self.step_back()),
            Shortcut::Select(c) => Action::Select(c),
            Shortcut::Acquire => act(Command::Acquire),
            Shortcut::Write => act(Command::Write),
            Shortcut::Release => act(Command::Release),
            Shortcut::GcPause => act(Command::GcPause {
                pause_ms: self.pause_s[c.index()] * 1_000,
            }),
            Shortcut::Partition if self.sim.borrow().client_view(c).partition.is_some() => {
                act(Command::Heal)
            }
            Shortcut::Partition => act(Command::Partition {
                scope: PartitionScope::Service,
            }),
            Shortcut::Exit | Shortcut::PowerOff if self.sim.borrow().client_view(c).crashed => {
                act(Command::Restart)
            }
            Shortcut::Exit => act(Command::Exit),
            Shortcut::PowerOff => act(Command::PowerOff),
            Shortcut::Help => Action::ShowHelp(!self.help),
            Shortcut::Describe => Action::Describe,
            Shortcut::Fencing => Action::SetFencing(!self.sim.borrow().config().fencing.is_on()),
            // Escape closes what is open: the shortcuts first, then the tour.
            Shortcut::Escape if self.help || self.story.is_none() => Action::ShowHelp(false),
            Shortcut::Escape => Action::ShowTour(false),
        };
        yew::Reducible::reduce(self, action)
    }

    /// One step back in time: the previous key moment of a story's tour,
    /// otherwise a second earlier.
    fn step_back(&self) -> AppState {
        if self.story.is_some() {
            return self.tour_back();
        }
        let now = self.sim.borrow().now();
        self.travel_to(Millis(now.ms().saturating_sub(STEP_BACK_MS)))
    }
}

/// The story "Set up the scenario to run first" loads.
pub const FIRST_STORY: &Preset = &presets::GC_PAUSE;

/// How far ← goes back outside a story.
pub const STEP_BACK_MS: u64 = 1_000;
