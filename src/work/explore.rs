//! The hazard explorer's jobs (`crate::tools::explore`), run in the page's
//! workers: the settings form (`form.rs` there) as markup; a run, led from one worker that
//! reads the form's fields into a `Plan`, deals the cells to a crew of
//! workers and draws the heatmap, the table and the files as cells arrive;
//! and one cell, a crew member's job. The page keeps only a thin shell: it
//! reads the form's fields as a query string, sends them, and places the
//! markup.

use super::{Crew, Job, Reply, PROTOCOL_VERSION};
use crate::markup::PART_BREAK;
use crate::tools::explore::draw::{self as explore_draw, CellData};
use crate::tools::explore::form::{fields, plan_json, plan_of, read_plan, refusal};
use crate::tools::explore::{rebuild_trial, run_trials, CellResult, Plan, Rare, Threshold};
use crate::wire::link::{self, RunLink};

/// The crew is one worker per core, at most this many.
const CREW_MAX: u32 = 4;
/// A cell's worker reports its trials so far about this often, so the
/// page's trials per second moves while a long cell runs.
const PROGRESS_EVERY_MS: f64 = 250.0;
/// Trials run between looks at the clock.
const TRIALS_PER_LOOK: u32 = 64;

/// The lead's page replies come at most this often while cells run (and
/// always when the run ends): each is the whole drawing, which the page
/// places in one go.
const REDRAW_EVERY_MS: f64 = 250.0;

/// Runs a crew member's job: one cell.
pub(super) fn serve(job: Job, id: u32, clock_ms: &dyn Fn() -> f64, send: &mut dyn FnMut(Reply)) {
    let reply = |html: String, progress: String, done: bool, data: String| Reply {
        v: PROTOCOL_VERSION,
        id,
        html,
        progress,
        done,
        error: None,
        data,
    };
    let answer = match job {
        Job::ExploreCell { plan, cell } => read_plan(&plan).and_then(|plan| {
            let data = run_cell(&plan, cell, clock_ms, &mut |trials| {
                send(reply(
                    String::new(),
                    trials.to_string(),
                    false,
                    String::new(),
                ))
            })?;
            Ok(reply(String::new(), plan.trials.to_string(), true, data))
        }),
        _ => Err("This job is not the explorer's.".to_string()),
    };
    send(answer.unwrap_or_else(|why| Reply::failed(id, why)));
}

/// A run of the explorer, led from one worker: it deals the cells to its
/// crew one at a time, keeps what comes back, and draws the heatmap for
/// the page as cells arrive. The page reads none of it; it places the
/// markup.
pub(super) struct Lead {
    /// The page's job the replies answer (the run's, then a stop's).
    id: u32,
    plan: Plan,
    plan_json: String,
    cells: Vec<Option<CellData>>,
    next: u32,
    /// Trials done in each crew member's current cell.
    partial: Vec<u64>,
    started_ms: f64,
    posted_ms: f64,
    /// When the run ended, and what the page is told about it.
    ended: Option<(f64, String)>,
}

impl Lead {
    /// Checks the form's fields into a plan and starts the crew, or
    /// replies with what is wrong (and leads nothing).
    pub fn start(
        id: u32,
        query: String,
        cores: u32,
        clock_ms: &dyn Fn() -> f64,
        send: &mut dyn FnMut(Reply),
        crew: &mut dyn FnMut(Crew),
    ) -> Option<Lead> {
        let plan = match plan_of(&query) {
            Ok(plan) => plan,
            Err(why) => {
                send(Reply::failed(id, why));
                return None;
            }
        };
        let now = clock_ms();
        // `crew=N` in the query runs at most N workers (a benchmark's way
        // to measure one core); the form has no such field.
        let crew_max = fields(&query)
            .get("crew")
            .and_then(|n| n.parse().ok())
            .unwrap_or(CREW_MAX);
        let members = cores.min(crew_max).clamp(1, CREW_MAX).min(plan.cells());
        let mut lead = Lead {
            id,
            plan_json: plan_json(&plan),
            cells: vec![None; plan.cells() as usize],
            plan,
            next: 0,
            partial: vec![0; members as usize],
            started_ms: now,
            posted_ms: now,
            ended: None,
        };
        crew(Crew::Hire(members));
        for member in 0..members {
            lead.deal(member, crew);
        }
        lead.post(now, send);
        Some(lead)
    }

    /// Hands crew member `member` the next cell, if one is left.
    fn deal(&mut self, member: u32, crew: &mut dyn FnMut(Crew)) {
        if self.next >= self.plan.cells() {
            return;
        }
        crew(Crew::Send(
            member,
            Job::ExploreCell {
                plan: self.plan_json.clone(),
                cell: self.next,
            },
        ));
        self.next += 1;
    }

