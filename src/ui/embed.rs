//! How the page was asked for: embedded in another page or not, a story to
//! open and whether to play it at once, a shared run in the fragment. And,
//! when embedded, the page's height told to the host so it can size the
//! frame.
//!
//! The height message, posted to the parent window whenever the page's
//! height changes: `{ "type": "distlock:height", "height": <CSS pixels> }`.

use super::browser;
use super::state::{AppState, Notice, StartSim, Story};
use super::views::View;
use crate::lesson::narrator::Narration;
use crate::lesson::presets::{self, Preset};
use crate::sim::{Backend, Config, Playback, Refusals};
use crate::tools::explore::form::EXPLORE_LINK_KEY;
use crate::tools::finder::form::FIND_LINK_KEY;
use yew::prelude::*;

/// What a key moment points at in a frame: the compact layout has no
/// lock service or resource lines, and its status strip says what they
/// would (the holder and token, the writes refused, the verdict on a stale
/// write), so a caption about them points at the strip.
pub fn look_in_frame(look: crate::lesson::tour::Look) -> crate::lesson::tour::Look {
    use crate::lesson::tour::Look;
    match look {
        Look::Service | Look::Resource => Look::Status,
        card => card,
    }
}

/// The `type` of the height message posted to a host page.
pub const HEIGHT_MESSAGE: &str = "distlock:height";

/// What the page's address asks for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PageRequest {
    /// The compact layout for an iframe.
    pub embed: bool,
    /// A story to open (`?preset=gc-pause`).
    pub preset: Option<String>,
    /// The system to tell it on (`&system=redis`), as its slug.
    pub system: Option<String>,
    /// With the story's suggested change on (`&try=1`).
    pub tried: bool,
    /// Start the clock at once (`&autoplay=1`).
    pub autoplay: bool,
    /// A shared run: the fragment, without its `#`.
    pub link: Option<String>,
    /// The view to open (`?view=compare`; the explorer's own links,
    /// `?explore&...`, open the explorer, and the finder's, `?find&...`,
    /// the finder).
    pub view: View,
    /// A teacher's `questions=off`: tours play without asking first.
    pub questions_off: bool,
    /// The frame's name in its messages to the host page (`&id=…`).
    pub id: Option<String>,
    /// Fencing on or off (`&fencing=1`, `&fencing=0`); unsaid, the story's
    /// (or the default run's) own.
    pub fencing: Option<bool>,
    /// The story's key moment to open at (`&moment=5`), counted from 1.
    pub moment: Option<String>,
    /// `tour=off`: the story's tour bar starts closed.
    pub tour_off: bool,
    /// How much the narrator says (`narration=off`, `brief`, `full`); an
    /// unknown word keeps the default.
    pub narration: Option<Narration>,
}

impl PageRequest {
    /// Reads the query string (with or without `?`) and fragment (with or
    /// without `#`). Inside a frame the page embeds itself unless the
    /// address says `embed=0`.
    pub fn parse(search: &str, hash: &str, framed: bool) -> PageRequest {
        let mut request = PageRequest {
            embed: framed,
            ..PageRequest::default()
        };
        for pair in search.trim_start_matches('?').split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, "1"));
            match key {
                "embed" => request.embed = is_yes(value),
                "autoplay" => request.autoplay = is_yes(value),
                "preset" if !value.is_empty() => request.preset = Some(value.to_string()),
                "system" if !value.is_empty() => request.system = Some(value.to_string()),
                "try" => request.tried = is_yes(value),
                "view" => request.view = View::from_slug(value).unwrap_or_default(),
                "questions" => request.questions_off = !is_yes(value),
                "id" if !value.is_empty() => request.id = Some(frame_id(value)),
                "fencing" => request.fencing = Some(is_yes(value)),
                "moment" if !value.is_empty() => request.moment = Some(value.to_string()),
                "tour" => request.tour_off = !is_yes(value),
                "narration" => request.narration = Narration::from_slug(value),
                EXPLORE_LINK_KEY => request.view = View::Explore,
                FIND_LINK_KEY => request.view = View::Find,
                _ => {}
            }
        }
        let fragment = hash.trim_start_matches('#');
        if !fragment.is_empty() {
            request.link = Some(fragment.to_string());
        }
        request
    }

    /// The page's own address as the browser shows it (natively: nothing).
    pub fn from_location() -> PageRequest {
        browser::location()
            .map(|(search, hash, framed)| PageRequest::parse(&search, &hash, framed))
            .unwrap_or_default()
    }
}

