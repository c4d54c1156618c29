//! The Share view's embed builder: what the frame shows (a story, or the
//! run as it is), on which system with fencing on or off, where it opens
//! (the start, a key moment, this moment), its tour, questions and
//! autoplay, its size and its name for the host-page API; a live preview
//! of exactly that frame, and its code to copy. A value it cannot take is
//! refused with the reason beside the fields, and nothing changes.

use super::browser;
use super::embed::{
    EmbedSpec, FrameSize, Opens, FRAME_HEIGHT_MAX, FRAME_HEIGHT_MIN, FRAME_WIDTH_MAX,
    FRAME_WIDTH_MIN,
};
use super::share::page_base;
use super::state::Story;
use crate::lesson::presets::{self, PRESETS};
use crate::sim::Backend;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct EmbedBuilderProps {
    /// The embed of what the page shows, where the builder starts.
    pub start: EmbedSpec,
    /// Makes the run's link when asked.
    pub run_link: Callback<(), String>,
}

/// What the last Copy did: the code, and whether the clipboard took it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Copied {
    No,
    Yes(bool),
}

/// How many key moments `spec`'s story has with its system and fencing.
fn moments_of(spec: &EmbedSpec) -> usize {
    let Some(preset) = spec.story else {
        return 0;
    };
    let fencing = if spec.fencing {
        crate::sim::Fencing::On
    } else {
        crate::sim::Fencing::Off
    };
    preset
        .scenario(spec.system, fencing)
        .map_or(0, |s| Story::tour_for(preset, &s.actions, &s.config).len())
}

/// A whole number typed in a field, within `min..=max`, or why not.
fn whole(text: &str, what: &str, min: u32, max: u32) -> Result<u32, String> {
    text.trim()
        .parse::<u32>()
        .ok()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| {
            format!("{what}: type a whole number from {min} to {max}. The embed is unchanged.")
        })
}

/// A frame id as the host-page API names it: letters, digits, - and _.
fn frame_id(text: &str) -> Result<String, String> {
    let id = text.trim();
    let fits = id.len() <= super::embed::FRAME_ID_CHARS_MAX
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if fits {
        Ok(id.to_string())
    } else {
        Err(format!(
            "Frame id: use up to {} letters, digits, - and _. The embed is unchanged.",
            super::embed::FRAME_ID_CHARS_MAX
        ))
    }
}

/// One change to the spec, as a field reads it.
#[derive(Debug, Clone)]
enum Edit {
    Shows(String),
    System(String),
    Fencing(bool),
    Tried(bool),
    OpensAt(String),
    Moment(String),
    Tour(bool),
    Questions(bool),
    Autoplay(bool),
    Size(String),
    Width(String),
    Height(String),
    Id(String),
}

/// `spec` changed by `edit`, or why the edit is refused.
fn edited(spec: &EmbedSpec, edit: Edit) -> Result<EmbedSpec, String> {
    let mut next = spec.clone();
    let (width, height) = match spec.size {
        FrameSize::Responsive { height } => (700, height),
        FrameSize::Fixed { width, height } => (width, height),
    };
    match edit {
        Edit::Shows(id) if id == "run" => {
            next.story = None;
            next.opens = Opens::Now;
        }
        Edit::Shows(id) => {
            let preset = presets::preset(&id).ok_or(format!("There is no story \"{id}\"."))?;
            next.story = Some(preset);
            if !preset.backends.contains(&next.system) {
                next.system = preset.backends[0];
            }
            if next.opens == Opens::Now && spec.story.is_none() {
                next.opens = Opens::Start;
            }
        }
        Edit::System(slug) => {
            next.system =
                Backend::from_slug(&slug).ok_or(format!("There is no system \"{slug}\"."))?;
        }
        Edit::Fencing(on) => next.fencing = on,
        Edit::Tried(on) => next.tried = on,
        Edit::OpensAt(at) => {
            next.opens = match at.as_str() {
                "start" => Opens::Start,
                "now" => Opens::Now,
                _ => Opens::Moment(1),
            }
        }
        Edit::Moment(text) => {
            let count = moments_of(spec).max(1) as u32;
            let n = whole(&text, "Key moment", 1, count)?;
            next.opens = Opens::Moment(n as usize);
        }
        Edit::Tour(on) => next.tour = on,
        Edit::Questions(on) => next.questions = on,
        Edit::Autoplay(on) => next.autoplay = on,
        Edit::Size(kind) => {
            next.size = if kind == "fixed" {
                FrameSize::Fixed { width, height }
            } else {
                FrameSize::Responsive { height }
            }
        }
        Edit::Width(text) => {
            let width = whole(&text, "Width (px)", FRAME_WIDTH_MIN, FRAME_WIDTH_MAX)?;
            next.size = FrameSize::Fixed { width, height };
        }
        Edit::Height(text) => {
            let height = whole(&text, "Height (px)", FRAME_HEIGHT_MIN, FRAME_HEIGHT_MAX)?;
            next.size = match spec.size {
                FrameSize::Responsive { .. } => FrameSize::Responsive { height },
                FrameSize::Fixed { width, .. } => FrameSize::Fixed { width, height },
            };
        }
        Edit::Id(text) => next.id = frame_id(&text)?,
    }
    // A key moment past the story's last (another system tells it in fewer).
    if let Opens::Moment(n) = next.opens {
        let count = moments_of(&next);
        if count == 0 {
            next.opens = Opens::Start;
        } else if n > count {
            next.opens = Opens::Moment(count);
        }
    }
    Ok(next)
}