    /// A crew member's reply: its progress in a cell, or the cell done;
    /// or why the member could not run it.
    pub fn heard(
        &mut self,
        member: u32,
        reply: Result<Reply, String>,
        clock_ms: &dyn Fn() -> f64,
        send: &mut dyn FnMut(Reply),
        crew: &mut dyn FnMut(Crew),
    ) {
        if self.ended.is_some() {
            return;
        }
        let now = clock_ms();
        let cell = reply.and_then(|r| match r.error {
            Some(why) => Err(why),
            None => Ok(r),
        });
        let slot = self.partial.get_mut(member as usize);
        match (cell, slot) {
            (Ok(r), Some(partial)) if !r.done => *partial = r.progress.parse().unwrap_or(0),
            (Ok(r), Some(partial)) => {
                *partial = 0;
                match serde_json::from_str::<CellData>(&r.data) {
                    Ok(data) => {
                        if let Some(slot) = self.cells.get_mut(data.result.cell as usize) {
                            *slot = Some(data);
                        }
                        self.deal(member, crew);
                    }
                    Err(e) => self.end(
                        now,
                        format!("A cell's result could not be read: {e}."),
                        crew,
                    ),
                }
            }
            (Err(why), _) => self.end(now, format!("A cell could not run: {why}"), crew),
            (Ok(_), None) => return,
        }
        if self.ended.is_none() && self.cells.iter().all(Option::is_some) {
            self.end(now, String::new(), crew);
        }
        if self.ended.is_some() || now - self.posted_ms >= REDRAW_EVERY_MS {
            self.post(now, send);
        }
    }

    /// Stops the run at once for the page's job `id`: the crew is
    /// dismissed, and the cells that arrived stay drawn.
    pub fn stop(
        &mut self,
        id: u32,
        clock_ms: &dyn Fn() -> f64,
        send: &mut dyn FnMut(Reply),
        crew: &mut dyn FnMut(Crew),
    ) {
        self.id = id;
        let now = clock_ms();
        if self.ended.is_none() {
            let done = self.cells.iter().flatten().count();
            let words = format!(
                "Cancelled: {done} of {} cells ran and are shown.",
                self.cells.len()
            );
            self.end(now, words, crew);
        }
        self.post(now, send);
    }

    fn end(&mut self, now: f64, words: String, crew: &mut dyn FnMut(Crew)) {
        self.partial.iter_mut().for_each(|p| *p = 0);
        self.ended = Some((now, words));
        crew(Crew::Dismiss);
    }

    /// Every trial the crew ran: a done cell's plain trials and its
    /// weighted ones (the rare-event estimate's, which its progress counted
    /// on top of the plain ones while it ran), and those of cells under way.
    fn trials_done(&self) -> u64 {
        let plain = u64::from(self.plan.trials);
        let whole: u64 = self
            .cells
            .iter()
            .flatten()
            .map(|c| {
                let weighted = c.rare.as_ref().and_then(|r| r.weighted.as_ref());
                plain + weighted.map_or(0, |w| u64::from(w.trials))
            })
            .sum();
        whole + self.partial.iter().sum::<u64>()
    }

    fn post(&mut self, now: f64, send: &mut dyn FnMut(Reply)) {
        self.posted_ms = now;
        let end_ms = self.ended.as_ref().map_or(now, |(at, _)| *at);
        let elapsed_ms = (end_ms - self.started_ms).max(0.0) as u64;
        let rate = (self.trials_done() * 1_000)
            .checked_div(elapsed_ms)
            .unwrap_or(0);
        let said = self.ended.as_ref().map_or("", |(_, words)| words.as_str());
        let html = explore_draw::draw(
            &self.plan,
            &self.cells,
            &explore_draw::Run {
                rate,
                running: self.ended.is_none(),
                said,
            },
        );
        send(Reply {
            v: PROTOCOL_VERSION,
            id: self.id,
            html,
            progress: String::new(),
            done: self.ended.is_some(),
            error: None,
            data: String::new(),
        });
    }
}

