//! The host page's side of an embed (`docs/embed.md`): the commands a
//! course page sends its frame, carried out through the page's own actions
//! (so a command the run cannot take is refused with the page's own
//! reason, and changes nothing), and the events the frame sends back as
//! the run makes them: a grant, an expiry, a write and its outcome, a
//! corruption, a key moment, the tour's end.

use super::browser;
use super::state::{Action, AppState, Notice, SPEED_QUARTERS_MAX};
use crate::lesson::presets;
use crate::sim::{Command, Config, Fencing, Millis, Sim, SCRIPT_TIME_MS_MAX};
use crate::wire::host::{events_of, ClientAction, HostCommand, HostEvent, SeekTo, Settings};
use crate::words::seconds_1;
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use yew::prelude::*;
use yew::Reducible;

/// How far past the run's end a `seek` plays the run on, in virtual time:
/// ten minutes is longer than any story, and keeps one command short.
pub const SEEK_AHEAD_MS_MAX: u64 = 600_000;

/// The page's answer to the last host command that needed one (a refusal,
/// a description), numbered so that the same answer twice is sent twice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostAnswer {
    pub count: u64,
    pub event: HostEvent,
}

impl AppState {
    /// Carries out one host command. A command the run cannot take leaves
    /// the run as it was, says why in the page, and answers `error` with
    /// the same words.
    pub(crate) fn host(self: Rc<Self>, command: HostCommand) -> Rc<AppState> {
        if command == HostCommand::Describe {
            let text = self.description();
            return self.answered(HostEvent::Description { text });
        }
        // A refusal is the command's own: an older notice does not count.
        let fresh = Rc::new(AppState {
            notice: None,
            ..AppState::clone(&self)
        });
        let next = match fresh.carry_out(command) {
            Ok(next) => next,
            Err(reason) => return self.refused(reason),
        };
        match &next.notice {
            Some(Notice::Refused(reason)) => {
                let reason = reason.clone();
                self.refused(reason)
            }
            _ => next,
        }
    }

    fn carry_out(self: Rc<Self>, command: HostCommand) -> Result<Rc<AppState>, String> {
        let act = |state: Rc<AppState>, action| Ok(state.reduce(action));
        match command {
            HostCommand::Play => act(self, Action::Start),
            HostCommand::Pause => act(self, Action::Pause),
            HostCommand::Step => act(self, Action::Step),
            HostCommand::Describe => Ok(self),
            HostCommand::Reset => act(self, Action::Reset),
            HostCommand::Unload => {
                if self.story.is_none() {
                    return Err("No story is loaded: the run already goes on by hand.".into());
                }
                act(self, Action::UnloadStory)
            }
            HostCommand::Tour { open } => {
                if self.story.is_none() {
                    return Err("No story is loaded, so there is no tour to show.".into());
                }
                act(self, Action::ShowTour(open))
            }
            HostCommand::Seek(to) => {
                let t = self.seek_target(&to)?;
                Ok(Rc::new(self.played_to(t)))
            }
            HostCommand::Client(c, ClientAction::Command(command)) => {
                act(self, Action::Client(c, command))
            }
            HostCommand::Client(c, ClientAction::GcPause { seconds }) => {
                let seconds = seconds.unwrap_or(self.pause_s[c.index()]);
                let pause_ms = seconds.saturating_mul(1_000);
                act(self, Action::Client(c, Command::GcPause { pause_ms }))
            }
            HostCommand::Set(settings) => self.set(settings),
            HostCommand::Load {
                story,
                system,
                fencing,
                link,
            } => self.load(story.as_deref(), system, fencing, link.as_deref()),
        }
    }

    /// Each setting in turn (system, fencing, TTL, speed), stopping at the
    /// first the page refuses.
    fn set(self: Rc<Self>, settings: Settings) -> Result<Rc<AppState>, String> {
        let mut actions = Vec::new();
        if let Some(backend) = settings.system {
            actions.push(Action::SetBackend(backend));
        }
        if let Some(on) = settings.fencing {
            actions.push(Action::SetFencing(on));
        }
        if let Some(ttl) = settings.ttl_s {
            actions.push(Action::SetTtl(ttl));
        }
        if let Some(speed) = settings.speed {
            actions.push(Action::SetSpeed(speed));
        }
        let mut state = self;
        for action in actions {
            state = state.reduce(action);
            if let Some(Notice::Refused(reason)) = &state.notice {
                return Err(reason.clone());
            }
        }
        Ok(state)
    }