#[component]
pub fn EmbedBuilder(props: &EmbedBuilderProps) -> Html {
    let spec = use_state(|| props.start.clone());
    let refused = use_state(|| None::<String>);
    let copied = use_state(|| Copied::No);
    let preview = use_state(|| false);
    // A story loaded (or the run changed to another system) starts again.
    {
        let (spec, refused) = (spec.clone(), refused.clone());
        use_effect_with(props.start.clone(), move |start| {
            spec.set(start.clone());
            refused.set(None);
        });
    }
    let edit = |make: fn(String) -> Edit| {
        let (spec, refused, copied) = (spec.clone(), refused.clone(), copied.clone());
        Callback::from(move |e: Event| {
            match edited(&spec, make(browser::value_of(&e))) {
                Ok(next) => {
                    spec.set(next);
                    refused.set(None);
                }
                Err(why) => refused.set(Some(why)),
            }
            copied.set(Copied::No);
        })
    };
    let tick = |make: fn(bool) -> Edit| {
        let (spec, copied) = (spec.clone(), copied.clone());
        Callback::from(move |e: Event| {
            if let Ok(next) = edited(&spec, make(browser::checked_of(&e))) {
                spec.set(next);
            }
            copied.set(Copied::No);
        })
    };
    let base = page_base(&browser::page_url("")).to_string();
    // The run's link, only where the embed shows the run as it is.
    let fragment = if spec.story.is_none() || spec.opens == Opens::Now {
        props.run_link.emit(())
    } else {
        String::new()
    };
    let code = spec.code(&base, &fragment);
    let on_copy = {
        let (copied, code) = (copied.clone(), code.clone());
        Callback::from(move |_: MouseEvent| {
            copied.set(Copied::Yes(false));
            let after = copied.clone();
            browser::copy(&code, move |ok| after.set(Copied::Yes(ok)));
        })
    };
    let on_preview = {
        let preview = preview.clone();
        Callback::from(move |_: MouseEvent| preview.set(!*preview))
    };
    // Found by playing the story: once for each story, system and fencing.
    let moments = *use_memo((spec.story.map(|p| p.id), spec.system, spec.fencing), {
        let spec = (*spec).clone();
        move |_| moments_of(&spec)
    });
    let story = spec.story;
    let opens = match spec.opens {
        Opens::Start => "start",
        Opens::Moment(_) => "moment",
        Opens::Now => "now",
    };
    let moment_value = match spec.opens {
        Opens::Moment(n) => n.to_string(),
        _ => "1".into(),
    };
    let (fixed, width, height) = match spec.size {
        FrameSize::Responsive { height } => (false, 700, height),
        FrameSize::Fixed { width, height } => (true, width, height),
    };
    let systems: Vec<Backend> = match story {
        Some(p) => p.backends.to_vec(),
        None => vec![spec.system],
    };
    let said = match (&*refused, &*copied) {
        (Some(why), _) => {
            html! { <p class="notice notice--refused" role="alert">{ why.clone() }</p> }
        }
        (None, Copied::Yes(true)) => {
            html! { <p class="embed-builder__said" role="status">{ "Embed code copied: paste it into a course page." }</p> }
        }
        (None, Copied::Yes(false)) => {
            html! { <p class="embed-builder__said" role="status">{ "Copy the embed code from the field below." }</p> }
        }
        (None, Copied::No) => html! { <p class="embed-builder__said" role="status"></p> },
    };
    html! {
        <section class="panel embed-builder" aria-labelledby="embed-builder-title">
            <h2 id="embed-builder-title" class="panel__title">{ "Embed in a course page" }</h2>
            <div class="embed-builder__fields">
                <label class="field">
                    <span class="field__label">{ "Shows" }</span>
                    <select class="field__input" onchange={edit(Edit::Shows)}>
                        <option value="run" selected={story.is_none()}>{ "This run as it is" }</option>
                        { for PRESETS.iter().map(|p| html! {
                            <option value={p.id} selected={story.is_some_and(|s| s.id == p.id)}>{ p.title }</option>
                        }) }
                    </select>
                </label>
                <label class="field">
                    <span class="field__label">{ "System" }</span>
                    <select class="field__input" onchange={edit(Edit::System)} disabled={story.is_none()}>
                        { for systems.iter().map(|b| html! {
                            <option value={b.slug()} selected={*b == spec.system}>{ b.name() }</option>
                        }) }
                    </select>
                </label>
                <label class="toggle">
                    <input type="checkbox" checked={spec.fencing} disabled={story.is_none()} onchange={tick(Edit::Fencing)} />
                    <span class="toggle__text">{ "Fencing on" }</span>
                </label>
                <label class="toggle">
                    <input type="checkbox" checked={spec.tried} disabled={story.is_none()} onchange={tick(Edit::Tried)} />
                    <span class="toggle__text">{ "Its suggested change on" }</span>
                </label>
                <label class="field">
                    <span class="field__label">{ "Opens at" }</span>
                    <select class="field__input" onchange={edit(Edit::OpensAt)}>
                        <option value="start" selected={opens == "start"} disabled={story.is_none()}>{ "The start" }</option>
                        <option value="moment" selected={opens == "moment"} disabled={moments == 0}>{ "A key moment" }</option>
                        <option value="now" selected={opens == "now"}>{ "This moment of this run" }</option>
                    </select>
                </label>
                if opens == "moment" {
                    <label class="field">
                        <span class="field__label">{ format!("Key moment (1 to {moments})") }</span>
                        <input class="field__input embed-builder__number" type="number" min="1" max={moments.to_string()}
                            value={moment_value} onchange={edit(Edit::Moment)} />
                    </label>
                }
                <label class="toggle">
                    <input type="checkbox" checked={spec.tour} disabled={story.is_none()} onchange={tick(Edit::Tour)} />
                    <span class="toggle__text">{ "Tour" }</span>
                </label>
                <label class="toggle">
                    <input type="checkbox" checked={spec.questions} disabled={story.is_none()} onchange={tick(Edit::Questions)} />
                    <span class="toggle__text">{ "Questions" }</span>
                </label>
                <label class="toggle">
                    <input type="checkbox" checked={spec.autoplay} onchange={tick(Edit::Autoplay)} />
                    <span class="toggle__text">{ "Autoplay" }</span>
                </label>
                <label class="field">
                    <span class="field__label">{ "Size" }</span>
                    <select class="field__input" onchange={edit(Edit::Size)}>
                        <option value="responsive" selected={!fixed}>{ "The column's width" }</option>
                        <option value="fixed" selected={fixed}>{ "Fixed" }</option>
                    </select>
                </label>
                if fixed {
                    <label class="field">
                        <span class="field__label">{ "Width (px)" }</span>
                        <input class="field__input embed-builder__number" type="number" min={FRAME_WIDTH_MIN.to_string()}
                            max={FRAME_WIDTH_MAX.to_string()} value={width.to_string()} onchange={edit(Edit::Width)} />
                    </label>
                }
                <label class="field">
                    <span class="field__label">{ "Height (px)" }</span>
                    <input class="field__input embed-builder__number" type="number" min={FRAME_HEIGHT_MIN.to_string()}
                        max={FRAME_HEIGHT_MAX.to_string()} value={height.to_string()} onchange={edit(Edit::Height)} />
                </label>
                <label class="field">
                    <span class="field__label">{ "Frame id (host-page API)" }</span>
                    <input class="field__input" type="text" value={spec.id.clone()} placeholder="made up"
                        maxlength="64" spellcheck="false" onchange={edit(Edit::Id)} />
                </label>
            </div>
            { said }
            <div class="share__buttons">
                <button type="button" class="button button--primary" onclick={on_copy}
                    title="The <iframe> below, for a course page">{ "Copy embed code" }</button>
                <button type="button" class="button" onclick={on_preview} aria-expanded={if *preview { "true" } else { "false" }}>
                    { if *preview { "Hide the preview" } else { "Preview" } }
                </button>
            </div>
            <input class="share__url share__url--embed" type="text" readonly=true value={code.clone()}
                aria-label="Embed code" onfocus={Callback::from(browser::select_all)} />
            if *preview {
                <div class={classes!("embed-builder__preview", (!fixed).then_some("embed-builder__preview--responsive"))}>
                    <iframe src={spec.src(&base, &fragment)} title={spec.title()}
                        width={if fixed { width.to_string() } else { "100%".to_string() }} height={height.to_string()}
                        class="embed-builder__frame"></iframe>
                </div>
            }
        </section>
    }
}
