//! One client's card: what it believes, how long it thinks its lease has
//! left against what the service says, and the buttons that drive it.

use super::browser::{checked_of, value_of};
use super::service_panel::words;
use super::state::{Action, PAUSE_CHOICES_S};
use crate::sim::Sim;
use crate::sim::{
    Backend, Belief, ClientId, ClientState, ClientView, Command, LastWrite, Millis, PartitionScope,
    Standing, TokenWords, Validity, WriteJudged,
};
use crate::words::{clock_offset, seconds_1, signed_seconds_1};

use super::{use_glide, Clock, Motion};
use yew::prelude::*;

/// The extra network time of a "Delayed send": longer than a default TTL,
/// so a write sent in time can land after the next holder's.
pub const LATE_WRITE_MS: u64 = 6_000;
/// How slow "Slow clock" makes a client's clock run, in percent.
pub const SLOW_CLOCK_PCT: i32 = -20;
/// How far "Clock +5 s" moves a client's clock.
pub const CLIENT_CLOCK_JUMP_MS: i64 = 5_000;

/// Why each button is disabled, `None` when it is enabled.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CardChecks {
    pub acquire: Option<String>,
    pub write: Option<String>,
    pub release: Option<String>,
    pub gc_pause: Option<String>,
    pub partition: Option<String>,
    pub heal: Option<String>,
    /// Crash: the process exits.
    pub exit: Option<String>,
    /// Power off: the host dies.
    pub power_off: Option<String>,
    pub restart: Option<String>,
    pub renewal: Option<String>,
    pub late_write: Option<String>,
    pub partition_all: Option<String>,
    /// Slow clock, or back to true when it is off.
    pub clock_rate: Option<String>,
    pub clock_jump: Option<String>,
    pub lose: Option<String>,
}