    /// A story on a system with fencing on or off, a run link, or a run
    /// link with its story, as the embed's address would open them.
    fn load(
        self: Rc<Self>,
        story: Option<&str>,
        system: Option<crate::sim::Backend>,
        fencing: Option<bool>,
        link: Option<&str>,
    ) -> Result<Rc<AppState>, String> {
        let preset = match story {
            Some(id) => Some(presets::preset(id).ok_or_else(|| {
                let ids: Vec<&str> = presets::PRESETS.iter().map(|p| p.id).collect();
                format!(
                    "There is no story \"{id}\": this page has {}.",
                    ids.join(", ")
                )
            })?),
            None => None,
        };
        if let Some(fragment) = link {
            let read = crate::wire::link::open_link(fragment).map_err(|e| e.to_string())?;
            let opened = self.open_run(Ok(read)).in_simulator();
            return Ok(Rc::new(match preset {
                Some(preset) => opened.with_story_at_playhead(preset),
                None => opened,
            }));
        }
        let Some(preset) = preset else {
            return Ok(self);
        };
        let config = self.config();
        let backend = system.unwrap_or(if preset.backends.contains(&config.backend) {
            config.backend
        } else {
            preset.backends[0]
        });
        if !preset.backends.contains(&backend) {
            let names: Vec<&str> = preset.backends.iter().map(|b| b.slug()).collect();
            return Err(format!(
                "\"{}\" is a story for {}, not {}.",
                preset.title,
                names.join(", "),
                backend.slug()
            ));
        }
        let fencing = match fencing {
            Some(true) => Fencing::On,
            Some(false) => Fencing::Off,
            None => config.fencing,
        };
        Ok(Rc::new(AppState {
            running: false,
            ..self.load_preset(
                preset,
                Config {
                    backend,
                    fencing,
                    ..config
                },
            )
        }))
    }

    /// The virtual time a `seek` names, or why it names none.
    fn seek_target(&self, to: &SeekTo) -> Result<Millis, String> {
        match to {
            SeekTo::Ms(ms) => {
                let end = self.end().ms();
                if *ms > end.saturating_add(SEEK_AHEAD_MS_MAX) {
                    return Err(format!(
                        "t_ms {ms} is more than {} past the run's end (t={}): seek there in steps.",
                        seconds_1(SEEK_AHEAD_MS_MAX),
                        seconds_1(end)
                    ));
                }
                Ok(Millis((*ms).min(SCRIPT_TIME_MS_MAX)))
            }
            SeekTo::Moment(n) => {
                let Some(story) = &self.story else {
                    return Err(
                        "No story is loaded, so there are no key moments: seek by t_ms instead."
                            .into(),
                    );
                };
                match story.tour.get(n - 1) {
                    Some(moment) => Ok(moment.at),
                    None => Err(format!(
                        "This story's tour has {} key moments: there is no moment {n}.",
                        story.tour.len()
                    )),
                }
            }
        }
    }

    /// The run shown at `t`: an earlier moment by replay, a later one by
    /// playing on to it (a story's script plays as it goes), paused there.
    pub(crate) fn played_to(self: Rc<Self>, t: Millis) -> AppState {
        if t <= self.end() {
            return self.travel_to(t);
        }
        let head = match &self.future {
            Some(whole) => self.at_head(whole),
            None => AppState::clone(&self),
        };
        let speed_quarters = self.speed_quarters;
        let mut state = Rc::new(AppState {
            running: true,
            stop_at: Some(t),
            speed_quarters: SPEED_QUARTERS_MAX,
            ..head
        });
        // Each tick plays a frame's share at top speed; the last one stops
        // exactly at `t`.
        let step_ms = state.frame_ms();
        while state.running && state.sim.borrow().now() < t {
            state = state.tick(step_ms, false);
        }
        AppState {
            running: false,
            stop_at: None,
            speed_quarters,
            ..AppState::clone(&state)
        }
    }

    /// The run as it is, in one paragraph: the story, the system and its
    /// settings, the time, the key moment, the holder and the writes.
    pub fn description(&self) -> String {
        let sim = self.sim.borrow();
        let config = sim.config();
        let what = match &self.story {
            Some(story) => format!("\"{}\" on {}", story.preset.title, config.backend.name()),
            None => format!("A run on {}", config.backend.name()),
        };
        let fencing = if config.fencing.is_on() {
            "fencing on"
        } else {
            "fencing off"
        };
        let clock = if self.running { "playing" } else { "paused" };
        let moment = self
            .story
            .as_ref()
            .map(|story| {
                let reached = story.reached(sim.now());
                match story.current(sim.now()) {
                    Some(m) => format!(
                        " Key moment {reached} of {}: {}",
                        story.tour.len(),
                        m.caption
                    ),
                    None => format!(" Before its first of {} key moments.", story.tour.len()),
                }
            })
            .unwrap_or_default();
        let holder = match sim.holder() {
            Some(h) => match h.token {
                Some(token) => format!("{} holds the lock (token {token}).", h.client),
                None => format!("{} holds the lock.", h.client),
            },
            None => "Nobody holds the lock.".to_string(),
        };
        let oracle = sim.oracle();
        format!(
            "{what}, {fencing}, TTL {} s, at t={} ({clock}).{moment} {holder} The resource rejected {} writes; stale writes accepted: {}, stopped by fencing: {}.",
            super::state::ttl_words(config.ttl_ms),
            seconds_1(sim.now().ms()),
            sim.resource().rejected(),
            oracle.corruptions(),
            oracle.saves()
        )
    }

