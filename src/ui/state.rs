//! The page's one reducer: the simulation, the clock controls and the
//! choices a visitor makes, changed only through `Action`.

use crate::lesson::presets::Preset;
use crate::sim::{
    Backend, ClientId, Command, CommandError, Config, Fencing, Millis, NodeCommand, NodeId,
    Playback, Refusals, RunOutcome, Seed, Sim, SCRIPT_LEN_MAX, SCRIPT_TIME_MS_MAX, TTL_MS_MAX,
    TTL_MS_MIN,
};

use std::cell::RefCell;
use std::rc::Rc;
use yew::Reducible;

use super::guide::Shortcut;
use super::quiz::Quiz;
use super::views::View;
use crate::lesson::narrator::Narration;
use crate::lesson::tour::Moment;
use crate::words::{capitalize, decimal, Extra};

/// Virtual milliseconds one frame advances at 1x. Wall time decides only
/// when a frame comes, never how far the simulation moves in it.
pub const FRAME_MS: u64 = 16;
/// Speed is kept in quarters so it stays an integer: 1 is 0.25x, 32 is 8x.
pub const SPEED_QUARTERS_MIN: u32 = 1;
pub const SPEED_QUARTERS_MAX: u32 = 32;
pub const SPEED_QUARTERS_DEFAULT: u32 = 4;
/// The GC pause lengths a card offers, in seconds.
/// 40 s outlasts a Chubby session's last extension and its one-minute
/// lock-delay at the default TTL, so the first scenario can be clicked there too;
/// 90 s (the network delay GitHub once saw) outlasts the longest TTL.
pub const PAUSE_CHOICES_S: [u64; 6] = [2, 5, 8, 15, 40, 90];
const _: () = assert!(PAUSE_CHOICES_S[PAUSE_CHOICES_S.len() - 1] * 1000 > crate::sim::TTL_MS_MAX);
pub const PAUSE_DEFAULT_S: u64 = 8;

/// A message for the visitor: something refused, or something that happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// Input that was refused; nothing changed.
    Refused(String),
    Info(String),
}

impl Notice {
    pub fn text(&self) -> &str {
        match self {
            Notice::Refused(t) | Notice::Info(t) => t,
        }
    }
}

/// A simulation handed to the page to start from, compared by identity so
/// it can travel in props.
#[derive(Debug, Clone)]
pub struct StartSim(pub Rc<Sim>);

impl PartialEq for StartSim {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// Everything the page remembers between frames.
#[derive(Debug, Clone)]
pub struct AppState {
    /// Shared by successive states: cloning a whole run every frame is too slow.
    pub sim: Rc<RefCell<Sim>>,
    /// Bumped on every fresh run.
    pub run: u64,
    pub running: bool,
    pub speed_quarters: u32,
    /// The GC pause chosen on each card, in seconds.
    pub pause_s: [u64; 4],
    pub notice: Option<Notice>,
    /// Whether the event log shows every network message too.
    pub log_messages: bool,
    /// What the seed and TTL fields hold, as typed: a refused entry stays
    /// in its field (with a message) instead of snapping back.
    pub seed_text: String,
    pub ttl_text: String,
    /// The story chosen in the stories list, loaded or not.
    /// A loaded story: its script plays as the clock passes each step.
    pub story: Option<Story>,
    /// Where a tour's Next stops the clock: the next key moment.
    pub stop_at: Option<Millis>,
    /// The client the keyboard acts on.
    pub selected: ClientId,
    /// Whether the keyboard shortcuts are shown.
    pub help: bool,
    /// How much the narrator says (`narration=full` in the address).
    pub narration: Narration,
    /// Bumped each time the reader asks for the whole state described
    /// (`d`, or the Describe button): the narrator says it at once.
    pub described: u64,
    /// The whole run while the page shows an earlier moment of it (the
    /// playhead moved back); `None` at the head of the run.
    pub future: Option<Rc<Sim>>,
    /// The view on show: the simulator or one of the tools.
    pub view: View,
    /// Whether a tour asks for a prediction before its key moments
    /// (`questions=off` in the address turns them off).
    pub questions: bool,
    /// The page's answer to the host page's last command that needed one
    /// (`super::host`), sent once.
    pub answer: Option<super::host::HostAnswer>,
    /// The clock when time's words (the clock, the countdowns) were last
    /// drawn. A frame drawn because the run recorded something keeps it, so
    /// a part that only time changes is not drawn again for it (its props
    /// compare by this, not by the clock: `super::Clock`); every other
    /// change of state draws time where the clock stands.
    pub words_ms: Millis,
    /// How many states drew time's words: it changes with every change of
    /// state except a running clock's event frames, so what is drawn only
    /// with time's words (the folded books) is keyed by it.
    pub words_drawn: u64,
}

/// A preset being played: its timed commands and how far the run has got.
#[derive(Debug, Clone, PartialEq)]
pub struct Story {
    pub preset: &'static Preset,
    /// Its script ahead of the clock; a step the run refuses is skipped.
    pub script: Playback,
    /// Its key moments with the current settings, found by playing it.
    pub tour: Rc<Vec<Moment>>,
    /// Whether the visitor closed its tour's bar (the story plays on).
    pub tour_closed: bool,
    /// The visitor's predictions before its moments.
    pub quiz: Quiz,
}

impl Story {
    /// When its next step is due.
    pub fn next_at(&self) -> Option<Millis> {
        self.script.next_at()
    }