impl CardChecks {
    /// Asks the simulation, without running anything, which commands it would take.
    pub fn from_sim(sim: &Sim, c: ClientId, view: &ClientView, pause_s: u64) -> CardChecks {
        let why = |command| sim.check(c, command).err().map(|e| e.to_string());
        let renewal_on = view.renewal;
        CardChecks {
            acquire: why(Command::Acquire),
            write: why(Command::Write),
            release: why(Command::Release),
            gc_pause: why(Command::GcPause {
                pause_ms: pause_s * 1000,
            }),
            partition: why(Command::Partition {
                scope: PartitionScope::Service,
            }),
            heal: why(Command::Heal),
            exit: why(Command::Exit),
            power_off: why(Command::PowerOff),
            restart: why(Command::Restart),
            renewal: why(Command::Renewal { on: !renewal_on }),
            late_write: why(Command::WriteDelayed {
                extra_ms: LATE_WRITE_MS,
            }),
            partition_all: why(Command::Partition {
                scope: PartitionScope::ServiceAndResource,
            }),
            clock_rate: why(clock_rate_command(view.clock_rate_pct)),
            clock_jump: why(Command::ClockJump {
                jump_ms: CLIENT_CLOCK_JUMP_MS,
            }),
            lose: why(Command::LoseMessages { on: !view.losing }),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ClientCardProps {
    pub view: ClientView,
    /// Where the clock stands; compared by when time's words were drawn.
    pub clock: Clock,
    pub ttl_ms: u64,
    pub backend: Backend,
    /// Redlock's budget (TTL - elapsed - drift) while acquiring or holding.
    pub validity: Option<Validity>,
    /// The service says this client holds the lock.
    #[prop_or_default]
    pub holds_at_service: bool,
    /// The GC pause chosen on this card, in seconds.
    pub pause_s: u64,
    /// Virtual milliseconds a frame while the clock runs, 0 while it
    /// stands: the bars run down between renders at that rate.
    #[prop_or_default]
    pub frame_ms: u64,
    pub checks: CardChecks,
    pub dispatch: Callback<Action>,
    /// The keyboard's shortcuts act on this card.
    #[prop_or_default]
    pub selected: bool,
    /// A story's tour points here.
    #[prop_or_default]
    pub spotlit: bool,
    /// What this lock system says of the client beyond its belief (a
    /// Consul session and its leaderCh).
    #[prop_or_default]
    pub system_note: Option<String>,
    /// What the lock system's own books say of this client's connection
    /// (PostgreSQL's backend session), if anything.
    #[prop_or_default]
    pub service_note: Option<String>,
    /// What the client's library says of itself and its session
    /// (ZooKeeper's client, Chubby's session), if the system has one.
    #[prop_or_default]
    pub library_note: Option<String>,
}

impl ClientCardProps {
    pub fn from_sim(sim: &Sim, c: ClientId, pause_s: u64, dispatch: Callback<Action>) -> Self {
        let view = sim.client_view(c);
        let checks = CardChecks::from_sim(sim, c, &view, pause_s);
        // A crashed client's line is what its service noticed, in the
        // service's words; its Lock() and leaderCh are gone with it.
        let (service_note, system_note) = match view.crashed {
            true => (sim.crash_note(c), None),
            false => super::service_panel::card_notes(sim, c, view.belief.is_holding()),
        };
        let config = sim.config();
        let library_note = words(config.backend)
            .library_note
            .and_then(|note| note(config, &view, sim.now()));
        ClientCardProps {
            view,
            clock: Clock::at(sim.now()),
            ttl_ms: config.ttl_ms,
            backend: config.backend,
            validity: sim.validity(c),
            holds_at_service: sim.holder().is_some_and(|h| h.client == c),
            pause_s,
            frame_ms: 0,
            checks,
            selected: false,
            spotlit: false,
            system_note,
            service_note,
            library_note,
            dispatch,
        }
    }
}

/// The clock switch: make a true clock slow, or a skewed one true again.
fn clock_rate_command(rate_pct: i32) -> Command {
    Command::ClockRate {
        rate_pct: if rate_pct == 0 { SLOW_CLOCK_PCT } else { 0 },
    }
}

/// The state's class suffix and a mark that carries it without colour.
fn state_look(state: ClientState) -> (&'static str, &'static str) {
    match state {
        ClientState::Idle => ("idle", "○"),
        ClientState::Acquiring => ("acquiring", "→"),
        ClientState::Waiting => ("waiting", "⋯"),
        ClientState::Holding => ("holding", "●"),
        ClientState::Paused => ("paused", "‖"),
        ClientState::Partitioned => ("partitioned", "✂"),
        ClientState::Crashed => ("crashed", "✕"),
        ClientState::Suspended => ("suspended", "?"),
        ClientState::Lost => ("lost", "✕"),
        ClientState::Jeopardy => ("jeopardy", "?"),
        ClientState::Expired => ("expired", "✕"),
    }
}

#[component]
pub fn ClientCard(props: &ClientCardProps) -> Html {
    let view = &props.view;
    let letter = view.id.letter();
    let (slug, mark) = state_look(view.state);
    let class = classes!(
        "client-card",
        format!("client-card--{slug}"),
        view.stale.then_some("client-card--stale"),
        props.selected.then_some("client-card--selected"),
        props.spotlit.then_some("is-spotlit")
    );
    let id = view.id;
    // The reader chooses the client the keys act on: a press on its card
    // (a click, or Enter or Space on one of its buttons), never the focus
    // passing through it on the way elsewhere.
    let on_press = props
        .dispatch
        .reform(move |_: MouseEvent| Action::Select(id));
    let home = format!("client-{}", letter.to_ascii_lowercase());
    let leases = leases(props);
    let glides = [use_node_ref(), use_node_ref()];
    let [believed_motion, service_motion] = match &leases {
        Ok(l) => [&l.believed, &l.service].map(|bar| bar.motion(props)),
        Err(_) => [None, None],
    };
    use_glide(&glides[0], believed_motion);
    use_glide(&glides[1], service_motion);
    html! {
        // Where the focus goes when one of its controls goes away.
        <section class={class} aria-label={format!("Client {letter}")} onclick={on_press}
            id={home.clone()} tabindex="-1" data-focus-home={format!("#{home}")}>
            <header class="client-card__head">
                <h3 class="client-card__name">{ format!("Client {letter}") }</h3>
                if props.selected {
                    <span class="client-card__keys" title="The keyboard shortcuts a, w, r, g, p, x and o act on this client">
                        { "keys" }
                    </span>
                }
                <p class={classes!("client-card__state", format!("client-card__state--{slug}"))}>
                    <span class="client-card__mark" aria-hidden="true">{ mark }</span>
                    { view.state.word() }
                </p>
            </header>
            // The token first, under the name: the line a reader needs at a
            // glance stays where it is whatever alarm or note comes below.
            { token_line(props) }
            { stale_alarm(view) }
            { notes_list(props) }
            { lease_bars(props, leases, &glides) }
            { stale_write_alarm(view) }
            <CardControls id={view.id} partitioned={view.partition.is_some()}
                crashed={view.crashed} renewal={view.renewal} backend={props.backend}
                clock_rate_pct={view.clock_rate_pct} losing={view.losing}
                pause_s={props.pause_s} checks={props.checks.clone()}
                write_on_wake={write_on_wake(view)} write_note={write_note(props)}
                dispatch={props.dispatch.clone()} />
        </section>
    }
}

fn stale_alarm(view: &ClientView) -> Html {
    if !view.stale {
        return html! {};
    }
    html! {
        <p class="client-card__alarm" role="status">
            <span aria-hidden="true">{ "⚠ " }</span>
            { format!("{} believes it holds the lock; the service says it does not.", view.id) }
        </p>
    }
}

/// The token line: what the client's grant (or place in the queue) gave it,
/// worded as the status strip, the log and the timeline word it.
fn token_line(props: &ClientCardProps) -> Html {
    let belief = props.view.belief;
    let words = TokenWords::of(props.backend);
    let has_grant = matches!(belief, Belief::Holding { .. } | Belief::Waiting { .. });
    let (label, value) = match (has_grant, words, belief.token()) {
        (true, TokenWords::Granted, Some(t)) => (true, t.to_string()),
        // "no token", as the strip, the log and the timeline say.
        (true, _, token) => (false, words.grant(token)),
        (false, ..) => (true, "—".to_string()),
    };
    // etcd's token is a store revision, which every write bumps: why a
    // token skips numbers, said once, beside the token it explains.
    let revision = has_grant && props.backend == Backend::Etcd && belief.token().is_some();
    // The whole reason on the token's line, where a pointer finds it also
    // in a frame, whose narrow cards show no note beside the token.
    let why = revision.then_some(
        "etcd's token is the lock key's create_revision, and the revision counts every write to etcd (puts and deletes, by any client), so tokens skip numbers: they only grow",
    );
    html! {
        <p class="client-card__token" title={why}>
            if label {
                <span class="client-card__label">{ "token " }</span>
            }
            <strong>{ value }</strong>
            if revision {
                <span class="client-card__label client-card__revision">
                    { " · a revision: every etcd write counts" }
                </span>
            }
        </p>
    }
}

fn notes_list(props: &ClientCardProps) -> Html {
    let notes = notes(props);
    if notes.is_empty() {
        return html! {};
    }
    html! {
        <ul class="client-card__notes">
            { for notes.into_iter().map(|n| html! { <li>{ super::tick(n) }</li> }) }
        </ul>
    }
}

/// The notes under the token, in order: what holds the client back, what
/// its lock service says of it, and the state of its own machine.
fn notes(props: &ClientCardProps) -> Vec<String> {
    let mut notes: Vec<String> = Vec::new();
    // The line about Write says when the pause ends; the pause's own note
    // would say it again, a line lower.
    let view = &props.view;
    let says_pause = write_on_wake(view)
        && props.checks.write.is_none()
        && !view.queued.contains(&Command::Write);
    if !says_pause {
        held_back_notes(&props.view, props.clock.now, &mut notes);
    } else {
        partition_notes(&props.view, &mut notes);
    }
    service_notes(props, &mut notes);
    machine_notes(&props.view, &mut notes);
    notes
}

/// A GC pause or a partition that holds the client back.
fn held_back_notes(view: &ClientView, now: Millis, notes: &mut Vec<String>) {
    if let Some(until) = view.paused_until {
        notes.push(format!(
            "GC pause until t={} ({} left)",
            seconds_1(until.ms()),
            seconds_1(now.until(until))
        ));
    }
    partition_notes(view, notes);
}

/// A partition that cuts the client off.
fn partition_notes(view: &ClientView, notes: &mut Vec<String>) {
    match view.partition {
        Some(PartitionScope::Service) => notes.push("cut off from the lock service".into()),
        Some(PartitionScope::ServiceAndResource) => {
            notes.push("cut off from the lock service and the resource".into())
        }
        None => {}
    }
}

/// What the lock service, its client library and the lease's budget say.
fn service_notes(props: &ClientCardProps, notes: &mut Vec<String>) {
    let view = &props.view;
    if let Some(note) = &props.service_note {
        notes.push(note.clone());
    }
    if let Some(note) = &props.library_note {
        notes.push(note.clone());
    }
    if let (TokenWords::RowVersion, Belief::Holding { token: Some(v), .. }) =
        (TokenWords::of(props.backend), view.belief)
    {
        notes.push(format!(
            "no token from the lock: the resource checks the row's version itself (WHERE version = {})",
            v.0
        ));
    }
    if let (Some(note), true) = (words(props.backend).holding_note, view.belief.is_holding()) {
        notes.push(note.into());
    }
    if let Some(note) = &props.system_note {
        notes.push(note.clone());
    }
    if let Some(v) = props.validity {
        notes.push(format!(
            "validity = TTL {} - elapsed {} - drift {} ms = {}",
            seconds_1(v.ttl_ms),
            seconds_1(v.elapsed_ms),
            v.drift_ms,
            signed_seconds_1(v.left_ms)
        ));
    }
}

/// The client's own clock, network, queue, last write and renewal.
fn machine_notes(view: &ClientView, notes: &mut Vec<String>) {
    if view.clock_offset_ms != 0 || view.clock_rate_pct != 0 {
        notes.push(clock_offset(view.clock_offset_ms, view.clock_rate_pct));
    }
    if view.losing {
        notes.push("losing every message it sends or should receive".into());
    }
    if !view.queued.is_empty() {
        let list: Vec<String> = view.queued.iter().map(|c| c.to_string()).collect();
        notes.push(format!("queued until it wakes: {}", list.join(", ")));
    }
    // A stale write the resource took has a line of its own (`stale_write_alarm`).
    match (view.judged, view.last_write) {
        (Some(judged), _) if judged_alarm(judged) => {}
        (Some(judged), last) => notes.push(judged_words(judged, last)),
        (None, Some(last)) => notes.push(
            match last {
                LastWrite::InFlight => "last write: on its way",
                LastWrite::Accepted => "last write: accepted",
                LastWrite::Rejected => "last write: rejected",
            }
            .into(),
        ),
        (None, None) => {}
    }
    if !view.renewal {
        notes.push("renewal off: the lease will not be extended".into());
    }
}

/// A stale write the resource accepted: the counter is corrupted.
fn judged_alarm(judged: WriteJudged) -> bool {
    judged.accepted && judged.standing == Standing::Stale
}

/// The client's latest write as it landed, in the oracle's judgement: the
/// client's reply says only accepted or rejected, the page knows more.
fn judged_words(judged: WriteJudged, last: Option<LastWrite>) -> String {
    let verdict = match (judged.accepted, judged.standing) {
        (true, Standing::Holder) => "accepted".to_string(),
        (true, Standing::WithoutLease) => {
            "accepted without a lease (nobody else had the lock since: nothing corrupted)".into()
        }
        (true, Standing::Stale) => stale_words(judged.holder),
        (false, Standing::Stale) => "rejected: a stale write, fencing saved the counter".into(),
        (false, _) => "rejected".into(),
    };
    let reply = if last == Some(LastWrite::InFlight) {
        "; the reply is on its way"
    } else {
        ""
    };
    format!("last write: {verdict}{reply}")
}

fn stale_words(holder: Option<ClientId>) -> String {
    match holder {
        Some(h) => format!("accepted although {h} held the lock (stale)"),
        None => "accepted although the lock had gone to another client since (stale)".into(),
    }
}

/// The card's alarm for a stale write its resource took: the counter is
/// corrupted, and this client's write did it.
fn stale_write_alarm(view: &ClientView) -> Html {
    let Some(judged) = view.judged.filter(|&j| judged_alarm(j)) else {
        return html! {};
    };
    html! {
        <p class="client-card__alarm client-card__alarm--write" role="status">
            <span aria-hidden="true">{ "✕ " }</span>
            { format!("last write: {}", stale_words(judged.holder)) }
        </p>
    }
}

/// One bar: how much lease is left, drawn against the TTL.
fn bar(label: &str, lease: Bar, scale_ms: u64, alarm: bool, glide: &NodeRef) -> Html {
    let remaining = lease.left;
    let percent = remaining.map_or(0, |left| {
        let scale = scale_ms.max(left).max(1);
        left.saturating_mul(100) / scale
    });
    let class = classes!(
        "lease-bar",
        alarm.then_some("lease-bar--alarm"),
        (remaining == Some(0)).then_some("lease-bar--empty")
    );
    html! {
        <div class={class}>
            <div class="lease-bar__label">
                <span>{ label }</span>
                <span class="lease-bar__words">{ super::tick(lease.words) }</span>
            </div>
            // SVG geometry, not an inline style: the page's policy forbids
            // those. The fill runs down between renders as the browser
            // shrinks the whole drawing, on a layer of its own (`use_glide`).
            <div class="lease-bar__track" aria-hidden="true">
                <svg class="lease-bar__glide" ref={glide.clone()} viewBox="0 0 100 10"
                    preserveAspectRatio="none" focusable="false">
                    <rect class="lease-bar__fill" x="0" y="0" width={percent.to_string()} height="10" />
                </svg>
            </div>
        </div>
    }
}

/// Why a client with no lease shows no bar: waiting in a queue, asking, or
/// holding nothing. `None` for a client that holds a lease, by its own
/// belief or by the service's books.
fn no_lease_words(props: &ClientCardProps) -> Option<&'static str> {
    let view = &props.view;
    if view.belief.is_holding() || props.holds_at_service {
        return None;
    }
    Some(match view.belief {
        Belief::Waiting { .. } => "no lease yet: waiting in the queue",
        Belief::Acquiring => "no lease yet: asking for the lock",
        _ => "no lock, no lease",
    })
}

/// One lease bar: the virtual milliseconds it shows left (`None`: no bar
/// to run down), its words, and whether it runs down as the clock moves.
#[derive(Debug, Clone)]
struct Bar {
    left: Option<u64>,
    words: String,
    runs_down: bool,
}

impl Bar {
    /// How the browser carries the fill on between renders: shrunk to
    /// nothing over what is left, at the clock's rate, while the clock
    /// runs. A lease longer than the bar's scale fills it whole for a
    /// while, not a straight motion: it waits for the next render.
    fn motion(&self, props: &ClientCardProps) -> Option<Motion> {
        let left = self
            .left
            .filter(|&left| self.runs_down && left <= props.ttl_ms)?;
        Motion::over(
            props.clock.now.ms(),
            props.frame_ms,
            left,
            "scaleX(1)".into(),
            "scaleX(0)".into(),
        )
    }
}

/// A card's two lease bars: what the client believes, and what its lock
/// service says.
#[derive(Debug, Clone)]
struct Leases {
    believed: Bar,
    service: Bar,
}

/// The card's leases, or why it shows none (`no_lease_words`).
fn leases(props: &ClientCardProps) -> Result<Leases, &'static str> {
    let view = &props.view;
    let now = props.clock.now;
    // A bar is drawn for a lease someone holds; a waiter's lease (etcd keeps
    // one for its queued key) is not the lock's.
    if let Some(words) = no_lease_words(props) {
        return Err(words);
    }
    let believed = match view.belief {
        Belief::Holding {
            until: Some(until), ..
        } => {
            let left = now.until(until);
            // Its clock says the lease is over, yet it still believes it
            // holds: it has not looked (frozen, or not yet checked).
            let words = match (left, view.paused_until.is_some()) {
                (0, true) => "over by its clock; frozen".into(),
                (0, false) => "over by its clock; unchecked".into(),
                _ => format!("{} left", seconds_1(left)),
            };
            // A client whose clock runs at another rate counts its lease
            // down at that rate: drawn again at the next render instead.
            let runs_down = view.clock_rate_pct == 0;
            Bar {
                left: Some(left),
                words,
                runs_down,
            }
        }
        Belief::Holding { until: None, .. } => Bar::standing("holds while its session lives"),
        Belief::Waiting { .. } => Bar::standing("waiting in the queue"),
        Belief::Acquiring => Bar::standing("asking"),
        Belief::Idle => Bar::standing("no lock"),
    };
    let service = match view.service_until {
        Some(until) => {
            let left = now.until(until);
            Bar {
                left: Some(left),
                words: format!("{} left", seconds_1(left)),
                runs_down: true,
            }
        }
        // A lock with no lease (PostgreSQL's): full while the service says
        // it is the holder, and it never runs down.
        None if view.belief.is_holding() && !view.stale && !props.backend.leased() => Bar {
            left: Some(props.ttl_ms),
            words: "holds it, no lease to run out".into(),
            runs_down: false,
        },
        None if view.belief.is_holding() => Bar {
            left: Some(0),
            words: "no lease for it".into(),
            runs_down: false,
        },
        None => Bar::standing("no lease"),
    };
    Ok(Leases { believed, service })
}

impl Bar {
    /// No bar, only words.
    fn standing(words: &str) -> Bar {
        Bar {
            left: None,
            words: words.into(),
            runs_down: false,
        }
    }
}

fn lease_bars(
    props: &ClientCardProps,
    leases: Result<Leases, &str>,
    glides: &[NodeRef; 2],
) -> Html {
    let leases = match leases {
        Ok(leases) => leases,
        Err(words) => {
            return html! {
                <div class="client-card__leases">
                    <p class="client-card__no-lease">{ words }</p>
                </div>
            }
        }
    };
    let (ttl, stale) = (props.ttl_ms, props.view.stale);
    let service_word = words(props.backend).service_says;
    html! {
        <div class="client-card__leases">
            { bar("it believes", leases.believed, ttl, stale, &glides[0]) }
            { bar(service_word, leases.service, ttl, stale, &glides[1]) }
        </div>
    }
}

/// A holder frozen by a GC pause: a Write clicked now is queued and leaves
/// the instant it wakes, before any reply that came meanwhile is read.
fn write_on_wake(view: &ClientView) -> bool {
    view.paused_until.is_some() && view.belief.is_holding()
}

/// The line under the buttons that says what Write does now, when that is
/// not the obvious: queued until a pause ends, or refused because the
/// client library knows its lease is gone (the same words as the button's
/// tooltip, which touch screens do not show).
fn write_note(props: &ClientCardProps) -> Option<String> {
    let view = &props.view;
    // Once a write is queued, the card's notes list it ("queued until it
    // wakes: write"), which says the same.
    let queued = view.queued.contains(&Command::Write);
    if let (true, None, false, Some(until)) = (
        write_on_wake(view),
        &props.checks.write,
        queued,
        view.paused_until,
    ) {
        return Some(format!(
            "{} is frozen until t={}: a write clicked now leaves the instant it wakes.",
            view.id,
            seconds_1(until.ms())
        ));
    }
    match (&props.checks.write, view.lost) {
        (Some(why), Some(_)) if !view.crashed => Some(sentence(&without_aside(why))),
        _ => None,
    }
}

/// A refusal without its parenthesis (how the library learned it): the
/// button's tooltip keeps it whole, and on the card it cost a line.
fn without_aside(why: &str) -> String {
    let Some(open) = why.find(" (") else {
        return why.to_string();
    };
    // The parenthesis that closes the first one, past any inside it.
    let mut depth = 0;
    for (at, c) in why[open + 1..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 1 => {
                return format!("{}{}", &why[..open], &why[open + 2 + at..]);
            }
            ')' => depth -= 1,
            _ => {}
        }
    }
    why.to_string()
}