impl AppState {
    /// The page's first state: a run handed in, or what the address asks
    /// for. A request that cannot be met says why and opens the default page.
    pub fn opened(start: Option<StartSim>, request: &PageRequest) -> AppState {
        let fresh = AppState {
            // A frame shows the simulator alone.
            view: if request.embed {
                View::Simulator
            } else {
                request.view
            },
            questions: !request.questions_off,
            narration: request.narration.unwrap_or_default(),
            ..AppState::new(start)
        };
        let preset = match request.preset.as_deref().map(|id| (id, presets::preset(id))) {
            Some((_, Some(preset))) => Some(preset),
            Some((id, None)) => {
                return fresh.with_notice(Notice::Refused(format!(
                    "This address asks for a story called \"{id}\", which this page does not have: the default page is open instead."
                )))
            }
            None => None,
        };
        if let Some(fragment) = &request.link {
            let opened = fresh.open_run(crate::wire::link::open_link(fragment));
            let refused = matches!(opened.notice, Some(Notice::Refused(_)));
            // A run that came with its story (the embed's "Open the full
            // page") plays the rest of the story's script and keeps its tour.
            let opened = match preset {
                Some(preset) if !refused => opened.with_story_at_playhead(preset),
                _ => opened,
            };
            let running = request.autoplay && !refused;
            return AppState { running, ..opened };
        }
        let Some(preset) = preset else {
            let fresh = match request.fencing {
                Some(on) => {
                    let config = fresh.config();
                    fresh.restart_with(Config {
                        fencing: fencing_of(on),
                        ..config
                    })
                }
                None => fresh,
            };
            return AppState {
                running: request.autoplay,
                ..fresh
            };
        };
        let config = fresh.config();
        let backend = match request.system.as_deref().map(Backend::from_slug) {
            None => config.backend,
            Some(Some(backend)) => backend,
            Some(None) => {
                let known: Vec<&str> = Backend::ALL.iter().map(|b| b.slug()).collect();
                return fresh.with_notice(Notice::Refused(format!(
                    "This address asks for a system called \"{}\"; this page knows {}. The default page is open instead.",
                    request.system.as_deref().unwrap_or_default(),
                    known.join(", ")
                )));
            }
        };
        let fencing = request.fencing.map_or(config.fencing, fencing_of);
        let opened = fresh.load_preset(
            preset,
            Config {
                backend,
                fencing,
                ..config
            },
        );
        let opened = if request.tried && opened.story.is_some() {
            let config = opened.config();
            opened.try_this(true, config)
        } else {
            opened
        };
        let opened = match &request.moment {
            Some(moment) => opened.at_moment(moment),
            None => opened,
        };
        let opened = if request.tour_off {
            opened.show_tour(false)
        } else {
            opened
        };
        let notice = match (&opened.story, request.autoplay) {
            (Some(story), true) if !matches!(opened.notice, Some(Notice::Refused(_))) => {
                Some(Notice::Info(format!(
                "Playing \"{}\" on {}. Pause stops it; Back and Next move between its key moments.",
                story.preset.title,
                opened.config().backend.name()
            )))
            }
            _ => opened.notice.clone(),
        };
        AppState {
            running: request.autoplay,
            notice,
            ..opened
        }
    }

    /// The loaded story played to its key moment `moment` (a number from
    /// 1, as the address gives it), its tour there; or, for a moment the
    /// story does not have, at its start with the reason.
    fn at_moment(self, moment: &str) -> AppState {
        let Some(story) = &self.story else {
            return self;
        };
        let count = story.tour.len();
        let at = moment
            .trim()
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| story.tour.get(i))
            .map(|m| m.at);
        match at {
            // The tour's bar says where the story is.
            Some(at) => std::rc::Rc::new(self).played_to(at),
            None => self.with_notice(Notice::Refused(format!(
                "This address asks for key moment \"{moment}\"; this story has {count} (1 to {count}). It opens at its start."
            ))),
        }
    }

    /// An opened run with `preset`'s story attached where its playhead
    /// stands: the steps up to it already ran; the rest play on.
    pub(crate) fn with_story_at_playhead(&self, preset: &'static Preset) -> AppState {
        let config = self.config();
        let Some(scenario) = preset.scenario(config.backend, config.fencing) else {
            return AppState::clone(self);
        };
        let now = self.sim.borrow().now();
        let story = Story {
            preset,
            tour: Story::tour_for(preset, &scenario.actions, &config),
            script: Playback::new(scenario.actions, Refusals::Skip),
            tour_closed: false,
            quiz: super::quiz::Quiz::default(),
        };
        AppState {
            story: Some(story.at(now)),
            ..AppState::clone(self)
        }
    }
}