    /// Back at its first step, its tour found again for `config`.
    fn rewound(&self, config: &Config) -> Story {
        Story {
            script: self.script.clone().resumed_at(0),
            tour: Story::tour_for(self.preset, self.script.actions(), config),
            // A new run asks its own questions.
            quiz: Quiz::default(),
            ..self.clone()
        }
    }

    /// The same story with its next step the first one after `t`.
    pub(crate) fn at(&self, t: Millis) -> Story {
        let done = self
            .script
            .actions()
            .iter()
            .take_while(|a| a.at <= t)
            .count();
        Story {
            script: self.script.clone().resumed_at(done),
            ..self.clone()
        }
    }
}

impl Default for AppState {
    fn default() -> Self {
        AppState::new(None)
    }
}

/// What a visitor (or the clock) can do to the page.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// The running clock moves on by these virtual milliseconds (the wall
    /// time since it last moved, at the speed's rate: `pacing::Pace`), and
    /// draws time's words where it stops.
    Tick(u64),
    /// As `Tick`, drawn only if the run records something on the way
    /// (`pacing::Pace`): when only time moved, the state stays the same
    /// `Rc` and Yew skips the render, while the simulation, shared in
    /// place, has moved on. The next render shows where it is.
    TickUndrawn(u64),
    Start,
    Pause,
    /// Run the next scheduled event and stop the clock.
    Step,
    /// A fresh run with the same settings.
    Reset,
    SetSeed(String),
    SetTtl(String),
    /// The latency field's choice: an index into `LATENCY_PRESETS`.
    SetLatency(String),
    SetSpeed(String),
    SetBackend(Backend),
    SetFencing(bool),
    /// New settings for the run (a system's own options): a fresh run.
    Reconfigure(Config),
    Client(ClientId, Command),
    Node(NodeId, NodeCommand),
    ChoosePause(ClientId, String),
    /// The first story ("A GC pause outlives the lease") on the current
    /// system, fencing off, TTL 5 s, its tour at its first key moment.
    SetUpFirstScenario,
    DismissNotice,
    ShowLogMessages(bool),
    /// Stop playing the story's script; the run goes on by hand.
    UnloadStory,
    /// One click on a story in the menu: load it, switching backend if needed.
    LoadPreset(&'static Preset),
    /// Play the loaded story to its next key moment and stop there (first
    /// asking its question, if it has one).
    TourNext,
    /// The answer to the tour's question (`None`: skipped); the run then
    /// plays to its moment.
    TourAnswer(Option<usize>),
    /// An answer chosen for the tour's question, not yet sent.
    TourPick(usize),
    /// Back to the story's previous key moment, by replay.
    TourBack,
    /// Turn the loaded story's suggested change on or off.
    TryThis(bool),
    /// The tour's last step: the suggested change on, and the tour again
    /// from its first key moment.
    TryThisInTour,
    /// Show or close the tour's bar; the story plays on either way.
    ShowTour(bool),
    /// The story from t=0, its tour at its first key moment.
    ReplayTour,
    /// A key pressed anywhere on the page.
    Shortcut(Shortcut),
    /// The client the keyboard acts on.
    Select(ClientId),
    ShowHelp(bool),
    /// How much the narrator says.
    SetNarration(Narration),
    /// Describe the whole state, at once.
    Describe,
    /// Move the playhead: show the run as it was at this virtual time.
    Seek(u64),
    /// Show another view of the page.
    ShowView(View),
    /// Open a shared run from a link's fragment.
    OpenLink(String),
    /// Open a run the worker's markup links to (a comparison cell), and
    /// say what it is.
    OpenWorkRun {
        fragment: String,
        say: String,
    },
    /// Open a run from a file's text (or say why the file could not be read).
    ImportRun(Result<String, String>),
    /// A command from the page that embeds this one (`super::host`).
    Host(crate::wire::host::HostCommand),
}

impl AppState {
    pub fn new(start: Option<StartSim>) -> AppState {
        let sim = match start {
            // A run handed in is the page's to change: a copy, unless it is
            // the only reference.
            Some(StartSim(sim)) => Rc::try_unwrap(sim).unwrap_or_else(|shared| copy_of(&shared)),
            None => fresh_sim(Config::default()),
        };
        let (seed_text, ttl_text) = field_texts(sim.config());
        AppState {
            sim: Rc::new(RefCell::new(sim)),
            run: 0,
            running: false,
            speed_quarters: SPEED_QUARTERS_DEFAULT,
            pause_s: [PAUSE_DEFAULT_S; 4],
            notice: None,
            log_messages: false,
            seed_text,
            ttl_text,
            story: None,
            stop_at: None,
            selected: ClientId::ALL[0],
            help: false,
            narration: Narration::default(),
            described: 0,
            future: None,
            view: View::Simulator,
            questions: true,
            answer: None,
            words_ms: Millis(0),
            words_drawn: 0,
        }
        .with_words_now()
    }