/// A refusal as a sentence of its own: capitalized, with a full stop.
fn sentence(why: &str) -> String {
    let mut chars = why.chars();
    let first = chars.next().map(|c| c.to_uppercase().to_string());
    format!("{}{}.", first.unwrap_or_default(), chars.as_str())
}

/// The card's buttons and switches: a component of their own, so the many
/// frames in which none of them changes skip re-rendering them.
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct CardControlsProps {
    pub id: ClientId,
    /// Write is queued until the client wakes: the button says so.
    #[prop_or_default]
    pub write_on_wake: bool,
    /// What Write does now, shown under the buttons.
    #[prop_or_default]
    pub write_note: Option<String>,
    pub partitioned: bool,
    pub crashed: bool,
    pub renewal: bool,
    pub backend: Backend,
    pub clock_rate_pct: i32,
    pub losing: bool,
    pub pause_s: u64,
    pub checks: CardChecks,
    pub dispatch: Callback<Action>,
}

#[component]
pub fn CardControls(props: &CardControlsProps) -> Html {
    // Whether the rarer faults are shown: this card's own, not the run's.
    let more_open = use_state(|| false);
    buttons(props, &more_open)
}

/// A button that sends one command, disabled with the reason as its tooltip.
fn command_button(
    props: &CardControlsProps,
    name: &str,
    command: Command,
    blocked: &Option<String>,
    hint: String,
) -> Html {
    described_button(props, name, name, command, blocked, hint, None, None)
}

