//! What the page's background worker does: long jobs that would hold up
//! the page's frames, run off its main thread in a second WebAssembly
//! build that is fetched only when a visitor first asks for one.
//!
//! A job's answer is markup, drawn here: the code that runs a job and the
//! code that draws its result both stay out of the page's first load, and
//! the page only places the markup and hands clicks on it back (a click on
//! an element with `data-open` opens that run in the main view).
//!
//! Pure like the core: `serve` takes a request as JSON text and posts its
//! replies as JSON text, so it runs the same natively (tests) and in the
//! worker (`src/bin/worker.rs` is the browser glue).

mod compare;
mod explore;
mod explore_draw;
mod find;
mod spanner;

use crate::lesson::properties::Property;
use crate::wire::json::Json;
use serde::{Deserialize, Serialize};

/// The version of the messages between page and worker. A page and a
/// worker from different builds refuse each other's messages rather than
/// misread them.
pub const PROTOCOL_VERSION: u32 = 1;

/// The longest request the worker reads: a job is a few settings or a run
/// as its link carries it, but the explorer's drawing job carries every
/// cell's counts and its first failing trial's link (at most 1,024 cells of
/// a few KiB each).
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
    /// The form's fields (a query string) checked into a plan: its JSON
    /// in `data`, the empty heatmap in `html`.
    ExplorePlan { query: String },
    /// One cell of a plan: `progress` counts its trials so far, and the
    /// last reply's `data` holds its result.
    ExploreCell { plan: String, cell: u32 },
    /// The heatmap and table from a plan and the cells' results so far;
    /// `data` holds the files to download.
    ExploreDraw { plan: String, results: Vec<String> },
    /// The shortest run that breaks `property`, searched from the page's
    /// run (its link's fragment) where the playhead stands.
    Find { run: String, property: Property },
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
    /// What the page keeps or passes on without reading it: a result to
    /// hand back in a later job, a file to download.
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

/// Runs one request, posting each reply as it is ready. `clock_ms` reads
/// the wall clock, only to report how fast a job goes (never to decide
/// what it computes, which depends on the request alone).
pub fn serve(request: &str, clock_ms: &dyn Fn() -> f64, post: &mut dyn FnMut(String)) {
    let mut send = |reply: Reply| post(serde_json::to_string(&reply).unwrap_or_default());
    if request.len() > REQUEST_LEN_MAX {
        send(Reply::failed(
            0,
            format!(
                "The request is {} bytes, over the worker's limit of {REQUEST_LEN_MAX}.",
                request.len()
            ),
        ));
        return;
    }
    let request: Request = match serde_json::from_str(request) {
        Ok(r) => r,
        Err(e) => {
            send(Reply::failed(
                0,
                format!("The worker could not read the request: {e}."),
            ));
            return;
        }
    };
    if request.v != PROTOCOL_VERSION {
        send(Reply::failed(
            request.id,
            format!(
                "The page speaks version {} to its worker, which speaks {PROTOCOL_VERSION}: reload the page.",
                request.v
            ),
        ));
        return;
    }
    let id = request.id;
    match request.job {
        Job::Compare => compare::run_all(&mut answer(id, &mut send)),
        Job::Spanner => answer(id, &mut send)(spanner::body(), String::new(), true),
        Job::Find { run, property } => {
            let searched = find::request(&run, property)
                .and_then(|request| find::run(&request, clock_ms, &mut answer(id, &mut send)));
            if let Err(why) = searched {
                send(Reply::failed(id, why));
            }
        }
        job => explore::serve(job, id, clock_ms, &mut send),
    }
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

/// Text made safe to place in markup, inside elements or quoted attributes.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