    /// The same state with time's words drawn where the clock stands.
    pub(crate) fn with_words_now(self) -> AppState {
        let words_ms = self.sim.borrow().now();
        AppState { words_ms, ..self }
    }

    /// The clock as the parts drawn from this state see it.
    pub fn clock(&self) -> super::Clock {
        super::Clock {
            now: self.sim.borrow().now(),
            words: self.words_ms,
        }
    }

    /// The same state with the simulator on show.
    pub(crate) fn in_simulator(self) -> AppState {
        AppState {
            view: View::Simulator,
            ..self
        }
    }

    pub fn config(&self) -> Config {
        self.sim.borrow().config().clone()
    }

    /// Virtual milliseconds a sixtieth of a second of wall time (a frame of
    /// a 60 Hz screen) at the current speed: the clock's rate
    /// (`pacing::virtual_per_wall_ms`).
    pub fn frame_ms(&self) -> u64 {
        FRAME_MS * u64::from(self.speed_quarters) / 4
    }

    /// `frame_ms` while the clock runs, 0 while it stands: the rate at
    /// which time's motion is carried on between renders (`ui::Motion`).
    pub fn gliding_frame_ms(&self) -> u64 {
        if self.running {
            self.frame_ms()
        } else {
            0
        }
    }

    pub(crate) fn with_notice(&self, notice: Notice) -> AppState {
        AppState {
            notice: Some(notice),
            ..AppState::clone(self)
        }
    }