/// A command button, described by a line of the card (`aria-describedby`).
#[allow(clippy::too_many_arguments)]
fn described_button(
    props: &CardControlsProps,
    name: impl Into<Html>,
    spoken: &str,
    command: Command,
    blocked: &Option<String>,
    hint: String,
    described_by: Option<String>,
    modifier: Option<&'static str>,
) -> Html {
    let c = props.id;
    let onclick = props
        .dispatch
        .reform(move |_: MouseEvent| Action::Client(c, command));
    let title = blocked.clone().unwrap_or(hint);
    let class = classes!("button", "client-card__button", modifier);
    html! {
        <button type="button" {class} {onclick} aria-label={spoken_name(spoken, c)}
            disabled={blocked.is_some()} title={title} aria-describedby={described_by}>
            { name.into() }
        </button>
    }
}

/// A card button's accessible name: the word it shows, then its client
/// ("Acquire, client A"), so four buttons named alike are told apart
/// outside their card too.
fn spoken_name(shown: &str, c: ClientId) -> String {
    format!("{shown}, client {c}")
}

/// Write, or "Write on wake" while a paused holder's write would be queued.
fn write_button(props: &CardControlsProps) -> Html {
    let c = props.id;
    let (name, hint) = if props.write_on_wake {
        (
            "Write on wake",
            format!("{c} is frozen: the write is queued and leaves the instant {c} wakes, past its check that it holds the lock"),
        )
    } else {
        (
            "Write",
            format!("{c} writes to the counter with the token it believes it holds"),
        )
    };
    let note = props
        .write_note
        .as_ref()
        .map(|_| format!("write-note-{}", c.letter().to_ascii_lowercase()));
    // A longer name than the grid's cells were sized for: it may wrap.
    let modifier = props.write_on_wake.then_some("client-card__button--long");
    described_button(
        props,
        name,
        name,
        Command::Write,
        &props.checks.write,
        hint,
        note,
        modifier,
    )
}