    /// The same state, with `event` to send the host.
    fn answered(&self, event: HostEvent) -> Rc<AppState> {
        let count = self.answer.as_ref().map_or(0, |a| a.count).wrapping_add(1);
        Rc::new(AppState {
            answer: Some(HostAnswer { count, event }),
            ..AppState::clone(self)
        })
    }

    /// The run as it was, the reason in the page and sent to the host.
    fn refused(&self, reason: String) -> Rc<AppState> {
        let said = self.with_notice(Notice::Refused(reason.clone()));
        said.answered(HostEvent::Error { reason })
    }
}

/// What the host has been told of the run so far, to tell it only what is
/// new after each change.
#[derive(Debug, Default)]
struct Told {
    /// The run whose history is being told (the shared simulation, held
    /// weakly, so its address is not taken by another while held): a new
    /// run, a time travel or a load starts afresh, untold.
    sim: Weak<RefCell<Sim>>,
    /// Records told: the count dropped from the history's front plus its length.
    records: u64,
    /// The key moment last told, and the answer last sent.
    moment: Option<usize>,
    answer: u64,
}

/// While the page is in a frame: listens to its parent's commands, tells
/// it `ready`, and then each event as the run makes it, and each answer.
/// Commands go through the page's `dispatch`, which first brings a running
/// clock to the wall time, as it does for the reader's own actions.
#[hook]
pub fn use_host(
    framed: bool,
    state: &UseReducerHandle<AppState>,
    id: Rc<str>,
    dispatch: Callback<Action>,
) {
    {
        let (id, state) = (id.clone(), state.clone());
        use_effect_with(framed, move |&framed| {
            let heard = id.clone();
            let port = framed
                .then(|| {
                    browser::HostPort::start(move |read| match read {
                        Ok(command) => dispatch.emit(Action::Host(command)),
                        Err(reason) => browser::tell_host(&HostEvent::Error { reason }, &heard),
                    })
                })
                .flatten();
            if port.is_some() {
                browser::tell_host(&ready(&state), &id);
            }
            move || {
                let _closed = port;
            }
        });
    }
    // After each render: what changed, told in the order it happened.
    let told = use_mut_ref(Told::default);
    let state = state.clone();
    use_effect(move || {
        if framed {
            let events = news(&mut told.borrow_mut(), &state);
            for event in &events {
                browser::tell_host(event, &id);
            }
        }
    });
}

/// The `ready` event: what the frame shows.
fn ready(state: &AppState) -> HostEvent {
    let sim = state.sim.borrow();
    HostEvent::Ready {
        story: state.story.as_ref().map(|s| s.preset.id.to_string()),
        system: sim.config().backend,
        fencing: sim.config().fencing.is_on(),
        moments: state.story.as_ref().map_or(0, |s| s.tour.len()),
    }
}

/// What happened since the host was last told: the history's new records
/// (only for the same run; a new one is told from where it stands), a key
/// moment reached or moved to, the tour's end, and the page's answer.
fn news(told: &mut Told, state: &AppState) -> Vec<HostEvent> {
    let mut events = Vec::new();
    let sim = state.sim.borrow();
    let same = told.sim.ptr_eq(&Rc::downgrade(&state.sim));
    let total = recorded(&sim);
    if same && total > told.records {
        let dropped = sim.history_dropped();
        let from = told.records.saturating_sub(dropped) as usize;
        let mut last_expired = None;
        for record in sim.history().iter().skip(from) {
            for event in events_of(record) {
                // Redlock's five servers each expire the key: told once.
                if let HostEvent::Expired { client } = event {
                    if last_expired == Some((record.at, client)) {
                        continue;
                    }
                    last_expired = Some((record.at, client));
                }
                events.push(event);
            }
        }
    }
    told.sim = Rc::downgrade(&state.sim);
    told.records = total;
    let moment = state.story.as_ref().map(|s| (s.reached(sim.now()), s));
    let reached = moment.map(|(n, _)| n).filter(|&n| n > 0);
    if reached != told.moment {
        if let Some((n, story)) = moment.filter(|&(n, _)| n > 0) {
            let caption = story.tour[n - 1].caption.clone();
            let of = story.tour.len();
            events.push(HostEvent::Moment { n, of, caption });
            if n == of && told.moment.is_none_or(|m| m < n) {
                events.push(HostEvent::TourEnd);
            }
        }
        told.moment = reached;
    }
    if let Some(answer) = &state.answer {
        if answer.count != told.answer {
            told.answer = answer.count;
            events.push(answer.event.clone());
        }
    }
    events
}

fn recorded(sim: &Sim) -> u64 {
    sim.history_dropped() + sim.history().len() as u64
}