    /// A fresh run with `config`; an invalid one is refused with its reason.
    pub(crate) fn restart_with(&self, config: Config) -> AppState {
        let (seed_text, ttl_text) = field_texts(&config);
        let story = self.story.as_ref().map(|s| s.rewound(&config));
        match Sim::new(config) {
            Ok(sim) => AppState {
                sim: Rc::new(RefCell::new(sim)),
                seed_text,
                ttl_text,
                story,
                run: self.run.wrapping_add(1),
                running: false,
                stop_at: None,
                notice: None,
                future: None,
                ..AppState::clone(self)
            },
            Err(e) => self.with_notice(Notice::Refused(capitalize(&e.to_string()))),
        }
    }

    /// Virtual milliseconds from the clock to the next moment a running
    /// clock must be woken for, as far as the run can say: the next event
    /// in the simulation's queue, the story's next step, a replayed
    /// future's next command or its end, the tour's key moment, the end of
    /// the day. `None` when nothing is due. Between those moments only time
    /// moves (`pacing::Pace` wakes the clock there, and for time's words).
    pub fn until_due(&self) -> Option<u64> {
        let sim = self.sim.borrow();
        let now = sim.now();
        let day_end = (now.ms() <= SCRIPT_TIME_MS_MAX).then_some(Millis(SCRIPT_TIME_MS_MAX + 1));
        [
            sim.next_event_at(),
            self.story.as_ref().and_then(Story::next_at),
            self.next_recorded_at(),
            self.future.as_ref().map(|whole| whole.now()),
            self.stop_at,
            day_end,
        ]
        .into_iter()
        .flatten()
        .min()
        .map(|at| at.ms().saturating_sub(now.ms()))
    }

    /// Moves the running clock on by `step_ms`; `draw_time` false returns
    /// the same state when only time moved (see `Action::TickUndrawn`).
    pub(crate) fn tick(self: Rc<Self>, step_ms: u64, draw_time: bool) -> Rc<Self> {
        if !self.running {
            // Nothing changes: returning the same state skips the re-render.
            return self;
        }
        let mut target = self.sim.borrow().now().plus(step_ms);
        // A tour's Next stops exactly on its key moment.
        let arrived = self.stop_at.filter(|&at| at <= target);
        if let Some(at) = arrived {
            target = at;
        }
        // Past the end of a kept future, the run goes on live from its end.
        let (this, same) = match &self.future {
            Some(whole) if target >= whole.now() => (Rc::new(self.at_head(whole)), false),
            _ => (self, true),
        };
        let recorded = |sim: &Sim| sim.history_dropped() + sim.history().len() as u64;
        // How far a story's script has got (steps played or skipped).
        let played = |story: &Option<Story>| story.as_ref().map(|s| s.script.done());
        let records_before = recorded(&this.sim.borrow());
        let (story, refused) = match this.future {
            Some(_) => (this.replay_recorded_until(target), None),
            None => this.play_story_until(target),
        };
        let before = this.sim.borrow().now();
        let outcome = this.sim.borrow_mut().run_until(target);
        let after = this.sim.borrow().now();
        let day_over = before.ms() <= SCRIPT_TIME_MS_MAX && after.ms() > SCRIPT_TIME_MS_MAX;
        let time_alone = same
            && refused.is_none()
            && !day_over
            && arrived.is_none()
            && outcome == RunOutcome::Reached
            && played(&story) == played(&this.story)
            && recorded(&this.sim.borrow()) == records_before;
        if time_alone && !draw_time {
            return this;
        }
        let next = AppState {
            story,
            running: this.running && arrived.is_none(),
            stop_at: if arrived.is_some() {
                None
            } else {
                this.stop_at
            },
            ..AppState::clone(&this)
        };
        let next = match refused {
            Some(message) => next.with_notice(Notice::Refused(message)),
            // Every command button turns off as the clock passes one day;
            // the page says why where it is seen, as for a full script.
            None if day_over => {
                next.with_notice(Notice::Info(capitalize(&CommandError::DayOver.to_string())))
            }
            None => next,
        };
        match outcome {
            RunOutcome::Reached => Rc::new(next),
            RunOutcome::Truncated { events } => Rc::new(AppState {
                running: false,
                ..next.with_notice(Notice::Refused(format!(
                    "The clock stopped: {events} events in one frame is past the limit. Step through them, or reset."
                )))
            }),
        }
    }

