//! The hazard explorer's jobs (`crate::tools::explore`), run in the page's
//! workers: the settings form (`form.rs` there) as markup; a run, led from
//! one worker that reads the form's fields into a `Plan`, deals the cells
//! in parts to a crew of workers and draws the heatmap, the table and the
//! files as cells end; and one part of a cell, a crew member's job. The
//! page keeps only a thin shell: it reads the form's fields as a query
//! string, sends them, and places the markup.
//!
//! A cell is dealt in parts, not whole, so that every core works to the
//! run's end (a grid of one cell, or an odd last one, would otherwise
//! leave a core idle): its threshold, its plain trials a thousand at a
//! time, then its weighted trials batch by batch. The lead adds what comes
//! back in the order one worker would have run it, so a cell's numbers are
//! the command line's, whatever the crew's size or speed.
//!
//! A cell that runs exactly as an earlier one (`Plan::runs_as`: etcd's 1 s
//! column as its 2 s one) is dealt nothing and takes that cell's numbers.

use super::{Crew, Job, Reply, PROTOCOL_VERSION};
use crate::markup::PART_BREAK;
use crate::sim::Backend;
use crate::tools::explore::draw::{self as explore_draw, CellData};
use crate::tools::explore::form::{fields, plan_json, plan_of, read_plan, refusal};
use crate::tools::explore::{
    rebuild_trial, run_trials, run_weighted, CellResult, Plan, RareRun, Threshold, Tilt,
};
use crate::wire::link::{self, RunLink};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

/// The crew is one worker per core, at most this many.
const CREW_MAX: u32 = 4;
/// Plain trials in a part: tens of milliseconds of a worker's time, so
/// the last parts of a run end close together.
const PLAIN_PART: u32 = 1_000;
/// Parts a crew member holds at once: the one it runs and the next,
/// waiting in its queue, so it never idles while the lead hears it.
const PARTS_AHEAD: usize = 2;

/// The lead's page replies come at most this often while cells run (and
/// always when the run ends): each is the whole drawing, which the page
/// places in one go.
const REDRAW_EVERY_MS: f64 = 250.0;

/// A part of a cell, as the lead deals it (in `Job::ExplorePart`, as
/// JSON) and a crew member runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Part {
    /// The cell's threshold (`Threshold::find`): the same for every cell
    /// of one system and TTL, so asked once for them all.
    Threshold,
    /// Plain trials `from..to`.
    Plain { from: u32, to: u32 },
    /// Weighted trials `from..to`, drawn from `tilt`'s proposal.
    Weighted { tilt: Tilt, from: u32, to: u32 },
}

/// Runs a crew member's job: one part of a cell; the reply's `data` holds
/// what it found.
pub(super) fn serve(job: Job, id: u32, send: &mut dyn FnMut(Reply)) {
    let answer = match job {
        Job::ExplorePart { plan, cell, part } => {
            read_plan(&plan).and_then(|plan| run_part(&plan, cell, &part))
        }
        _ => Err("This job is not the explorer's.".to_string()),
    };
    send(match answer {
        Ok(data) => Reply {
            data,
            ..Reply::drawn(id, String::new())
        },
        Err(why) => Reply::failed(id, why),
    });
}

/// Runs one part of `cell` (its JSON, as the lead wrote it): the
/// threshold, a `CellResult`, or a `Batch` of weighted trials, as JSON
/// text.
fn run_part(plan: &Plan, cell: u32, part: &str) -> Result<String, String> {
    let part: Part =
        serde_json::from_str(part).map_err(|e| format!("The part could not be read: {e}."))?;
    let written = match part {
        Part::Threshold => {
            let here = plan.cell(cell).map_err(|e| format!("{e}."))?;
            serde_json::to_string(&Threshold::find(plan, here.backend, here.ttl_ms))
        }
        Part::Plain { from, to } => {
            let result = run_trials(plan, cell, from..to).map_err(|e| format!("{e}."))?;
            serde_json::to_string(&result)
        }
        Part::Weighted { tilt, from, to } => {
            let mut batch = Batch::default();
            run_weighted(plan, cell, tilt, from..to, &mut |corrupted, weight| {
                batch.push(corrupted, weight)
            })
            .map_err(|e| format!("{e}."))?;
            serde_json::to_string(&batch)
        }
    };
    written.map_err(|e| format!("The part's result could not be written: {e}."))
}

