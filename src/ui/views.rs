//! The page's views: the simulator, where the lesson plays, and the
//! advanced tools, each a view of its own with its own address
//! (`?view=compare`), so none of them stands between a visitor and the
//! lesson. Each tool opens on the one question it answers.

use super::state::Action;
use yew::prelude::*;

/// One view of the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum View {
    /// The clients, the lock service, the resource and the timeline.
    #[default]
    Simulator,
    /// The comparison: the same stories on all eight systems.
    Compare,
    /// The hazard explorer: how often a lock breaks.
    Explore,
    /// The safety properties and the shortest-failure finder.
    Find,
    /// Spanner's clocks with an error bar.
    Spanner,
    /// Links, run files and embed code.
    Share,
}

impl View {
    pub const ALL: [View; 6] = [
        View::Simulator,
        View::Compare,
        View::Explore,
        View::Find,
        View::Spanner,
        View::Share,
    ];

    /// The view's word in the address (`?view=compare`).
    pub fn slug(self) -> &'static str {
        match self {
            View::Simulator => "simulator",
            View::Compare => "compare",
            View::Explore => "explore",
            View::Find => "find",
            View::Spanner => "spanner",
            View::Share => "share",
        }
    }

    /// The tab's words.
    pub fn name(self) -> &'static str {
        match self {
            View::Simulator => "Simulator",
            View::Compare => "Compare the systems",
            View::Explore => "How likely?",
            View::Find => "Properties and finder",
            View::Spanner => "Spanner",
            View::Share => "Share and embed",
        }
    }

    /// The one question the view answers, the first sentence it shows.
    pub fn question(self) -> &'static str {
        match self {
            View::Simulator => "",
            View::Compare => "Which systems let a late holder corrupt the data, and does fencing save each one? Every cell below is a run of this simulator.",
            View::Explore => "How often does a lock break? With your TTL and your runtime's pauses, thousands of seeded runs estimate the chance per lock hold.",
            View::Find => "Which safety property did this run break, and what is the shortest run that breaks it?",
            View::Spanner => "How does Spanner keep two leaders from overlapping without fencing tokens? With clocks that know their own error.",
            View::Share => "How do I show this exact run to someone else? A link, a file, or the page embedded in your notes.",
        }
    }

    /// The view an address's `view=` value names, if any.
    pub fn from_slug(slug: &str) -> Option<View> {
        View::ALL.into_iter().find(|v| v.slug() == slug)
    }

    /// The query string that opens this view (`""` for the simulator).
    pub fn query(self) -> String {
        match self {
            View::Simulator => String::new(),
            v => format!("?view={}", v.slug()),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ViewTabsProps {
    pub current: View,
    pub dispatch: Callback<Action>,
}

/// The views as links: each has a real address (a new tab or a copied
/// link opens it), and a plain click switches in place.
#[component]
pub fn ViewTabs(props: &ViewTabsProps) -> Html {
    html! {
        <nav class="views" aria-label="Views">
            <ul class="views__list">
                { for View::ALL.into_iter().map(|v| tab(v, props)) }
            </ul>
        </nav>
    }
}

fn tab(view: View, props: &ViewTabsProps) -> Html {
    let current = props.current == view;
    let dispatch = props.dispatch.clone();
    let onclick = Callback::from(move |e: MouseEvent| {
        // A click with a modifier opens the address elsewhere, as links do.
        if !(e.ctrl_key() || e.meta_key() || e.shift_key() || e.button() != 0) {
            e.prevent_default();
            dispatch.emit(Action::ShowView(view));
        }
    });
    let href = match view {
        View::Simulator => "./".to_string(),
        v => v.query(),
    };
    html! {
        <li>
            <a class={classes!("views__tab", current.then_some("views__tab--current"))} {href} {onclick}
                aria-current={current.then_some("page")}>
                { view.name() }
            </a>
        </li>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_view_reads_back_from_its_slug() {
        for v in View::ALL {
            assert_eq!(View::from_slug(v.slug()), Some(v));
        }
        assert_eq!(View::from_slug("nothing"), None);
    }

    #[test]
    fn every_tool_opens_on_a_question() {
        for v in View::ALL.into_iter().skip(1) {
            assert!(v.question().contains('?'), "{v:?}");
        }
    }
}