/// Runs one cell, reporting the trials done so far now and then through
/// `progress`; returns the cell's data as JSON text.
pub(super) fn run_cell(
    plan: &Plan,
    cell: u32,
    clock_ms: &dyn Fn() -> f64,
    progress: &mut dyn FnMut(u32),
) -> Result<String, String> {
    let mut result: Option<CellResult> = None;
    let mut last_ms = clock_ms();
    let mut from = 0;
    while from < plan.trials {
        let to = from.saturating_add(TRIALS_PER_LOOK).min(plan.trials);
        let slice = run_trials(plan, cell, from..to).map_err(|e| format!("{e}."))?;
        result = Some(match result {
            Some(r) => r.merge(&slice),
            None => slice,
        });
        from = to;
        let now = clock_ms();
        if now - last_ms >= PROGRESS_EVERY_MS && from < plan.trials {
            last_ms = now;
            progress(from);
        }
    }
    let result = result.ok_or("A cell runs at least one trial.")?;
    // The threshold, then the rare-event estimate where it is needed; its
    // batches report their trials on top of the plain ones.
    let here = plan.cell(cell).map_err(|e| format!("{e}."))?;
    let threshold = Threshold::find(plan, here.backend, here.ttl_ms);
    let rare = Rare::of(plan, &result, threshold, &mut |done| {
        let now = clock_ms();
        if now - last_ms >= PROGRESS_EVERY_MS {
            last_ms = now;
            progress(plan.trials.saturating_add(done));
        }
    })
    .map_err(|e| format!("{e}."))?;
    let open_trial = result.first_corrupted.or(result.first_two_holders);
    let open = match open_trial {
        Some(trial) => trial_link(plan, cell, trial)?,
        None => String::new(),
    };
    let data = CellData {
        result,
        open,
        open_trial,
        rare: Some(rare),
    };
    serde_json::to_string(&data)
        .map_err(|e| format!("The cell's result could not be written: {e}."))
}

/// The run link of one trial, opening at its start.
fn trial_link(plan: &Plan, cell: u32, trial: u32) -> Result<String, String> {
    let run = rebuild_trial(plan, cell, trial).map_err(|e| format!("{e}."))?;
    Ok(link::encode(&RunLink {
        scenario: run.scenario,
        playhead_ms: 0,
        end_ms: run.end.ms(),
    }))
}

/// The explorer's drawing for the page in its three parts: the form, then
/// Cancel while the run goes on, then the run's drawing, or why it could
/// not run (so the form stays to be mended).
pub(super) fn framed(form: &str, reply: Reply) -> Reply {
    let (body, done) = match &reply.error {
        Some(why) => (refusal(why), true),
        None => (reply.html, reply.done),
    };
    let stop = if done {
        ""
    } else {
        r#"<button type="button" class="button" data-stop>Cancel</button>"#
    };
    Reply {
        html: [form, stop, &body].join(PART_BREAK),
        done,
        error: None,
        ..reply
    }
}

/// The settings form's first drawing: refused fields from the link are
/// named at once, not only when Run is pressed.
pub(super) fn form_reply(form: &str, id: u32, query: &str) -> Reply {
    let checked = match plan_of(query) {
        Ok(_) => Reply::drawn(id, String::new()),
        Err(why) => Reply::failed(id, why),
    };
    framed(form, checked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::explore::form::form;
    use crate::tools::explore::{Axis, Pauses, Preset};

    #[test]
    fn the_forms_first_drawing_names_every_refused_field() {
        let query = "?explore&system=%3Cimg+src%3Dx%3E&trials=999999999999&hold=abc\
                     &ttls=1%2C+0.5&pauses=gc&clients=9";
        let html = form(query);
        // The form's first drawing lists them all, before Run is pressed.
        let drawn = form_reply(&html, 3, query);
        let refused = drawn.html.split(PART_BREAK).nth(2).unwrap();
        assert!(refused.starts_with(r#"<div class="work__status" role="alert"><p>6 fields were refused:</p><ul><li>System: &quot;&lt;img src=x&gt;&quot;"#), "{refused}");
        assert_eq!(refused.matches("<li>").count(), 6);
        // A link with nothing wrong draws the form alone.
        assert_eq!(
            form_reply(&form(""), 3, "").html.split(PART_BREAK).nth(2),
            Some("")
        );
    }

    #[test]
    fn a_cell_carries_its_counts_and_its_first_failing_trial() {
        let plan = Plan {
            trials: 40,
            ttls_ms: vec![1_000],
            axis: Axis::P99Us(vec![20_000_000]),
            pauses: Pauses::Preset {
                preset: Preset::JvmCmsFull,
            },
            think_ms: 2_000,
            rare_trials: 1_000,
            ..Plan::default()
        };
        let mut reports = 0;
        let text = run_cell(&plan, 0, &|| 0.0, &mut |_| reports += 1).unwrap();
        let data: CellData = serde_json::from_str(&text).unwrap();
        assert_eq!(
            data.result,
            crate::tools::explore::run_cell(&plan, 0).unwrap()
        );
        assert_eq!(reports, 0);
        let first = data
            .result
            .first_corrupted
            .or(data.result.first_two_holders);
        assert_eq!(data.open_trial, first);
        if first.is_some() {
            let (opened, _) = link::open_link(&data.open).expect("the trial's link opens");
            assert_eq!(opened.playhead_ms, 0);
        } else {
            assert!(data.open.is_empty());
        }
    }
}
