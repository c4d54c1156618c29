//! What the page's background worker does: long jobs that would hold up
//! the page's frames, run off its main thread in a second WebAssembly
//! build that is fetched only when a visitor first asks for one.
//!
//! A job's answer is markup, drawn here: the code that runs a job and the
//! code that draws its result both stay out of the page's first load, and
//! the page only places the markup and hands clicks on it back (a click on
//! an element with `data-open` opens that run in the main view).
//!
//! A drawing may come in parts split by `PART_BREAK`: the page places each
//! part as markup of its own, so a part that did not change keeps its
//! elements, and a visitor's edits and focus in them (the explorer's form
//! while its heatmap fills).
//!
//! Pure like the core: `serve` takes a request as JSON text and posts its
//! replies as JSON text, so it runs the same natively (tests) and in the
//! worker (`src/bin/worker.rs` is the browser glue).

mod explore;

use crate::markup::export_html;
use crate::tools::explore::form as explore_form;
use crate::tools::{code, compare, finder, spanner};
use crate::wire::export::{self, Format};
use crate::wire::json::Json;
use serde::{Deserialize, Serialize};

/// The version of the messages between page and worker. A page and a
/// worker from different builds refuse each other's messages rather than
/// misread them.
pub const PROTOCOL_VERSION: u32 = 1;

/// The longest request the worker reads: a job is a few settings, a plan,
/// or a run as its link carries it (a long run's script can be large).
pub const REQUEST_LEN_MAX: usize = 16 * 1024 * 1024;

/// What the page asks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    pub v: u32,
    /// Echoed in every reply, so the page can drop replies to a job it
    /// has since replaced.
    pub id: u32,
    pub job: Job,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Job {
    /// Every lock system through the comparison's stories.
    Compare,
    /// The Spanner story, told with both of L1's clocks.
    Spanner,
    /// The hazard explorer's settings form, filled from a query string.
    ExploreForm { query: String },
    /// The explorer's run of the form's fields (a query string): the
    /// worker that gets it leads a crew of workers, one per core, deals
    /// them the cells and replies with the heatmap as cells arrive.
    Explore { query: String },
    /// Stops the explorer's run at once, keeping the cells that arrived.
    ExploreStop,
    /// A part of one cell of a plan (the lead's request to a crew
    /// member): `part` is its JSON as the lead writes it (the threshold,
    /// plain trials, or a batch of weighted ones), and the reply's `data`
    /// holds what it found.
    ExplorePart {
        plan: String,
        cell: u32,
        part: String,
    },
    /// The shortest run that breaks a property, searched from the page's
    /// run (its link's fragment) where the playhead stands: the question
    /// is the finder's form's fields as a query string (the property, the
    /// longest pause, the faults allowed, the bounds).
    Find { run: String, query: String },
    /// The page's run (its link's fragment), replayed to its end and
    /// written as a history another tool reads: the text comes back in
    /// the reply's `data`.
    Export { run: String, format: Format },
    /// The Code view's listings for a system: its client's code (kazoo's
    /// for ZooKeeper's native client, else Curator's), the resource's
    /// check for `fence` (`None`: fencing off), with the run's TTL.
    Code {
        system: crate::sim::Backend,
        kazoo: bool,
        fence: Option<crate::sim::FenceRule>,
        ttl_ms: u64,
    },
    /// The real request or reply of one message of the page's run (its
    /// link's fragment), as the real client sends it: for the event log.
    Wire { run: String, message: u64 },
    /// The comparison at the settings of the page's run (its link's
    /// fragment: its TTL, latency, seed and systems' options), with
    /// exports whose links start with `page`, the page's address.
    CompareAt { run: String, page: String },
    /// The finder's form, filled from a query string (the page's address).
    FindForm { query: String },
    /// The comparison at the settings a query string names (an address's
    /// `ttl=10&scale=1&rtt=2`, `tools::compare::address`).
    CompareTable { query: String, page: String },
    /// One cell's run, named by its address (`cell=gc-pause&system=redis&
    /// fencing=on&ttl=5`), run again: the reply's `html` is the run's link
    /// (its fragment) and its `progress` what the page says on opening it.
    CompareRun { query: String },
}