    /// Plays the story's script up to `target` (the core's player: each
    /// step at its time, a refused step skipped). Returns the story moved
    /// on, and the last refusal if a step was refused.
    fn play_story_until(&self, target: Millis) -> (Option<Story>, Option<String>) {
        self.play_story(|script, sim| {
            // Skipping never stops the player with an error.
            let _ = script.run_to(sim, target);
        })
    }

    /// Runs `play` on a copy of the story's script against the run.
    fn play_story(
        &self,
        play: impl FnOnce(&mut Playback, &mut Sim),
    ) -> (Option<Story>, Option<String>) {
        let Some(mut story) = self.story.clone() else {
            return (None, None);
        };
        play(&mut story.script, &mut self.sim.borrow_mut());
        let refused = story
            .script
            .take_refusal()
            .map(|(timed, e)| format!("The story's step \"{}\" was refused: {e}", timed.action));
        (Some(story), refused)
    }

    fn step(&self) -> AppState {
        if self.future.is_some() {
            return self.step_recorded();
        }
        // A story step due before the next event runs first, as one step.
        let next_event = self.sim.borrow().next_event_at();
        let story_at = self.story.as_ref().and_then(Story::next_at);
        if story_at.is_some_and(|at| next_event.is_none_or(|e| at <= e)) {
            let (story, refused) = self.play_story(|script, sim| {
                let _ = script.step(sim);
            });
            let next = AppState {
                story,
                running: false,
                ..AppState::clone(self)
            };
            return match refused {
                Some(message) => next.with_notice(Notice::Refused(message)),
                None => next,
            };
        }
        let ran = self.sim.borrow_mut().step();
        let next = AppState {
            running: false,
            ..AppState::clone(self)
        };
        if ran {
            next
        } else {
            next.with_notice(Notice::Info(
                "Nothing is scheduled: click a command on a card first.".into(),
            ))
        }
    }

    /// What the page says after a command it ran: nothing, unless that
    /// command filled the run's script. Then every command button turns
    /// off, and the page says why where it is seen, not only in their
    /// titles: the clock runs on, and Reset starts a fresh run.
    fn said_after_command(&self) -> Option<Notice> {
        let full = self.sim.borrow().script().len() >= SCRIPT_LEN_MAX;
        full.then(|| Notice::Info(capitalize(&CommandError::ScriptFull.to_string())))
    }

    fn client_command(&self, c: ClientId, command: Command) -> AppState {
        let result = self.sim.borrow_mut().command(c, command);
        match result {
            Ok(()) => AppState {
                notice: self.said_after_command(),
                ..AppState::clone(self)
            }
            .forked(),
            Err(e) => self.with_notice(Notice::Refused(capitalize(&e.to_string()))),
        }
    }

    fn node_command(&self, node: NodeId, command: NodeCommand) -> AppState {
        let result = self.sim.borrow_mut().node_command(node, command);
        match result {
            Ok(()) => AppState {
                notice: self.said_after_command(),
                ..AppState::clone(self)
            }
            .forked(),
            Err(e) => self.with_notice(Notice::Refused(capitalize(&e.to_string()))),
        }
    }
}

impl AppState {
    /// A fresh run of `preset` on the backend and fencing of `config`, keeping the seed.
    pub(crate) fn load_story(&self, preset: &'static Preset, config: Config) -> AppState {
        let Some(scenario) = preset.scenario(config.backend, config.fencing) else {
            let names: Vec<&str> = preset.backends.iter().map(|b| b.name()).collect();
            return self.with_notice(Notice::Refused(format!(
                "\"{}\" is a story for {}: switch the backend first.",
                preset.title,
                names.join(" and ")
            )));
        };
        let story_config = Config {
            seed: config.seed,
            ..scenario.config.clone()
        };
        let story = Story {
            preset,
            tour: Story::tour_for(preset, &scenario.actions, &story_config),
            script: Playback::new(scenario.actions, Refusals::Skip),
            tour_closed: false,
            quiz: Quiz::default(),
        };
        let with_story = AppState {
            story: Some(story),
            ..self.clone()
        };
        let loaded = with_story.restart_with(Config {
            seed: config.seed,
            ..scenario.config
        });
        loaded.with_notice(Notice::Info(format!(
            "Loaded \"{}\". Press Start to watch it play, or Step through it.",
            preset.title
        )))
    }