/// The line that says what Write does now, if it is not the obvious.
fn write_note_line(props: &CardControlsProps) -> Html {
    let Some(note) = &props.write_note else {
        return html! {};
    };
    let id = format!("write-note-{}", props.id.letter().to_ascii_lowercase());
    html! {
        <p class="client-card__write-note" {id}>{ note.clone() }</p>
    }
}

fn buttons(props: &CardControlsProps, more_open: &UseStateHandle<bool>) -> Html {
    let c = props.id;
    let checks = &props.checks;
    let pause_ms = props.pause_s * 1000;
    html! {
        <div class="client-card__controls">
            <div class="client-card__buttons">
                { command_button(props, "Acquire", Command::Acquire, &checks.acquire,
                    format!("{c} asks the lock service for the lock")) }
                { write_button(props) }
                { command_button(props, "Release", Command::Release, &checks.release,
                    format!("{c} gives the lock back")) }
                { command_button(props, "GC pause", Command::GcPause { pause_ms }, &checks.gc_pause,
                    format!("Freeze {c} for {} s, as a stop-the-world collection would", props.pause_s)) }
                { partition_button(props) }
                { more_toggle(props.id, more_open) }
                { crash_buttons(props) }
            </div>
            { more_faults(props, **more_open) }
            { write_note_line(props) }
            { options(props) }
        </div>
    }
}