/// A batch of weighted trials as a crew member sends it back: each
/// trial's weight as the sixteen hex digits of its bits (exact, where a
/// decimal could round, and two thirds of the bytes of decimal pairs: the
/// lead reads thousands of batches), and the trials with corrupted writes,
/// by their place in the batch, with how many.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Batch {
    weights: String,
    corrupted: Vec<(u32, u64)>,
}

impl Batch {
    fn push(&mut self, corrupted: u64, weight: f64) {
        use std::fmt::Write;
        let place = (self.weights.len() / 16) as u32;
        if corrupted > 0 {
            self.corrupted.push((place, corrupted));
        }
        let _ = write!(self.weights, "{:016x}", weight.to_bits());
    }

    /// Each trial's corrupted writes and weight, in order.
    fn trials(&self) -> Result<Vec<(u64, f64)>, String> {
        let bad = || "A batch of weighted trials could not be read.".to_string();
        let digits = self.weights.as_bytes();
        if digits.len() % 16 != 0 {
            return Err(bad());
        }
        let mut trials = digits
            .chunks(16)
            .map(|hex| {
                let hex = std::str::from_utf8(hex).map_err(|_| bad())?;
                let bits = u64::from_str_radix(hex, 16).map_err(|_| bad())?;
                Ok((0, f64::from_bits(bits)))
            })
            .collect::<Result<Vec<(u64, f64)>, String>>()?;
        for &(place, corrupted) in &self.corrupted {
            let trial = trials.get_mut(place as usize).ok_or_else(bad)?;
            trial.0 = corrupted;
        }
        Ok(trials)
    }
}

/// A cell's course through the run.
#[derive(Debug, Clone, Default)]
struct CellRun {
    /// Plain parts dealt so far, and each part's counts once back.
    plain_dealt: u32,
    plain: Vec<Option<CellResult>>,
    /// The plain trials summed, and the rare-event estimate, once every
    /// plain part and the threshold are in.
    summed: Option<(CellResult, RareRun)>,
    /// Weighted batches dealt so far; those back ahead of an earlier one;
    /// batches added to the estimate, in order.
    batches_dealt: u32,
    batches_back: BTreeMap<u32, Vec<(u64, f64)>>,
    batches_added: u32,
}