/// An address's `id=`, decoded and cut to `FRAME_ID_CHARS_MAX` characters.
fn frame_id(value: &str) -> String {
    let decoded = crate::wire::link::percent_decoded(value);
    decoded.chars().take(FRAME_ID_CHARS_MAX).collect()
}

/// The longest frame id the page keeps from its address.
pub const FRAME_ID_CHARS_MAX: usize = 64;

fn fencing_of(on: bool) -> crate::sim::Fencing {
    if on {
        crate::sim::Fencing::On
    } else {
        crate::sim::Fencing::Off
    }
}

fn is_yes(value: &str) -> bool {
    matches!(value, "1" | "true" | "yes" | "on" | "")
}

/// While embedded and drawn whole, tells the host page the content's
/// height whenever it changes. The observer is dropped with the page.
#[hook]
pub fn use_height_report(embed: bool, id: std::rc::Rc<str>) {
    use_effect_with(embed, move |&embed| {
        let observer = embed.then(|| browser::HeightReport::start(id)).flatten();
        // Dropping the observer on cleanup disconnects it.
        move || {
            let _disconnected = observer;
        }
    });
}

/// The story an address names: its id, the system it is told on, and
/// whether its suggested change is on. Plain data, so a part given it is
/// drawn again only when the story changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoryAddress {
    pub preset: &'static Preset,
    pub system: Backend,
    pub tried: bool,
    /// Whether its tour asks questions (on unless the address said off).
    pub questions: bool,
}

impl StoryAddress {
    /// `preset=…&system=…` (and `&try=1`, `&questions=off`), for a
    /// query string.
    pub fn query(&self) -> String {
        let tried = if self.tried { "&try=1" } else { "" };
        let quiet = if self.questions { "" } else { "&questions=off" };
        format!(
            "preset={}&system={}{tried}{quiet}",
            self.preset.id,
            self.system.slug()
        )
    }
}

impl AppState {
    /// The loaded story as an address names it, if one is loaded.
    pub fn story_address(&self) -> Option<StoryAddress> {
        let story = self.story.as_ref()?;
        let sim = self.sim.borrow();
        Some(StoryAddress {
            preset: story.preset,
            system: sim.config().backend,
            tried: story.preset.try_this.tweak.is_applied(sim.config()),
            questions: self.questions,
        })
    }
}

/// The address of the whole page (not embedded) for the same run, with its
/// story if one is loaded.
pub fn full_page_href(fragment: &str, story: Option<StoryAddress>) -> String {
    let query = story.map(|s| format!("?{}", s.query())).unwrap_or_default();
    if fragment.is_empty() {
        format!("./{query}")
    } else {
        format!("./{query}#{fragment}")
    }
}

/// The full page's link carries the run as it is when clicked.
pub fn open_full_page(
    make_link: Callback<(), String>,
    story: Option<StoryAddress>,
) -> Callback<MouseEvent> {
    Callback::from(move |e: MouseEvent| {
        browser::point_link(&e, &full_page_href(&make_link.emit(()), story))
    })
}

/// Where an embed opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opens {
    /// The story's start, its tour waiting at its first key moment (a run
    /// without a story: where its link's playhead stands).
    Start,
    /// The story's key moment, counted from 1.
    Moment(usize),
    /// The run as it is now, at this moment (its link in the fragment).
    Now,
}

/// How big the frame is: as wide as the host's column with a height, or
/// a fixed size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameSize {
    Responsive { height: u32 },
    Fixed { width: u32, height: u32 },
}

/// The smallest and largest frame the builder offers, in CSS pixels: the
/// page fits any frame from 320 x 400 to 1200 x 900, and a host may make
/// it taller still.
pub const FRAME_WIDTH_MIN: u32 = 320;
pub const FRAME_WIDTH_MAX: u32 = 1200;
pub const FRAME_HEIGHT_MIN: u32 = 400;
pub const FRAME_HEIGHT_MAX: u32 = 2000;