    /// A fresh run on another backend; a loaded story comes along if it suits it.
    fn switch_backend(&self, backend: Backend, config: Config) -> AppState {
        let config = with_fence_kept(Config { backend, ..config });
        match &self.story {
            Some(story) if story.preset.backends.contains(&backend) => {
                self.load_story(story.preset, Config { backend, ..config })
            }
            Some(_) => AppState {
                story: None,
                ..self.clone()
            }
            .restart_with(Config { backend, ..config }),
            None => self.restart_with(Config { backend, ..config }),
        }
    }
}

impl Reducible for AppState {
    type Action = Action;

    /// Every new state draws time's words where the clock stands, except a
    /// tick drawn only because the run recorded something
    /// (`Action::TickUndrawn`) with the clock still running, which keeps
    /// the words of the render before. A tick that stops the clock (a
    /// tour's key moment, the end of a replayed run) shows the exact state.
    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let undrawn = matches!(action, Action::TickUndrawn(_));
        let mut next = self.clone().reduced(action);
        let words_kept = undrawn && next.running;
        if !words_kept && !Rc::ptr_eq(&next, &self) {
            let now = next.sim.borrow().now();
            let drawn = Rc::make_mut(&mut next);
            drawn.words_ms = now;
            drawn.words_drawn += 1;
        }
        next
    }
}