/// A run of the explorer, led from one worker: it deals the cells' parts
/// to its crew, adds what comes back, and draws the heatmap for the page
/// as cells end. The page reads none of it; it places the markup.
pub(super) struct Lead {
    /// The page's job the replies answer (the run's, then a stop's).
    id: u32,
    plan: Plan,
    plan_json: String,
    runs: Vec<CellRun>,
    /// The earlier cell each cell runs exactly as (`Plan::runs_as`): such
    /// a cell is dealt nothing and takes that cell's numbers as it ends.
    runs_as: Vec<Option<u32>>,
    cells: Vec<Option<CellData>>,
    /// Thresholds by system and TTL: `None` while asked.
    thresholds: Vec<((Backend, u64), Option<Threshold>)>,
    /// What each crew member was dealt and has not answered, in the order
    /// it runs them (a member answers its jobs in turn).
    dealt: Vec<VecDeque<(u32, Part)>>,
    /// Trials whose counts arrived and were kept.
    trials_done: u64,
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
        let members = cores.min(crew_max).clamp(1, CREW_MAX);
        let parts = plan.trials.div_ceil(PLAIN_PART) as usize;
        let cells = plan.cells() as usize;
        let runs_as = plan.runs_as();
        let mut lead = Lead {
            id,
            plan_json: plan_json(&plan),
            runs: vec![
                CellRun {
                    plain: vec![None; parts],
                    ..CellRun::default()
                };
                cells
            ],
            runs_as,
            cells: vec![None; cells],
            plan,
            thresholds: Vec::new(),
            dealt: vec![VecDeque::new(); members as usize],
            trials_done: 0,
            started_ms: now,
            posted_ms: now,
            ended: None,
        };
        crew(Crew::Hire(members));
        lead.deal(crew);
        lead.post(now, send);
        Some(lead)
    }

    /// Fills every crew member's hands (`PARTS_AHEAD`) while parts are
    /// left to deal, each part to the member holding the fewest, so that
    /// no member is left idle while another holds two.
    fn deal(&mut self, crew: &mut dyn FnMut(Crew)) {
        while let Some(member) = (0..self.dealt.len())
            .filter(|&m| self.dealt[m].len() < PARTS_AHEAD)
            .min_by_key(|&m| self.dealt[m].len())
        {
            let Some((cell, part)) = self.next_part() else {
                return;
            };
            let part_json = serde_json::to_string(&part).unwrap_or_default();
            crew(Crew::Send(
                member as u32,
                Job::ExplorePart {
                    plan: self.plan_json.clone(),
                    cell,
                    part: part_json,
                },
            ));
            self.dealt[member].push_back((cell, part));
        }
    }

    /// The next part to deal, earliest cell first, so that cells end in
    /// order: a weighted batch of a cell whose plain trials are in (at
    /// most as many ahead of those added as the crew holds at once: a
    /// batch past the estimate's end is work thrown away), else a
    /// threshold not yet asked, else plain trials.
    fn next_part(&mut self) -> Option<(u32, Part)> {
        let ahead = (self.dealt.len() * PARTS_AHEAD) as u32;
        for index in 0..self.runs.len() {
            if self.cells[index].is_some() || self.runs_as[index].is_some() {
                continue;
            }
            let cell = index as u32;
            let key = self.key(cell).ok()?;
            let run = &mut self.runs[index];
            if let Some((_, rare)) = &run.summed {
                if run.batches_dealt - run.batches_added >= ahead {
                    continue;
                }
                let Some(trials) = rare.batch(run.batches_dealt) else {
                    continue;
                };
                run.batches_dealt += 1;
                let tilt = rare.tilt();
                let (from, to) = (trials.start, trials.end);
                return Some((cell, Part::Weighted { tilt, from, to }));
            }
            if !self.thresholds.iter().any(|(k, _)| *k == key) {
                self.thresholds.push((key, None));
                return Some((cell, Part::Threshold));
            }
            if (run.plain_dealt as usize) < run.plain.len() {
                let from = run.plain_dealt * PLAIN_PART;
                let to = from.saturating_add(PLAIN_PART).min(self.plan.trials);
                run.plain_dealt += 1;
                return Some((cell, Part::Plain { from, to }));
            }
        }
        None
    }

    /// What a cell's threshold depends on besides the plan: its system
    /// and its TTL.
    fn key(&self, cell: u32) -> Result<(Backend, u64), String> {
        let here = self.plan.cell(cell).map_err(|e| format!("{e}."))?;
        Ok((here.backend, here.ttl_ms))
    }

    /// A crew member's reply: the next part it was dealt, done; or why
    /// the member could not run it.
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
        let reply = reply.and_then(|r| match r.error {
            Some(why) => Err(why),
            None => Ok(r),
        });
        let part = self
            .dealt
            .get_mut(member as usize)
            .and_then(VecDeque::pop_front);
        match (reply, part) {
            (Ok(r), Some((cell, part))) => {
                if let Err(why) = self.take(cell, part, &r.data) {
                    self.end(now, why, crew);
                }
            }
            (Err(why), _) => self.end(now, format!("A cell could not run: {why}"), crew),
            (Ok(_), None) => return,
        }
        if self.ended.is_none() && self.cells.iter().all(Option::is_some) {
            self.end(now, String::new(), crew);
        }
        if self.ended.is_none() {
            self.deal(crew);
        }
        if self.ended.is_some() || now - self.posted_ms >= REDRAW_EVERY_MS {
            self.post(now, send);
        }
    }

    /// Keeps what part `part` of `cell` found (`data`, as `run_part`
    /// wrote it), and ends the cells it completes.
    fn take(&mut self, cell: u32, part: Part, data: &str) -> Result<(), String> {
        let unread = |e: serde_json::Error| format!("A cell's result could not be read: {e}.");
        let index = cell as usize;
        if self.cells.get(index).is_none_or(Option::is_some) {
            // A batch dealt ahead of an estimate that has since ended.
            return Ok(());
        }
        match part {
            Part::Threshold => {
                let threshold: Threshold = serde_json::from_str(data).map_err(unread)?;
                let key = self.key(cell)?;
                for (k, known) in &mut self.thresholds {
                    if *k == key {
                        *known = Some(threshold);
                    }
                }
                // Every cell of this system and TTL may now be summed.
                for other in 0..self.runs.len() {
                    self.sum(other as u32)?;
                }
            }
            Part::Plain { from, .. } => {
                let result: CellResult = serde_json::from_str(data).map_err(unread)?;
                self.trials_done += u64::from(result.trials);
                if let Some(slot) = self.runs[index].plain.get_mut((from / PLAIN_PART) as usize) {
                    *slot = Some(result);
                }
                self.sum(cell)?;
            }
            Part::Weighted { from, .. } => {
                let batch: Batch = serde_json::from_str(data).map_err(unread)?;
                let trials = batch.trials()?;
                let run = &mut self.runs[index];
                run.batches_back
                    .insert(from / crate::tools::explore::RARE_BATCH, trials);
                let Some((_, rare)) = &mut run.summed else {
                    return Ok(());
                };
                // Batches are added in order, each whole, and the estimate
                // is looked at between them, as one worker runs them.
                while !rare.done() {
                    let Some(batch) = run.batches_back.remove(&run.batches_added) else {
                        break;
                    };
                    self.trials_done += batch.len() as u64;
                    for (corrupted, weight) in batch {
                        rare.add(corrupted, weight);
                    }
                    run.batches_added += 1;
                }
                self.end_cell(cell)?;
            }
        }
        Ok(())
    }

    /// Sums `cell`'s plain trials and starts its estimate, once they and
    /// its threshold are all in.
    fn sum(&mut self, cell: u32) -> Result<(), String> {
        let index = cell as usize;
        let run = &self.runs[index];
        if run.summed.is_some() || self.cells[index].is_some() {
            return Ok(());
        }
        let key = self.key(cell)?;
        let Some(threshold) = self
            .thresholds
            .iter()
            .find_map(|(k, known)| known.filter(|_| *k == key))
        else {
            return Ok(());
        };
        // Summed once, when the last part is in: not again at each part.
        let Some(parts) = run.plain.iter().copied().collect::<Option<Vec<_>>>() else {
            return Ok(());
        };
        let Some((&first, rest)) = parts.split_first() else {
            return Ok(());
        };
        let result = rest.iter().fold(first, |sum, part| sum.merge(part));
        let rare = RareRun::start(&self.plan, &result, threshold).map_err(|e| format!("{e}."))?;
        self.runs[index].summed = Some((result, rare));
        self.end_cell(cell)
    }

    /// Ends `cell` if its estimate is over: its drawing's data, with the
    /// link to its first failing trial.
    fn end_cell(&mut self, cell: u32) -> Result<(), String> {
        let index = cell as usize;
        let run = &mut self.runs[index];
        if !run.summed.as_ref().is_some_and(|(_, rare)| rare.done()) {
            return Ok(());
        }
        let Some((result, rare)) = run.summed.take() else {
            return Ok(());
        };
        // What it kept of its parts is not needed again.
        *run = CellRun::default();
        let open_trial = result.first_corrupted.or(result.first_two_holders);
        let open = match open_trial {
            Some(trial) => trial_link(&self.plan, cell, trial)?,
            None => String::new(),
        };
        let rare = rare.finish();
        self.cells[index] = Some(CellData {
            result,
            open,
            open_trial,
            rare: Some(rare),
        });
        // The cells that run as this one take its numbers.
        for other in 0..self.cells.len() {
            if self.runs_as[other] != Some(cell) {
                continue;
            }
            let here = self.plan.cell(other as u32).map_err(|e| format!("{e}."))?;
            let open = match open_trial {
                Some(trial) => trial_link(&self.plan, other as u32, trial)?,
                None => String::new(),
            };
            self.cells[other] = Some(CellData {
                result: result.as_cell(&here),
                open,
                open_trial,
                rare: Some(rare.as_cell(&here)),
            });
        }
        Ok(())
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
        self.dealt.iter_mut().for_each(VecDeque::clear);
        self.ended = Some((now, words));
        crew(Crew::Dismiss);
    }

    fn post(&mut self, now: f64, send: &mut dyn FnMut(Reply)) {
        self.posted_ms = now;
        let end_ms = self.ended.as_ref().map_or(now, |(at, _)| *at);
        let elapsed_ms = (end_ms - self.started_ms).max(0.0) as u64;
        let rate = (self.trials_done * 1_000)
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

    /// Each part's data is what the command line's functions give for
    /// the same trials, the weights to the bit.
    #[test]
    fn a_part_runs_what_the_command_line_runs() {
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
        let part = |p: Part| run_part(&plan, 0, &serde_json::to_string(&p).unwrap()).unwrap();
        let plain: CellResult =
            serde_json::from_str(&part(Part::Plain { from: 10, to: 40 })).unwrap();
        assert_eq!(plain, run_trials(&plan, 0, 10..40).unwrap());
        let threshold: Threshold = serde_json::from_str(&part(Part::Threshold)).unwrap();
        let here = plan.cell(0).unwrap();
        assert_eq!(threshold, Threshold::find(&plan, here.backend, here.ttl_ms));
        let whole = run_trials(&plan, 0, 0..40).unwrap();
        let rare = RareRun::start(&plan, &whole, threshold).unwrap();
        let tilt = rare.tilt();
        assert!(!tilt.is_none(), "this cell weighs its rare trials");
        let batch: Batch = serde_json::from_str(&part(Part::Weighted {
            tilt,
            from: 0,
            to: 40,
        }))
        .unwrap();
        let mut expected = Vec::new();
        run_weighted(&plan, 0, tilt, 0..40, &mut |c, w| {
            expected.push((c, w.to_bits()))
        })
        .unwrap();
        let trials: Vec<(u64, u64)> = batch
            .trials()
            .unwrap()
            .iter()
            .map(|&(c, w)| (c, w.to_bits()))
            .collect();
        assert_eq!(trials, expected);
        assert!(
            expected.iter().any(|&(c, _)| c > 0),
            "some trial corrupts: {expected:?}"
        );
        for bad in [
            r#"{"weights":"3ff000000000000","corrupted":[]}"#,
            r#"{"weights":"3ff000000000000x","corrupted":[]}"#,
            r#"{"weights":"3ff0000000000000","corrupted":[[1,2]]}"#,
        ] {
            let batch: Batch = serde_json::from_str(bad).unwrap();
            assert!(batch.trials().is_err(), "{bad}");
        }
        assert!(run_part(&plan, 0, r#"{"plain":{"from":0}}"#)
            .unwrap_err()
            .starts_with("The part could not be read"));
        assert!(run_part(&plan, 1, &serde_json::to_string(&Part::Threshold).unwrap()).is_err());
    }
}
