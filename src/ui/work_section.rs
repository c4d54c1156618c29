//! A section whose body the background worker draws (`crate::work`) when
//! a reader asks for it, so the code that runs it and draws it stays out
//! of the page's first load. Three sections are made this way:
//!
//! - "Compare the systems": the articles' comparison table, but every cell
//!   is a run of the core. The eight systems are put through the same
//!   stories with fencing off and on; a click on a cell opens that run
//!   above. About a hundred runs stay off the page's frames.
//! - "Spanner: clocks with an error bar": the articles' contrast, told as
//!   one story with a switch for L1's clock. Not a ninth backend: Spanner's
//!   lock and data are one replicated state, so the lesson here is the
//!   clock.
//! - "How likely is it?", the hazard explorer (`crate::tools::explore`): the
//!   worker draws its form; when Run is pressed it leads the run with a
//!   crew of workers of its own, one per core, and draws the heatmap as
//!   cells arrive, keeping the form's markup as it was, so the visitor's
//!   edits and focus stay. The page reads the form's fields as a query
//!   string, keeps them in its address, and sends them; a link that
//!   carries them runs them as the page opens.
//!
//! One component for all three: a component of its own each would cost
//! the page's first load more.

use super::browser;
use super::state::Action;
use super::worker::{job_body, use_work, Shown};
use crate::sim::Backend;
use crate::tools::compare::address::has_table_settings;
use crate::tools::explore::form::EXPLORE_LINK_KEY;
use crate::work::Job;
use yew::prelude::*;

/// The comparison's button, with its number of runs at the real defaults
/// (the runs the table makes, written into the words when the page is
/// compiled: no comparison code is in the page, and a new system or column
/// counts itself). A system whose options the visitor changed runs without
/// its tuned runs, so the count is "up to"; the progress line under the
/// button counts the runs really made.
const COMPARE_BUTTON: &str = compare_button::WORDS;

mod compare_button {
    use crate::tools::compare::RUNS;

    const HEAD: &[u8] = b"Run the comparison (up to ";
    const TAIL: &[u8] = b" runs)";
    const DIGITS: usize = {
        let (mut n, mut digits) = (RUNS, 1);
        while n >= 10 {
            n /= 10;
            digits += 1;
        }
        digits
    };
    const BYTES: [u8; HEAD.len() + DIGITS + TAIL.len()] = {
        let mut out = [0; HEAD.len() + DIGITS + TAIL.len()];
        let mut i = 0;
        while i < out.len() {
            out[i] = match i {
                i if i < HEAD.len() => HEAD[i],
                i if i < HEAD.len() + DIGITS => {
                    let place = HEAD.len() + DIGITS - 1 - i;
                    let (mut n, mut p) = (RUNS, 0);
                    while p < place {
                        n /= 10;
                        p += 1;
                    }
                    b'0' + (n % 10) as u8
                }
                i => TAIL[i - HEAD.len() - DIGITS],
            };
            i += 1;
        }
        out
    };
    pub(super) const WORDS: &str = match std::str::from_utf8(&BYTES) {
        Ok(words) => words,
        Err(_) => panic!("the button's words are ASCII"),
    };
}

/// Which section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The comparison; the system the page runs now has its row marked.
    Compare(Backend),
    Spanner,
    Explore,
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct WorkSectionProps {
    pub kind: Kind,
    pub dispatch: Callback<Action>,
    /// The page's run link (the comparison runs at its settings); without
    /// it the comparison runs at the defaults.
    #[prop_or_default]
    pub run_link: Option<Callback<(), String>>,
}