impl AppState {
    fn reduced(self: Rc<Self>, action: Action) -> Rc<Self> {
        let config = self.config();
        let next = match action {
            Action::Tick(step_ms) => return self.tick(step_ms, true),
            Action::TickUndrawn(step_ms) => return self.tick(step_ms, false),
            Action::Start => AppState {
                running: true,
                stop_at: None,
                notice: None,
                ..AppState::clone(&self)
            },
            Action::Pause => AppState {
                running: false,
                stop_at: None,
                ..AppState::clone(&self)
            },
            Action::Step => AppState {
                stop_at: None,
                ..self.step()
            },
            Action::Reset => self.restart_with(config),
            // Applied when the field is left or Enter is pressed; the field
            // shows the run's value again whatever happens: the new one, or
            // the old one beside the reason it was refused.
            Action::SetSeed(text) => match parse_seed(&text) {
                // The same value: the run goes on untouched.
                Ok(seed) if seed == config.seed => return self,
                Ok(seed) => self.restart_with(Config { seed, ..config }),
                Err(message) => self.with_notice(Notice::Refused(message)),
            },
            Action::SetTtl(text) => match parse_ttl_ms(&text) {
                Ok(ttl_ms) if ttl_ms == config.ttl_ms => return self,
                Ok(ttl_ms) => self.restart_with(Config { ttl_ms, ..config }),
                Err(message) => self.with_notice(Notice::Refused(message)),
            },
            // Anything else (the link's own latency, chosen again) keeps the run.
            Action::SetLatency(index) => match index
                .parse::<usize>()
                .ok()
                .and_then(|i| crate::sim::latency::LATENCY_PRESETS.get(i))
            {
                Some(preset) => self.restart_with(preset.apply(&config)),
                None => return self,
            },
            Action::SetSpeed(text) => match parse_speed_quarters(&text) {
                Ok(speed_quarters) => AppState {
                    speed_quarters,
                    notice: None,
                    ..AppState::clone(&self)
                },
                Err(message) => self.with_notice(Notice::Refused(message)),
            },
            Action::SetBackend(backend) => self.switch_backend(backend, config),
            Action::SetFencing(on) => {
                let fencing = if on { Fencing::On } else { Fencing::Off };
                self.restart_with(Config { fencing, ..config })
            }
            Action::Reconfigure(config) => self.restart_with(config),
            Action::Client(c, command) => self.client_command(c, command),
            Action::Node(node, command) => self.node_command(node, command),
            Action::ChoosePause(c, text) => match parse_pause_s(&text) {
                Ok(seconds) => {
                    let mut pause_s = self.pause_s;
                    pause_s[c.index()] = seconds;
                    AppState {
                        pause_s,
                        ..AppState::clone(&self)
                    }
                }
                Err(message) => self.with_notice(Notice::Refused(message)),
            },
            Action::SetUpFirstScenario => self.set_up_first_scenario(config),
            Action::DismissNotice => AppState {
                notice: None,
                ..AppState::clone(&self)
            },
            Action::ShowLogMessages(log_messages) => AppState {
                log_messages,
                ..AppState::clone(&self)
            },
            Action::LoadPreset(preset) => self.load_preset(preset, config),
            Action::TourNext => self.tour_next(),
            Action::TourAnswer(picked) => self.answer(picked),
            Action::TourPick(answer) => self.pick(answer),
            Action::TourBack => self.tour_back(),
            Action::TryThis(on) => self.try_this(on, config),
            Action::TryThisInTour => self.try_this(true, config).tour_next(),
            Action::ShowTour(open) => self.show_tour(open),
            Action::ReplayTour => self.replay_tour(),
            Action::Shortcut(key) => return self.shortcut(key),
            Action::Host(command) => return self.host(command),
            Action::Select(selected) => AppState {
                selected,
                ..AppState::clone(&self)
            },
            // A moment chosen anywhere (a property's violation) is shown
            // in the simulator.
            Action::Seek(ms) => self.travel_to(Millis(ms)).in_simulator(),
            Action::ShowView(view) => AppState {
                view,
                ..AppState::clone(&self)
            },
            // A run opened from any view plays in the simulator.
            Action::OpenLink(fragment) => self
                .open_run(crate::wire::link::open_link(&fragment))
                .in_simulator(),
            Action::OpenWorkRun { fragment, say } => {
                self.open_work_run(&fragment, say).in_simulator()
            }
            Action::ImportRun(Ok(text)) => self
                .open_run(crate::wire::link::open_run_file(&text))
                .in_simulator(),
            Action::ImportRun(Err(message)) => self.refused_run(&message),
            Action::ShowHelp(help) => AppState {
                help,
                ..AppState::clone(&self)
            },
            Action::SetNarration(narration) => AppState {
                narration,
                ..AppState::clone(&self)
            },
            Action::Describe => AppState {
                described: self.described.wrapping_add(1),
                ..AppState::clone(&self)
            },
            Action::UnloadStory => AppState {
                story: None,
                notice: Some(Notice::Info(
                    "The story's script is unloaded: the run goes on by hand.".into(),
                )),
                ..AppState::clone(&self)
            },
        };
        Rc::new(next)
    }
}

/// A switched system keeps the fencing mode chosen for the last one where
/// it offers it, and is named only where it is not the documented one, so
/// a link says no more than it must.
fn with_fence_kept(config: Config) -> Config {
    let backend = config.backend;
    let kept = config.fence;
    let offered = backend.fence_modes().contains(&kept);
    let fence = if offered && kept != backend.documented_fence(&config) {
        kept
    } else {
        crate::sim::FenceMode::Documented
    };
    Config { fence, ..config }
}

/// The seed and TTL fields' text for a configuration.
fn field_texts(config: &Config) -> (String, String) {
    (config.seed.to_string(), ttl_words(config.ttl_ms))
}