/// Everything an embed's code says: what it shows, where it opens, its
/// tour, and its frame. The Share view's builder edits one; the docs'
/// snippets are one (a test compares them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbedSpec {
    /// A story, or `None` for the run as it is (its link).
    pub story: Option<&'static Preset>,
    pub system: Backend,
    pub fencing: bool,
    /// With the story's suggested change on.
    pub tried: bool,
    pub opens: Opens,
    /// The story's tour bar shown (closed, the story plays on without it).
    pub tour: bool,
    pub questions: bool,
    pub autoplay: bool,
    pub size: FrameSize,
    /// The frame's name in its messages to the host page; empty: made up.
    pub id: String,
}

impl EmbedSpec {
    /// The embed of what the page shows: its story from the start on the
    /// same system and fencing, or else the run at this moment; as wide as
    /// the host's column and 500 px high.
    pub fn of(story: Option<StoryAddress>, system: Backend, fencing: bool) -> EmbedSpec {
        EmbedSpec {
            story: story.map(|s| s.preset),
            system,
            fencing,
            tried: story.is_some_and(|s| s.tried),
            opens: if story.is_some() {
                Opens::Start
            } else {
                Opens::Now
            },
            tour: true,
            questions: story.is_none_or(|s| s.questions),
            autoplay: false,
            size: FrameSize::Responsive { height: 500 },
            id: String::new(),
        }
    }

    /// The address the frame opens: `base` (the page's address without
    /// query or fragment), and the run's link (`fragment`) where the embed
    /// opens at this moment or shows the run itself.
    pub fn src(&self, base: &str, fragment: &str) -> String {
        let mut query = String::from("embed=1");
        if let Some(preset) = self.story {
            query.push_str(&format!(
                "&preset={}&system={}&fencing={}",
                preset.id,
                self.system.slug(),
                u8::from(self.fencing)
            ));
            if self.tried {
                query.push_str("&try=1");
            }
            if let Opens::Moment(n) = self.opens {
                query.push_str(&format!("&moment={n}"));
            }
            if !self.tour {
                query.push_str("&tour=off");
            }
            if !self.questions {
                query.push_str("&questions=off");
            }
        }
        if self.autoplay {
            query.push_str("&autoplay=1");
        }
        if !self.id.is_empty() {
            query.push_str(&format!("&id={}", self.id));
        }
        let with_run = self.story.is_none() || self.opens == Opens::Now;
        if with_run && !fragment.is_empty() {
            format!("{base}?{query}#{fragment}")
        } else {
            format!("{base}?{query}")
        }
    }

    /// The frame's title, which names what it shows: the story (or a
    /// shared run), the system and fencing.
    pub fn title(&self) -> String {
        let fencing = if self.fencing {
            "fencing on"
        } else {
            "fencing off"
        };
        match self.story {
            Some(preset) => format!(
                "Distributed Lock Simulator: {}, on {}, {fencing}",
                preset.title,
                self.system.name()
            ),
            None => format!(
                "Distributed Lock Simulator: a shared run on {}, {fencing}",
                self.system.name()
            ),
        }
    }

    /// The `<iframe>` a course author pastes into a page. No sandbox: the
    /// tour's buttons and Open the full page need forms and popups.
    pub fn code(&self, base: &str, fragment: &str) -> String {
        let size = match self.size {
            FrameSize::Responsive { height } => {
                format!(r#"style="width:100%;height:{height}px;border:0""#)
            }
            FrameSize::Fixed { width, height } => {
                format!(r#"width="{width}" height="{height}" style="border:0""#)
            }
        };
        format!(
            r#"<iframe src="{}" title="{}" {size} loading="lazy"></iframe>"#,
            attribute(&self.src(base, fragment)),
            attribute(&self.title())
        )
    }
}

/// The address of the snippet the README and docs/page.md show: a course
/// page's own host.
pub const DOCS_BASE: &str = "https://YOUR-HOST/distlock/";

/// The embed the README and docs/page.md show, as the builder gives it:
/// the first story on etcd, fencing off, opening at its key moment 5.
pub fn docs_example() -> EmbedSpec {
    EmbedSpec {
        story: presets::preset("gc-pause"),
        system: Backend::Etcd,
        fencing: false,
        tried: false,
        opens: Opens::Moment(5),
        tour: true,
        questions: true,
        autoplay: false,
        size: FrameSize::Responsive { height: 500 },
        id: "lesson-1".into(),
    }
}

/// Text made safe inside a double-quoted HTML attribute.
fn attribute(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
}