/// The section: its lead, a button that asks the worker for its body, and
/// the body as the worker draws it.
#[component]
pub fn WorkSection(props: &WorkSectionProps) -> Html {
    let (current, job, [class, title_id, lead_class, title, name, lead, button]) = match props.kind {
        Kind::Compare(backend) => (Some(backend.slug()), Job::Compare, [
            "panel compare",
            "compare-title",
            "compare__lead",
            "Compare the systems",
            "Compare the systems",
            "The same stories on all eight lock systems, with fencing off and on, each system at its real defaults and, where a common tuned setting changes the verdict, with it too. No cell is typed in: each is a run of this simulator, judged by what the resource accepted. Click a run to open it in the simulator.",
            COMPARE_BUTTON,
        ]),
        Kind::Spanner => (None, Job::Spanner, [
            "panel spanner",
            "spanner-title",
            "spanner__lead",
            "Spanner: clocks with an error bar",
            "Spanner: clocks with an error bar",
            "Spanner's Paxos leaders hold 10 s leases too. Leader L1 freezes for 6 s, past its lease; L2 is elected and commits x=2; L1 wakes with a read waiting. Whether it answers depends only on what its clock can tell it.",
            "Tell the story: TrueTime against a clock that runs slow",
        ]),
        Kind::Explore => (None, Job::ExploreForm { query: String::new() }, [
            "panel explorer",
            "explorer-title",
            "explorer__lead",
            "How likely is it?",
            // The explorer's region is named for what it is, not its question.
            "Hazard explorer",
            "Not whether a lock can break, but how often: pick a system, a TTL and your runtime's pauses, and thousands of seeded 60 s runs per cell estimate the chance of a corrupted write per lock hold.",
            "Open the hazard explorer",
        ]),
    };
    let work = use_work();
    // A link with the explorer's settings (which opens the explorer's
    // view) restores its form and runs it, once, as the section first
    // appears.
    {
        let send = work.send.clone();
        let explore = props.kind == Kind::Explore;
        use_effect_with((), move |()| {
            if let Some(query) = linked_query().filter(|_| explore) {
                send.emit(Job::Explore { query });
            }
        });
    }
    // A link to the comparison with its settings (`?view=compare&ttl=10`)
    // runs it at them, once, as the section first appears.
    {
        let send = work.send.clone();
        let compare = matches!(props.kind, Kind::Compare(_));
        use_effect_with((), move |()| {
            if let Some(query) = table_query_asked().filter(|_| compare) {
                send.emit(Job::CompareTable {
                    query,
                    page: browser::page_url(""),
                });
            }
        });
    }
    // The comparison runs at the page's settings as they are when asked,
    // and puts them in the address, so a link to it runs the same table.
    let at = props
        .run_link
        .clone()
        .filter(|_| matches!(job, Job::Compare));
    let run = work.send.reform(move |_: MouseEvent| match &at {
        Some(link) => {
            let run = link.emit(());
            if let Ok(read) = crate::wire::link::decode(&run) {
                let query = crate::wire::link::table_query(&read.scenario.config);
                browser::keep_in_link("view=compare", &query);
            }
            Job::CompareAt {
                run,
                page: browser::page_url(""),
            }
        }
        None => job.clone(),
    });
    // Once drawn, the comparison can run again at the settings set since.
    let again = matches!(props.kind, Kind::Compare(_))
        && matches!(work.shown, Shown::Done(_) | Shown::Failed(_));
    html! {
        <section {class} data-current={current} aria-label={name}>
            <h2 id={title_id} class="panel__title">{ title }</h2>
            <p class={lead_class}>{ lead }</p>
            if work.shown == Shown::Asked || again {
                <button type="button" class="button button--primary" onclick={run}>
                    { if again { "Run at my settings" } else { button } }
                </button>
            }
            { job_body(&work.shown, &work.send, &props.dispatch) }
        </section>
    }
}

/// The page's address, if it carries the comparison's settings (`ttl=`,
/// `scale=`, ..., a system's options): the worker reads them.
fn table_query_asked() -> Option<String> {
    browser::search().filter(|search| has_table_settings(search))
}

/// The page's address, if it carries the explorer's settings (`?explore&`
/// and the form's fields, or `?explore=` and them encoded, as links made
/// before had it): the worker reads either.
fn linked_query() -> Option<String> {
    browser::search().filter(|search| {
        search
            .trim_start_matches('?')
            .split('&')
            .any(|pair| pair.split('=').next() == Some(EXPLORE_LINK_KEY))
    })
}