/// The TTL as the field shows it: "5" or "2.5".
pub fn ttl_words(ttl_ms: u64) -> String {
    let fraction = format!("{:03}", ttl_ms % 1000);
    match fraction.trim_end_matches('0') {
        "" => (ttl_ms / 1000).to_string(),
        digits => format!("{}.{digits}", ttl_ms / 1000),
    }
}

/// The same run as `sim`, made by replaying its commands (the core is
/// deterministic), which keeps a second way of copying a run out of the page.
fn copy_of(sim: &Sim) -> Sim {
    Sim::replay(&sim.scenario(), sim.now()).unwrap_or_else(|_| fresh_sim(sim.config().clone()))
}

fn fresh_sim(config: Config) -> Sim {
    match Sim::new(config) {
        Ok(sim) => sim,
        // The default configuration is always in range; fall back to it.
        // (A match, not `expect`: that would link the error's Debug.)
        Err(_) => match Sim::new(Config::default()) {
            Ok(sim) => sim,
            Err(_) => unreachable!("the default configuration is valid"),
        },
    }
}

/// A seed is any whole number from 0 to 18446744073709551615.
pub fn parse_seed(text: &str) -> Result<Seed, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err("Seed: type a whole number, for example 1. The run is unchanged.".into());
    }
    trimmed.parse::<u64>().map(Seed).map_err(|_| {
        format!(
            "Seed: \"{}\" is not a whole number from 0 to {}. The run is unchanged.",
            shortened(trimmed),
            u64::MAX
        )
    })
}

/// What was typed, cut to a length a notice can quote.
fn shortened(text: &str) -> String {
    const QUOTED_CHARS_MAX: usize = 24;
    match text.char_indices().nth(QUOTED_CHARS_MAX) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_string(),
    }
}

/// TTL in seconds, 1 to 60, decimals allowed to the millisecond.
pub fn parse_ttl_ms(text: &str) -> Result<u64, String> {
    let typed = text.trim();
    let parsed = decimal(typed, 3, Extra::Round);
    let what = match parsed {
        _ if typed.is_empty() => "TTL (s) is empty".to_string(),
        Some(_) => format!("A TTL of {} s is out of range", shortened(typed)),
        None => format!("TTL (s): \"{}\" is not a number", shortened(typed)),
    };
    let range = format!(
        "{what}: type a number of seconds from {} to {}. The run is unchanged.",
        TTL_MS_MIN / 1000,
        TTL_MS_MAX / 1000
    );
    parsed
        .filter(|ms| (TTL_MS_MIN..=TTL_MS_MAX).contains(ms))
        .ok_or(range)
}

/// Speed as a multiple, 0.25 to 8, rounded to a quarter.
pub fn parse_speed_quarters(text: &str) -> Result<u32, String> {
    let range = "Speed: choose from 0.25x to 8x.".to_string();
    let thousandths = decimal(text.trim().trim_end_matches(['x', 'X']), 3, Extra::Round);
    // Rounded to the nearest quarter, as the slider steps.
    let quarters = thousandths
        .map(|t| (t.saturating_mul(4).saturating_add(500) / 1000).min(u64::from(u32::MAX)) as u32);
    quarters
        .filter(|q| (SPEED_QUARTERS_MIN..=SPEED_QUARTERS_MAX).contains(q))
        .ok_or(range)
}

/// One of the pause lengths the card offers.
pub fn parse_pause_s(text: &str) -> Result<u64, String> {
    text.trim()
        .parse::<u64>()
        .ok()
        .filter(|s| PAUSE_CHOICES_S.contains(s))
        .ok_or_else(|| "Pause (s): choose 2, 5, 8, 15, 40 or 90 seconds.".to_string())
}

/// Speed for people: "0.25x", "1x", "8x".
pub fn speed_words(quarters: u32) -> String {
    let whole = quarters / 4;
    match quarters % 4 {
        0 => format!("{whole}x"),
        1 => format!("{whole}.25x"),
        2 => format!("{whole}.5x"),
        _ => format!("{whole}.75x"),
    }
}