/// Partition, or Heal while the client is cut off.
fn partition_button(props: &CardControlsProps) -> Html {
    let c = props.id;
    let checks = &props.checks;
    if props.partitioned {
        command_button(
            props,
            "Heal",
            Command::Heal,
            &checks.heal,
            format!("Reconnect {c}"),
        )
    } else {
        command_button(
            props,
            "Partition",
            Command::Partition {
                scope: PartitionScope::Service,
            },
            &checks.partition,
            if props.backend.resource_in_service() {
                format!("Cut {c} off from {}: from the lock and the data at once, which live in one server", props.backend.name())
            } else {
                format!("Cut {c} off from the lock service; it can still reach the resource")
            },
        )
    }
}

/// The two crashes, or Restart once the client has crashed. Each crash's
/// name says which it is, process or host, in words on the button itself.
fn crash_buttons(props: &CardControlsProps) -> Html {
    let c = props.id;
    let checks = &props.checks;
    if props.crashed {
        return described_button(
            props,
            "Restart",
            "Restart",
            Command::Restart,
            &checks.restart,
            format!("{c} comes back with no lock"),
            None,
            Some("client-card__button--restart"),
        );
    }
    let exit_hint = format!(
        "{c}'s process exits (an OOM kill, a panic); its host stays up and closes its connections: {}",
        words(props.backend).exit
    );
    let power_hint = format!(
        "{c}'s host dies or is cut off: no FIN, only silence. {}",
        words(props.backend).power_off
    );
    html! {
        <>
            { crash_button(props, "Crash", "(process exits)", Command::Exit, &checks.exit, exit_hint) }
            { crash_button(props, "Power off", "(host dies)", Command::PowerOff, &checks.power_off, power_hint) }
        </>
    }
}

