//! How the page was asked for: embedded in another page or not, a story to
//! open and whether to play it at once, a shared run in the fragment. And,
//! when embedded, the page's height told to the host so it can size the
//! frame.
//!
//! The height message, posted to the parent window whenever the page's
//! height changes: `{ "type": "distlock:height", "height": <CSS pixels> }`.

use super::browser;
use super::state::{AppState, Notice, StartSim};
use super::views::View;
use crate::work::EXPLORE_LINK_KEY;
use yew::prelude::*;

/// The `type` of the height message posted to a host page.
pub const HEIGHT_MESSAGE: &str = "distlock:height";

/// What the page's address asks for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PageRequest {
    /// The compact layout for an iframe.
    pub embed: bool,
    /// A story to open (`?preset=gc-pause`).
    pub preset: Option<String>,
    /// Start the clock at once (`&autoplay=1`).
    pub autoplay: bool,
    /// A shared run: the fragment, without its `#`.
    pub link: Option<String>,
    /// The view to open (`?view=compare`; the explorer's own links,
    /// `?explore&...`, open the explorer).
    pub view: View,
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
                "view" => request.view = View::from_slug(value).unwrap_or_default(),
                EXPLORE_LINK_KEY => request.view = View::Explore,
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
            ..AppState::new(start)
        };
        if let Some(fragment) = &request.link {
            let opened = fresh.open_run(crate::wire::link::open_link(fragment));
            let running = request.autoplay && !matches!(opened.notice, Some(Notice::Refused(_)));
            return AppState { running, ..opened };
        }
        let config = fresh.config();
        let opened = match &request.preset {
            Some(id) => match crate::lesson::presets::preset(id) {
                Some(preset) => fresh.load_preset(preset, config),
                None => {
                    return fresh.with_notice(Notice::Refused(format!(
                        "This address asks for a story called \"{id}\", which this page does not have: the default page is open instead."
                    )))
                }
            },
            None => fresh,
        };
        let notice = match (&opened.story, request.autoplay) {
            (Some(story), true) => Some(Notice::Info(format!(
                "Playing \"{}\" on {}. Pause stops it; Back and Next move between its key moments.",
                story.preset.title,
                opened.config().backend.name()
            ))),
            _ => opened.notice.clone(),
        };
        AppState {
            running: request.autoplay,
            notice,
            ..opened
        }
    }
}

fn is_yes(value: &str) -> bool {
    matches!(value, "1" | "true" | "yes" | "on" | "")
}

/// While embedded, tells the host page the content's height whenever it
/// changes. The observer is dropped with the page.
#[hook]
pub fn use_height_report(embed: bool) {
    use_effect_with(embed, move |&embed| {
        let observer = embed.then(browser::HeightReport::start).flatten();
        // Dropping the observer on cleanup disconnects it.
        move || {
            let _disconnected = observer;
        }
    });
}

/// The address of the whole page (not embedded) for the same run.
pub fn full_page_href(fragment: &str) -> String {
    if fragment.is_empty() {
        "./".to_string()
    } else {
        format!("./#{fragment}")
    }
}

/// The full page's link carries the run as it is when clicked.
pub fn open_full_page(make_link: Callback<(), String>) -> Callback<MouseEvent> {
    Callback::from(move |e: MouseEvent| {
        browser::point_link(&e, &full_page_href(&make_link.emit(())))
    })
}
