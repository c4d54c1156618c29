//! What the page's component tests share: the scenario to run first as a
//! visitor clicks it, the stories panel and the whole page rendered as the
//! page draws them; with a client by its letter (`tests/common/`).

pub use crate::shared::client;
use crate::shared::first_scenario;
use distlock::lesson::presets::first_scenario_config;
use distlock::sim::{Action, Backend, Config, Fencing, Millis, Seed, Sim};

/// The scenario to run first on the page's first configuration with
/// `backend` and `fencing`, clicked as a visitor would (each command at its
/// time, the clock run between them) up to `until_ms`. A refused click
/// fails the test.
pub fn first_scenario_clicked(backend: Backend, fencing: Fencing, seed: u64, until_ms: u64) -> Sim {
    let config = Config {
        backend,
        fencing,
        ..first_scenario_config(Seed(seed))
    };
    let script = first_scenario(config.clone());
    let mut sim = Sim::new(config).expect("the first scenario's config is valid");
    for timed in &script.actions {
        sim.run_until(timed.at);
        if let Action::Client { client, command } = timed.action {
            sim.command(client, command)
                .unwrap_or_else(|e| panic!("{client} {command} refused: {e}"));
        }
    }
    sim.run_until(Millis(until_ms));
    sim
}

/// The stories panel (with its tour, when one runs) for `state`, as the
/// page renders it.
pub async fn render_stories(state: &distlock::ui::state::AppState) -> String {
    use distlock::ui::stories::{Stories, StoriesProps};
    let backend = state.config().backend;
    let props = StoriesProps::from_state(state, backend, yew::Callback::noop());
    yew::LocalServerRenderer::<Stories>::with_props(props)
        .hydratable(false)
        .render()
        .await
}

/// The whole page rendered natively, as it first draws, started on `start`
/// (the default page when `None`).
pub async fn render_app(start: Option<Sim>) -> String {
    use distlock::ui::state::StartSim;
    use distlock::ui::{App, AppProps};
    let props = AppProps {
        start: start.map(|sim| StartSim(std::rc::Rc::new(sim))),
        request: None,
        on_drawn: None,
    };
    yew::LocalServerRenderer::<App>::with_props(props)
        .hydratable(false)
        .render()
        .await
}

/// The timeline as the page draws it from `sim` at `now_ms`, time's words
/// last drawn at `words_ms`, the clock running at 8x or stopped.
pub async fn timeline_at(sim: &Sim, now_ms: u64, words_ms: u64, running: bool) -> String {
    timeline_until(sim, (now_ms, words_ms, now_ms), running).await
}

/// The timeline as `timeline_at` draws it, of a recorded run that goes on
/// to `end_ms` (the playhead moved back to `now_ms`).
pub async fn timeline_until(
    sim: &Sim,
    (now_ms, words_ms, end_ms): (u64, u64, u64),
    running: bool,
) -> String {
    use distlock::sim::TokenWords;
    use distlock::ui::timeline::{PictureCache, Timeline, TimelineProps};
    use yew::{Callback, LocalServerRenderer};
    let backend = sim.config().backend;
    let picture = PictureCache::default().get(sim.history(), 1, TokenWords::of(backend));
    let props = TimelineProps {
        picture,
        now_ms,
        words_ms,
        end_ms,
        running,
        frame_ms: if running { 128 } else { 0 },
        backend,
        dispatch: Callback::noop(),
        run_file: Callback::from(|()| String::new()),
        key_moment: None,
        run: 1,
        run_link: Callback::from(|()| String::new()),
    };
    LocalServerRenderer::<Timeline>::with_props(props)
        .hydratable(false)
        .render()
        .await
}