impl Request {
    /// The request as JSON, written by hand: the same bytes serde_json
    /// writes (tests check every job), without its serializer, whose
    /// derived code for every job would be the page's to carry. The page
    /// only writes requests; the worker reads them with serde.
    pub fn to_json(&self) -> String {
        let (v, id) = (self.v, self.id);
        format!(r#"{{"v":{v},"id":{id},"job":{}}}"#, self.job.to_json())
    }
}

impl Job {
    /// A job as serde writes it: a unit job as its name in a string, one
    /// with fields as an object of its name holding them.
    fn to_json(&self) -> String {
        use crate::wire::run_json::string;
        let fields = match self {
            Job::Compare => return r#""compare""#.into(),
            Job::Spanner => return r#""spanner""#.into(),
            Job::ExploreStop => return r#""explore-stop""#.into(),
            Job::ExploreForm { query } => ("explore-form", format!(r#""query":{}"#, string(query))),
            Job::Explore { query } => ("explore", format!(r#""query":{}"#, string(query))),
            Job::ExplorePart { plan, cell, part } => (
                "explore-part",
                format!(
                    r#""plan":{},"cell":{cell},"part":{}"#,
                    string(plan),
                    string(part)
                ),
            ),
            Job::Find { run, query } => (
                "find",
                format!(r#""run":{},"query":{}"#, string(run), string(query)),
            ),
            Job::Export { run, format } => (
                "export",
                format!(r#""run":{},"format":"{}""#, string(run), format.slug()),
            ),
            Job::Code {
                system,
                kazoo,
                fence,
                ttl_ms,
            } => {
                let fence = match fence {
                    None => "null",
                    Some(crate::sim::FenceRule::Highest) => r#""highest""#,
                    Some(crate::sim::FenceRule::LockOwner) => r#""lock-owner""#,
                    Some(crate::sim::FenceRule::Version) => r#""version""#,
                    Some(crate::sim::FenceRule::Sequencer) => r#""sequencer""#,
                    Some(crate::sim::FenceRule::LockHeld) => r#""lock-held""#,
                };
                let system = system.slug();
                (
                    "code",
                    format!(
                        r#""system":"{system}","kazoo":{kazoo},"fence":{fence},"ttl_ms":{ttl_ms}"#
                    ),
                )
            }
            Job::Wire { run, message } => (
                "wire",
                format!(r#""run":{},"message":{message}"#, string(run)),
            ),
            Job::CompareAt { run, page } => (
                "compare-at",
                format!(r#""run":{},"page":{}"#, string(run), string(page)),
            ),
            Job::FindForm { query } => ("find-form", format!(r#""query":{}"#, string(query))),
            Job::CompareTable { query, page } => (
                "compare-table",
                format!(r#""query":{},"page":{}"#, string(query), string(page)),
            ),
            Job::CompareRun { query } => ("compare-run", format!(r#""query":{}"#, string(query))),
        };
        format!(r#"{{"{}":{{{}}}}}"#, fields.0, fields.1)
    }
}

/// One answer: the job's markup so far, and whether it is finished.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reply {
    pub v: u32,
    pub id: u32,
    /// The section's markup, whole each time (it replaces the last).
    pub html: String,
    /// How far the job has come, in words, while it runs.
    #[serde(default)]
    pub progress: String,
    pub done: bool,
    /// Why the job could not run; `html` is empty then.
    #[serde(default)]
    pub error: Option<String>,
    /// A result for the worker that asked (a crew member's cell).
    #[serde(default)]
    pub data: String,
}

impl Reply {
    /// Reads a reply as the page does: with the page's own small JSON
    /// reader, not serde's, whose code would be the page's to carry.
    pub fn read(text: &str) -> Result<Reply, String> {
        let json = crate::wire::json::parse(text)
            .map_err(|e| format!("The worker's reply could not be read: {e}."))?;
        let text_of = |key: &str| json.get(key).and_then(Json::as_str).map(str::to_string);
        let number = |key: &str| json.get(key).and_then(Json::as_u64);
        let (Some(v), Some(id), Some(done)) = (
            number("v"),
            number("id"),
            json.get("done").and_then(Json::as_bool),
        ) else {
            return Err("The worker's reply lacks its version, id or state.".into());
        };
        if v != u64::from(PROTOCOL_VERSION) {
            return Err(format!(
                "The worker speaks version {v}, the page {PROTOCOL_VERSION}: reload the page."
            ));
        }
        Ok(Reply {
            v: PROTOCOL_VERSION,
            id: u32::try_from(id).unwrap_or(u32::MAX),
            html: text_of("html").unwrap_or_default(),
            progress: text_of("progress").unwrap_or_default(),
            done,
            error: text_of("error"),
            data: text_of("data").unwrap_or_default(),
        })
    }

    /// A finished drawing.
    fn drawn(id: u32, html: String) -> Reply {
        Reply {
            v: PROTOCOL_VERSION,
            id,
            html,
            progress: String::new(),
            done: true,
            error: None,
            data: String::new(),
        }
    }

    fn failed(id: u32, why: String) -> Reply {
        Reply {
            v: PROTOCOL_VERSION,
            id,
            html: String::new(),
            progress: String::new(),
            done: true,
            error: Some(why),
            data: String::new(),
        }
    }
}

/// What a worker asks its browser glue to do with a crew of workers of
/// its own: the explorer's lead hires one per core, hands each a job, and
/// dismisses them all when its run ends or is stopped, which terminates
/// them at once. The glue talks to a member as the page talks to its
/// worker (`ui::worker::Work`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Crew {
    Hire(u32),
    Send(u32, Job),
    Dismiss,
}

/// One worker and what it keeps between messages: the explorer's form as
/// first drawn, and its run, while it leads one. `clock_ms` reads the wall clock, only to report how
/// fast a job goes (never to decide what it computes, which depends on the
/// requests alone); `post` sends a reply (JSON text) to the page; `crew`
/// carries out the lead's orders.
pub struct Station {
    cores: u32,
    /// The explorer's form as first drawn: every later drawing carries
    /// the same markup, so the page keeps the visitor's edits in it.
    form: String,
    lead: Option<explore::Lead>,
}

impl Station {
    /// A worker on a machine with `cores` cores (the crew's size at most).
    pub fn new(cores: u32) -> Station {
        Station {
            cores,
            form: String::new(),
            lead: None,
        }
    }

    /// A request from the page, posting each reply as it is ready.
    pub fn from_page(
        &mut self,
        request: &str,
        clock_ms: &dyn Fn() -> f64,
        post: &mut dyn FnMut(String),
        crew: &mut dyn FnMut(Crew),
    ) {
        let mut send = |reply: Reply| post(serde_json::to_string(&reply).unwrap_or_default());
        let request = match read_request(request) {
            Ok(r) => r,
            Err(failed) => return send(failed),
        };
        let id = request.id;
        match request.job {
            Job::Compare => compare::draw::run_all(
                &crate::sim::Config::default(),
                "",
                &mut answer(id, &mut send),
            ),
            Job::CompareAt { run, page } => match crate::wire::link::decode(&run) {
                Ok(link) => {
                    let base = link.scenario.config;
                    compare::draw::run_all(&base, &page, &mut answer(id, &mut send))
                }
                Err(why) => send(Reply::failed(
                    id,
                    format!("The comparison could not read the page's settings. {why}"),
                )),
            },
            Job::CompareTable { query, page } => match compare::address::read_table(&query) {
                Ok(base) => compare::draw::run_all(&base, &page, &mut answer(id, &mut send)),
                Err(why) => send(Reply::failed(
                    id,
                    format!("The comparison could not read this address's settings. {why}"),
                )),
            },
            Job::CompareRun { query } => match compare::address::open_cell(&query) {
                Ok((fragment, say)) => answer(id, &mut send)(fragment, say, true),
                Err(why) => send(Reply::failed(
                    id,
                    format!("This address names a comparison run that cannot be opened. {why}"),
                )),
            },
            Job::Spanner => answer(id, &mut send)(spanner::draw::body(), String::new(), true),
            Job::Code {
                system,
                kazoo,
                fence,
                ttl_ms,
            } => send(Reply::drawn(
                id,
                code::draw::body(system, kazoo, fence, ttl_ms),
            )),
            Job::Find { run, query } => {
                let searched = finder::form::request(&run, &query).and_then(|request| {
                    finder::draw::run(&request, &query, clock_ms, &mut answer(id, &mut send))
                });
                // A question that cannot be asked keeps its form, with
                // each field it cannot read named beside it.
                if let Err(why) = searched {
                    let html = match finder::form::question(&query) {
                        Err(_) => finder::form::form_body(&query),
                        Ok(_) => finder::form::framed(
                            &finder::form::form(&query),
                            &finder::form::failed_html(&why),
                        ),
                    };
                    send(Reply::drawn(id, html));
                }
            }
            Job::FindForm { query } => send(Reply::drawn(id, finder::form::form_body(&query))),
            Job::Export { run, format } => send(match export::read(&run) {
                Ok(sim) => match export::of_run(&sim, format) {
                    Ok(text) => Reply {
                        html: exported_html(format, &export::file_name(&sim, format), &text),
                        data: text,
                        ..Reply::drawn(id, String::new())
                    },
                    Err(why) => Reply::failed(id, why),
                },
                Err(why) => Reply::failed(id, format!("The run could not be exported. {why}")),
            }),
            Job::Wire { run, message } => send(match code::message::drawn(&run, message) {
                Ok(html) => Reply::drawn(id, html),
                Err(why) => Reply::failed(id, why),
            }),
            Job::ExploreForm { query } => {
                self.form = explore_form::form(&query);
                send(explore::form_reply(&self.form, id, &query));
            }
            Job::Explore { query } => {
                if self.form.is_empty() {
                    self.form = explore_form::form(&query);
                }
                if self.lead.take().is_some() {
                    crew(Crew::Dismiss);
                }
                let form = &self.form;
                let mut send = |reply| send(explore::framed(form, reply));
                self.lead = explore::Lead::start(id, query, self.cores, clock_ms, &mut send, crew);
            }
            Job::ExploreStop => {
                let form = &self.form;
                let mut send = |reply| send(explore::framed(form, reply));
                match self.lead.as_mut() {
                    Some(lead) => lead.stop(id, clock_ms, &mut send, crew),
                    None => send(Reply::failed(
                        id,
                        "No run of the explorer is going on.".into(),
                    )),
                }
            }
            job => explore::serve(job, id, &mut send),
        }
    }

    /// A reply from crew member `member` (read as the page reads its
    /// worker's), or why the member could not start or run.
    pub fn from_crew(
        &mut self,
        member: u32,
        reply: Result<Reply, String>,
        clock_ms: &dyn Fn() -> f64,
        post: &mut dyn FnMut(String),
        crew: &mut dyn FnMut(Crew),
    ) {
        let form = &self.form;
        let mut send =
            |reply| post(serde_json::to_string(&explore::framed(form, reply)).unwrap_or_default());
        if let Some(lead) = self.lead.as_mut() {
            lead.heard(member, reply, clock_ms, &mut send, crew);
        }
    }
}

/// A request read and checked, or the reply that says why it cannot run.
fn read_request(request: &str) -> Result<Request, Reply> {
    if request.len() > REQUEST_LEN_MAX {
        return Err(Reply::failed(
            0,
            format!(
                "The request is {} bytes, over the worker's limit of {REQUEST_LEN_MAX}.",
                request.len()
            ),
        ));
    }
    let request: Request = serde_json::from_str(request)
        .map_err(|e| Reply::failed(0, format!("The worker could not read the request: {e}.")))?;
    if request.v != PROTOCOL_VERSION {
        return Err(Reply::failed(
            request.id,
            format!(
                "The page speaks version {} to its worker, which speaks {PROTOCOL_VERSION}: reload the page.",
                request.v
            ),
        ));
    }
    Ok(request)
}

/// The explorer's query reader under the fuzzer (`crate::fuzzing`): any
/// query reads into a plan that survives the page's round trip, or into
/// refusals, one non-empty line each; its form is drawn either way.
#[cfg(not(target_arch = "wasm32"))]
pub fn fuzz_explore_query(query: &str) {
    match explore_form::plan_of(query) {
        Ok(plan) => assert_eq!(
            explore_form::read_plan(&explore_form::plan_json(&plan)),
            Ok(plan)
        ),
        Err(why) => assert!(why.lines().all(|l| !l.trim().is_empty()), "{why:?}"),
    }
    let form = explore_form::form(query);
    let reply = explore::form_reply(&form, 0, query);
    assert!(reply.html.starts_with(&form));
}

/// The messages between page and worker under the fuzzer: any request is
/// read, or refused with a reply the page reads; a request that reads
/// writes back the same; a job that answers at once (not a long one: a
/// comparison, a search, a cell of trials) answers only with replies the
/// page reads. Any text the page hears is read or refused, never a panic.
#[cfg(not(target_arch = "wasm32"))]
pub fn fuzz_message(text: &str) {
    match read_request(text) {
        Ok(request) => {
            let again = serde_json::to_string(&request).expect("a request writes");
            assert_eq!(read_request(&again).ok().as_ref(), Some(&request));
            // The page's own writer writes what serde writes.
            assert_eq!(request.to_json(), again);
            let quick = matches!(
                request.job,
                Job::Spanner
                    | Job::ExploreForm { .. }
                    | Job::Explore { .. }
                    | Job::ExploreStop
                    | Job::Code { .. }
                    | Job::FindForm { .. }
            );
            if quick {
                let mut station = Station::new(2);
                let mut post = |reply: String| {
                    Reply::read(&reply).expect("the page reads every reply");
                };
                station.from_page(text, &|| 0.0, &mut post, &mut |_| {});
                // The crew's replies are read by the lead as the page reads.
                let heard = Reply::read(text);
                station.from_crew(0, heard, &|| 0.0, &mut post, &mut |_| {});
            }
        }
        Err(reply) => assert!(reply.error.is_some_and(|e| !e.is_empty())),
    }
    let _ = Reply::read(text);
}

/// Runs one request on a worker that leads no crew: the tests' way in.
#[cfg(test)]
pub(crate) fn serve(request: &str, clock_ms: &dyn Fn() -> f64, post: &mut dyn FnMut(String)) {
    Station::new(1).from_page(request, clock_ms, post, &mut |_| {});
}

/// A job's replies, from its markup so far, its progress and whether it
/// is done.
fn answer<'a>(id: u32, send: &'a mut dyn FnMut(Reply)) -> impl FnMut(String, String, bool) + 'a {
    move |html, progress, done| {
        send(Reply {
            v: PROTOCOL_VERSION,
            id,
            html,
            progress,
            done,
            error: None,
            data: String::new(),
        })
    }
}

/// An export drawn for the page: what it is, a link that saves it as a
/// file (a `data:` address, as the explorer's CSV), a Copy button the page
/// answers (`data-copy`, with its outcome said in the status beside it),
/// and the text itself, read-only, to read or copy by hand.
fn exported_html(format: Format, name: &str, text: &str) -> String {
    let title = format.title();
    export_html(
        title,
        name,
        format.mime(),
        text,
        &format!("{title} of this run"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markup::{escape, PART_BREAK};

    /// The page's hand-written requests are serde_json's bytes for every
    /// job and every setting a job carries, escapes included.
    #[test]
    fn requests_are_written_as_serde_json_writes_them() {
        use crate::sim::{Backend, FenceRule};
        let odd = "a\"b\\c\n\t\u{1}\u{7f}é\u{2028}?x=1&y";
        let mut jobs = vec![
            Job::Compare,
            Job::Spanner,
            Job::ExploreStop,
            Job::ExploreForm { query: odd.into() },
            Job::Explore {
                query: String::new(),
            },
            Job::ExplorePart {
                plan: odd.into(),
                cell: u32::MAX,
                part: odd.into(),
            },
        ];
        jobs.push(Job::Find {
            run: odd.into(),
            query: odd.into(),
        });
        jobs.push(Job::FindForm { query: odd.into() });
        jobs.extend(Format::ALL.map(|format| Job::Export {
            run: odd.into(),
            format,
        }));
        let fences = std::iter::once(None).chain(FenceRule::ALL.map(Some));
        for system in Backend::ALL {
            for fence in fences.clone() {
                for kazoo in [false, true] {
                    jobs.push(Job::Code {
                        system,
                        kazoo,
                        fence,
                        ttl_ms: u64::MAX,
                    });
                }
            }
        }
        for message in [0, 7, u64::MAX] {
            jobs.push(Job::Wire {
                run: odd.into(),
                message,
            });
        }
        jobs.push(Job::CompareAt {
            run: odd.into(),
            page: odd.into(),
        });
        jobs.push(Job::CompareTable {
            query: odd.into(),
            page: odd.into(),
        });
        jobs.push(Job::CompareRun { query: odd.into() });
        for (id, job) in jobs.into_iter().enumerate() {
            let request = Request {
                v: PROTOCOL_VERSION,
                id: u32::try_from(id).unwrap(),
                job,
            };
            let text = request.to_json();
            assert_eq!(text, serde_json::to_string(&request).unwrap());
            assert_eq!(serde_json::from_str::<Request>(&text).unwrap(), request);
        }
    }

    fn replies(request: &str) -> Vec<Reply> {
        let mut out = Vec::new();
        serve(request, &|| 0.0, &mut |text| {
            let read = Reply::read(&text).expect("the page reads every reply");
            assert_eq!(
                Ok(&read),
                serde_json::from_str::<Reply>(&text)
                    .as_ref()
                    .map_err(|_| ())
            );
            out.push(read)
        });
        out
    }

    /// A request as the page or the lead sends it.
    fn request_text(id: u32, job: Job) -> String {
        serde_json::to_string(&Request {
            v: PROTOCOL_VERSION,
            id,
            job,
        })
        .unwrap()
    }

    /// The crew as the lead's orders leave it: its stations, the requests
    /// waiting for them, and every order given so far.
    #[derive(Default)]
    struct Crewing {
        crew: Vec<Station>,
        queue: std::collections::VecDeque<(u32, String)>,
        orders: Vec<Crew>,
    }

    impl Crewing {
        /// Carries out the lead's fresh orders, in turn.
        fn take(&mut self, fresh: &mut Vec<Crew>) {
            for order in fresh.drain(..) {
                match &order {
                    Crew::Hire(n) => self.crew.extend((0..*n).map(|_| Station::new(1))),
                    Crew::Send(member, job) => {
                        let text = request_text(0, job.clone());
                        self.queue.push_back((*member, text))
                    }
                    Crew::Dismiss => self.queue.clear(),
                }
                self.orders.push(order);
            }
        }
    }

    /// A lead and its crew, all stations in one thread: the crew's
    /// requests wait in a queue, and each turn one member (taken in an
    /// order drawn from `shuffle`, or in turn for 0) answers its earliest,
    /// as a worker answers its messages in turn. The clock moves 100 ms a
    /// turn, so the lead draws as it goes; once the page's drawing shows
    /// `stop_after` cells (if given) the page sends a stop.
    fn lead_a_run(
        query: &str,
        cores: u32,
        stop_after: Option<usize>,
        shuffle: u64,
    ) -> (Vec<Reply>, Vec<Crew>) {
        let mut lead = Station::new(cores);
        let mut crewing = Crewing::default();
        let (mut page, mut fresh) = (Vec::new(), Vec::new());
        let clock = std::cell::Cell::new(0.0);
        let now = || clock.get();
        lead.from_page(
            &request_text(
                7,
                Job::Explore {
                    query: query.into(),
                },
            ),
            &now,
            &mut |text| page.push(Reply::read(&text).unwrap()),
            &mut |order| fresh.push(order),
        );
        crewing.take(&mut fresh);
        let mut state = shuffle;
        let mut turn = 0;
        while !crewing.queue.is_empty() {
            let at = if shuffle == 0 {
                0
            } else {
                // A member picked at random, its earliest request.
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let members: Vec<u32> = crewing.queue.iter().map(|(m, _)| *m).collect();
                let member = members[(state >> 33) as usize % members.len()];
                members.iter().position(|m| *m == member).unwrap()
            };
            let (member, text) = crewing.queue.remove(at).unwrap();
            turn += 1;
            clock.set(f64::from(turn) * 100.0);
            let mut replies = Vec::new();
            let station = &mut crewing.crew[member as usize];
            station.from_page(&text, &now, &mut |r| replies.push(r), &mut |_| {
                panic!("a crew member leads no crew")
            });
            assert!(replies
                .iter()
                .all(|r| serde_json::from_str::<Reply>(r).is_ok()));
            for reply in replies {
                lead.from_crew(
                    member,
                    Reply::read(&reply),
                    &now,
                    &mut |text| page.push(Reply::read(&text).unwrap()),
                    &mut |order| fresh.push(order),
                );
            }
            crewing.take(&mut fresh);
            let shown = stop_after
                .map(|n| format!(r#"aria-valuenow="{n}""#))
                .filter(|n| page.last().is_some_and(|r| r.html.contains(n.as_str())));
            if shown.is_some() {
                lead.from_page(
                    &request_text(8, Job::ExploreStop),
                    &now,
                    &mut |text| page.push(Reply::read(&text).unwrap()),
                    &mut |order| fresh.push(order),
                );
                crewing.take(&mut fresh);
            }
        }
        (page, crewing.orders)
    }

    /// The CSV the page downloads from a run's last drawing, below its
    /// comment lines.
    fn page_csv(last: &Reply) -> String {
        let url = last
            .html
            .split(r#"download="distlock-hazard.csv" href=""#)
            .nth(1)
            .unwrap();
        let url = url.split('"').next().unwrap();
        url.trim_start_matches("data:text/csv;charset=utf-8,")
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
            .replace("%0A", "\n")
            .replace("%23", "#")
            .replace("%25", "%")
    }

    /// The command line's CSV for `query`, cell after cell on one thread.
    fn command_line_csv(query: &str) -> String {
        use crate::tools::explore::{csv_comment, csv_header, csv_row, run_cell, Rare, Threshold};
        let plan = explore_form::plan_of(query).unwrap();
        let mut csv = csv_comment(&plan);
        csv.push_str(&csv_header());
        for cell in 0..plan.cells() {
            let r = run_cell(&plan, cell).unwrap();
            let here = plan.cell(cell).unwrap();
            let threshold = Threshold::find(&plan, here.backend, here.ttl_ms);
            let rare = Rare::of(&plan, &r, threshold, &mut |_| {}).unwrap();
            csv.push_str(&csv_row(&plan, &r, Some(&rare)));
        }
        csv
    }

    const SMALL: &str = "pauses=custom&per-hour=3600&median=5000&p99=20000&think=2&ttls=1%2C2&values=5%2C20&trials=6&rare=300";

    #[test]
    fn the_lead_deals_every_cell_to_its_crew_and_draws_what_the_command_line_prints() {
        let (_, orders) = lead_a_run(&format!("{SMALL}&crew=1"), 2, None, 0);
        assert_eq!(orders.first(), Some(&Crew::Hire(1)), "crew=1 caps the crew");
        let (page, orders) = lead_a_run(SMALL, 2, None, 0);
        assert_eq!(orders.first(), Some(&Crew::Hire(2)));
        assert_eq!(orders.last(), Some(&Crew::Dismiss));
        let parts: Vec<&str> = orders
            .iter()
            .filter_map(|o| match o {
                Crew::Send(_, Job::ExplorePart { part, .. }) => Some(part.as_str()),
                _ => None,
            })
            .collect();
        let count = |kind: &str| parts.iter().filter(|p| p.contains(kind)).count();
        // Two TTLs, but etcd grants 2 s for 1 s: the 2 s cells run as the
        // 1 s ones and are dealt nothing. One threshold, shared by the two
        // rows; each cell that runs has its plain trials in one part.
        assert_eq!(count(r#""threshold""#), 1);
        assert_eq!(count(r#""plain""#), 2);
        assert!(count(r#""weighted""#) > 0, "{parts:?}");
        let last = page.last().unwrap();
        assert!(last.done && last.id == 7 && last.error.is_none());
        assert!(page[..page.len() - 1].iter().all(|r| !r.done));
        assert!(last.html.contains(r#"aria-valuenow="4""#), "{}", last.html);
        assert!(last.html.contains("4 of 4 cells, "));
        // The method's words count the weighted trials that ran, and say
        // which cells took another's numbers.
        assert!(
            last.html.contains("2 cells ran importance sampling")
                && last
                    .html
                    .contains("2 cells run exactly as an earlier cell of the grid"),
            "{}",
            last.html
        );
        // The CSV the page downloads is the command line's, byte for byte,
        // below its comment lines (the workload).
        assert_eq!(page_csv(last), command_line_csv(SMALL));
        assert!(last.html.contains("data-png=\"distlock-hazard.png\""));
    }

    /// Parts come back in any order across the crew; the lead adds them
    /// in the order one worker runs them, so the numbers are the same
    /// to the bit: plain parts of a cell split in many, weighted batches
    /// ahead of the one before (some past the estimate's end), a crew
    /// of one to four.
    #[test]
    fn parts_back_in_any_order_give_the_command_lines_numbers() {
        // Two plain parts, a threshold, and an estimate that ends after
        // three batches of six, with later ones dealt ahead.
        let query = "pauses=jvm-cms-full&ttls=1&values=10&trials=1100&rare=3000";
        let expected = command_line_csv(query);
        for (cores, shuffle) in [(1, 0), (2, 1), (4, 99)] {
            let (page, orders) = lead_a_run(query, cores, None, shuffle);
            let last = page.last().unwrap();
            assert!(last.done && last.error.is_none(), "{}", last.html);
            assert_eq!(page_csv(last), expected, "{cores} cores, order {shuffle}");
            let weighted = orders
                .iter()
                .filter(|o| matches!(o, Crew::Send(_, Job::ExplorePart { part, .. }) if part.contains("weighted")))
                .count();
            assert!(
                weighted > 3 || cores == 1,
                "{cores} cores: {weighted} batches"
            );
        }
    }

    /// A cell's first failing trial opens from the table as a run link.
    #[test]
    fn a_cells_first_failing_trial_opens_as_a_run() {
        let query = "pauses=jvm-cms-full&ttls=1&values=20&think=2&trials=240&rare=0";
        let (page, _) = lead_a_run(query, 2, None, 3);
        let html = &page.last().unwrap().html;
        let fragment = html
            .split(r#"data-open="#)
            .nth(1)
            .and_then(|rest| rest.get(1..))
            .and_then(|rest| rest.split('"').next())
            .expect("a failing trial's link");
        let (opened, _) = crate::wire::link::open_link(&fragment.replace("&amp;", "&"))
            .expect("the trial's link opens");
        assert_eq!(opened.playhead_ms, 0);
    }

    #[test]
    fn a_stop_dismisses_the_crew_at_once_and_keeps_the_cells_that_arrived() {
        // TTLs that etcd grants as asked: each cell runs, and ends, alone.
        let query = SMALL.replace("ttls=1%2C2", "ttls=2%2C5");
        let (page, orders) = lead_a_run(&query, 1, Some(1), 0);
        assert_eq!(orders.last(), Some(&Crew::Dismiss));
        let last = page.last().unwrap();
        assert!(
            last.done && last.id == 8,
            "the stop's reply answers the stop"
        );
        assert!(last
            .html
            .contains("Cancelled: 1 of 4 cells ran and are shown."));
        assert!(last.html.contains(r#"aria-valuenow="1""#));
        assert!(
            last.html.contains("Download CSV"),
            "what arrived can be saved"
        );
    }

    #[test]
    fn bad_settings_lead_nothing_and_keep_the_form_to_mend() {
        let (page, orders) = lead_a_run("ttls=1%2Csoon", 2, None, 0);
        assert!(orders.is_empty());
        assert_eq!(page.len(), 1);
        let [form, stop, body] = parts(&page[0]);
        assert!(page[0].done && page[0].error.is_none());
        assert!(form.contains(r#"name="ttls" value="1,soon""#), "{form}");
        assert!(stop.is_empty(), "nothing to cancel");
        assert!(
            body.contains(r#"role="alert">TTLs (s): &quot;soon&quot;"#),
            "{body}"
        );
    }

    /// A drawing for the explorer in its three parts: the form, Cancel,
    /// and the run's own parts (progress, results, files) as one.
    fn parts(reply: &Reply) -> [&str; 3] {
        let mut parts = reply.html.splitn(3, PART_BREAK);
        let form = parts.next().expect("the form");
        let stop = parts.next().expect("cancel");
        [form, stop, parts.next().expect("the run's drawing")]
    }

    #[test]
    fn every_drawing_of_a_run_carries_the_form_as_first_drawn_and_cancel_while_it_runs() {
        let (page, _) = lead_a_run(SMALL, 1, None, 0);
        let first = explore_form::form(SMALL);
        assert!(page.len() > 1);
        for reply in &page {
            let [form, stop, body] = parts(reply);
            assert_eq!(form, first, "the same markup: the page keeps its elements");
            assert_eq!(stop.contains("data-stop"), !reply.done);
            assert!(body.contains("role=\"progressbar\""));
        }
        // The form asked for first is the one every run keeps, whatever
        // the run's fields: the visitor's edits live in the page.
        let mut station = Station::new(1);
        let mut posted = Vec::new();
        for (id, job) in [
            (
                1,
                Job::ExploreForm {
                    query: String::new(),
                },
            ),
            (
                2,
                Job::Explore {
                    query: SMALL.into(),
                },
            ),
        ] {
            let request = serde_json::to_string(&Request {
                v: PROTOCOL_VERSION,
                id,
                job,
            })
            .unwrap();
            station.from_page(&request, &|| 0.0, &mut |t| posted.push(t), &mut |_| {});
        }
        let replies: Vec<Reply> = posted.iter().map(|t| Reply::read(t).unwrap()).collect();
        let blank = explore_form::form("");
        assert_eq!(parts(&replies[0]), [blank.as_str(), "", ""]);
        assert!(replies[1..].iter().all(|r| parts(r)[0] == blank));
    }

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        let r = replies("{not json");
        assert_eq!(r.len(), 1);
        assert!(r[0].done);
        assert!(r[0].error.as_deref().unwrap().contains("could not read"));
        let r = replies(r#"{"v":99,"id":4,"job":"compare"}"#);
        assert_eq!(r[0].id, 4);
        assert!(r[0].error.as_deref().unwrap().contains("reload the page"));
        let long = format!(
            r#"{{"v":1,"id":1,"job":"compare","pad":"{}"}}"#,
            "x".repeat(REQUEST_LEN_MAX)
        );
        assert!(replies(&long)[0]
            .error
            .as_deref()
            .unwrap()
            .contains("over the worker's limit"));
    }

    #[test]
    fn the_page_asks_through_serve_and_hears_why_a_run_cannot_be_read() {
        let ask = |job: &str| {
            let mut replies = Vec::new();
            serve(
                &format!(r#"{{"v":1,"id":7,"job":{job}}}"#),
                &|| 0.0,
                &mut |text| replies.push(Reply::read(&text).unwrap()),
            );
            replies
        };
        let sim = crate::sim::Sim::new(crate::sim::Config {
            backend: crate::sim::Backend::Redis,
            fencing: crate::sim::Fencing::Off,
            ..crate::sim::Config::default()
        })
        .expect("the defaults are valid");
        let fragment =
            crate::wire::link::encode(&crate::wire::link::RunLink::of(&sim, crate::sim::Millis(0)));
        let replies = ask(&format!(
            r#"{{"find":{{"run":"{fragment}","query":"property=two-holders&fault=node-crash&depth=5"}}}}"#
        ));
        let last = replies.last().unwrap();
        assert!(last.done && last.error.is_none() && last.id == 7);
        assert!(last
            .html
            .contains("at most one client believes it holds the lock"));
        // The answer's first line names the settings it searched at.
        let result = &last.html[last.html.find(r#"<div class="finder__result">"#).unwrap()..];
        assert!(
            result.contains(r#"<div class="finder__result"><p class="panel__note finder__settings"><strong>Settings:</strong> Redis, TTL 5 s, latency 10x real, fencing off, seed 1; bounds: up to 5 moves,"#),
            "{result}"
        );
        // A cell's address runs the cell; a bad one says why.
        let cell =
            ask(r#"{"compare-run":{"query":"cell=gc-pause&system=redis&fencing=on&ttl=5"}}"#);
        assert_eq!(cell.len(), 1);
        assert!(cell[0].done && cell[0].error.is_none());
        assert!(cell[0].html.starts_with("v1."), "{}", cell[0].html);
        assert!(crate::wire::link::open_link(&cell[0].html).is_ok());
        assert!(cell[0].progress.starts_with(
            "Opened the comparison's run of GC pause on Redis, fencing on at TTL 5 s, latency 10x real, seed 1, fencing mode as documented (rejected while the master keeps its counter)."
        ), "{}", cell[0].progress);
        let wrong = ask(r#"{"compare-run":{"query":"cell=gc-pause&system=mongo"}}"#);
        assert!(wrong[0]
            .error
            .as_deref()
            .unwrap()
            .contains("The address's system is \"mongo\""));
        let bad = ask(r#"{"find":{"run":"v1.nonsense!","query":"property=stale-write"}}"#);
        assert_eq!(bad.len(), 1);
        assert!(bad[0].html.contains(r#"<form class="finder__question""#));
        assert!(
            bad[0].html.contains(
                "The page&#39;s run could not be read for the search. This link is damaged"
            ),
            "{}",
            bad[0].html
        );
        let unread = ask(&format!(
            r#"{{"find":{{"run":"{fragment}","query":"property=liveness"}}}}"#
        ));
        assert!(unread[0]
            .html
            .contains("\u{201c}liveness\u{201d} is none of the failures listed"));
        let form = ask(r#"{"find-form":{"query":"find&property=two-holders"}}"#);
        assert!(form[0]
            .html
            .contains(r#"<option value="two-holders" selected>"#));
        let unknown = ask(&format!(
            r#"{{"find":{{"run":"{fragment}","property":"liveness"}}}}"#
        ));
        assert!(unknown[0]
            .error
            .as_deref()
            .unwrap()
            .contains("could not read the request"));
    }

    /// A page whose settings cannot be read is told why, and nothing runs.
    #[test]
    fn compare_settings_that_cannot_be_read_say_why_and_run_nothing() {
        let request = Request {
            v: PROTOCOL_VERSION,
            id: 3,
            job: Job::CompareAt {
                run: "#v1.not-a-run".into(),
                page: "https://example.org/".into(),
            },
        };
        let mut replies = Vec::new();
        serve(&request.to_json(), &|| 0.0, &mut |text| {
            replies.push(Reply::read(&text).unwrap())
        });
        assert_eq!(replies.len(), 1);
        let why = replies[0].error.as_deref().unwrap_or_default();
        assert!(
            why.starts_with("The comparison could not read the page's settings."),
            "{why}"
        );
        assert!(replies[0].html.is_empty() && replies[0].done);
    }
}