/// A crash button whose name is two lines where the cards are narrow: the
/// verb, then which crash it is. Its accessible name is both, as shown.
fn crash_button(
    props: &CardControlsProps,
    verb: &'static str,
    kind: &'static str,
    command: Command,
    blocked: &Option<String>,
    hint: String,
) -> Html {
    let name = html! {
        <>
            <span class="client-card__crash-verb">{ verb }</span>
            { " " }
            <span class="client-card__crash-kind">{ kind }</span>
        </>
    };
    let modifier = Some("client-card__button--crash");
    let spoken = format!("{verb} {kind}");
    described_button(props, name, &spoken, command, blocked, hint, None, modifier)
}

/// The pause's length and the renewal switch.
fn options(props: &CardControlsProps) -> Html {
    let c = props.id;
    let checks = &props.checks;
    let pause_id = format!("pause-{}", c.letter().to_ascii_lowercase());
    let renewal_id = format!("renewal-{}", c.letter().to_ascii_lowercase());
    let on_pause = props
        .dispatch
        .reform(move |e: Event| Action::ChoosePause(c, value_of(&e)));
    let on_renewal = props
        .dispatch
        .reform(move |e: Event| Action::Client(c, Command::Renewal { on: checked_of(&e) }));
    html! {
        <div class="client-card__options">
            <label class="field field--inline" for={pause_id.clone()}>
                <span class="field__label">{ "Pause (s)" }</span>
                <select id={pause_id} class="field__select" onchange={on_pause}
                    aria-label={spoken_name("Pause (s)", c)}>
                    { for PAUSE_CHOICES_S.iter().map(|&s| html! {
                        <option value={s.to_string()} selected={s == props.pause_s}>{ s }</option>
                    }) }
                </select>
            </label>
            <label class="toggle" for={renewal_id.clone()}
                title={checks.renewal.clone().unwrap_or_else(|| renewal_hint(props.backend))}>
                <input id={renewal_id} type="checkbox" class="toggle__input" aria-label={spoken_name("Renewal", c)}
                    checked={props.renewal} disabled={checks.renewal.is_some()} onchange={on_renewal} />
                <span class="toggle__text">{ "Renewal" }</span>
            </label>
        </div>
    }
}

fn renewal_hint(backend: Backend) -> String {
    let (what, how_often) = words(backend).renewal;
    format!("While on, the client {what}{how_often}")
}

/// The disclosure button for the rarer faults: a cell of the button grid,
/// so that it takes no line of its own on a narrow card.
fn more_toggle(c: ClientId, more_open: &UseStateHandle<bool>) -> Html {
    let open = more_open.clone();
    let expanded = **more_open;
    let onclick = Callback::from(move |_: MouseEvent| open.set(!*open));
    html! {
        <button type="button" class="button client-card__button client-card__more-toggle"
            aria-expanded={expanded.to_string()} aria-controls={more_id(c)} {onclick}
            aria-label={spoken_name("More faults", c)}>
            { "More faults" }
        </button>
    }
}

fn more_id(c: ClientId) -> String {
    format!("more-faults-{}", c.letter().to_ascii_lowercase())
}

fn more_faults(props: &CardControlsProps, open: bool) -> Html {
    let c = props.id;
    let checks = &props.checks;
    html! {
        <div class="client-card__more" id={more_id(c)} hidden={!open}>
            <div class="client-card__buttons">
                { command_button(props, "Delayed send (+6 s)",
                    Command::WriteDelayed { extra_ms: LATE_WRITE_MS }, &checks.late_write,
                    format!("{c} writes now, but the packet spends 6 s more in the network")) }
                if !props.partitioned {
                    { command_button(props, "Cut off service and resource",
                        Command::Partition { scope: PartitionScope::ServiceAndResource },
                        &checks.partition_all,
                        format!("Cut {c} off from the lock service and from the resource")) }
                }
                if props.clock_rate_pct == 0 {
                    { command_button(props, "Slow clock (-20%)", clock_rate_command(0), &checks.clock_rate,
                        format!("{c}'s clock runs 20% slow from now on: it believes its lease lasts longer than it does")) }
                } else {
                    { command_button(props, "Clock runs true", clock_rate_command(props.clock_rate_pct), &checks.clock_rate,
                        format!("{c}'s clock runs at the true rate again")) }
                }
                { command_button(props, "Clock +5 s", Command::ClockJump { jump_ms: CLIENT_CLOCK_JUMP_MS }, &checks.clock_jump,
                    format!("{c}'s clock jumps 5 s forward, as an NTP step would")) }
                { command_button(props,
                    if props.losing { "Stop losing messages" } else { "Lose messages" },
                    Command::LoseMessages { on: !props.losing }, &checks.lose,
                    if props.losing {
                        format!("{c}'s messages get through again")
                    } else {
                        format!("Every message to or from {c} is lost, not held: unlike a partition, where TCP sends them again")
                    }) }
            </div>
        </div>
    }
}
