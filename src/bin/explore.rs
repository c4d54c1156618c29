//! The hazard explorer on the command line: the same table as the page,
//! as CSV, on every core. `cargo run --release --bin explore -- --help`.
//!
//! Its settings are the page's form's fields, by the same names and read
//! by the same reader (`tools::explore::form::plan_of`): `--NAME VALUE` for each, or
//! a page's address whole with `--query`, so the command line and the
//! page cannot read a setting differently.

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    native::main()
}

/// The command line is native only: in a page the explorer runs in Web
/// Workers. This keeps `cargo build --target wasm32-unknown-unknown`
/// building every bin.
#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use distlock::cli::value;
    use distlock::tools::explore::form::{plan_of, FIELDS};
    use distlock::tools::explore::{
        csv_header, csv_row, rebuild_trial, run_trials, CellResult, Plan, PlanError, Preset, Rare,
        Threshold,
    };
    use rayon::prelude::*;
    use std::io::Write;
    use std::process::ExitCode;
    use std::time::Instant;

    /// Trials per unit of work handed to a thread: small enough to spread a
    /// single cell over every core, large enough to cost little to hand out.
    const CHUNK_TRIALS: u32 = 500;

    const ABOUT: &str = "\
explore: how often does a distributed lock break?

Runs seeded 60-second trials of a lock workload on the simulator for each
cell of a grid (TTLs across, a second axis down) and prints, per cell,
P(corrupted write per lock hold) with its 95% interval over trials,
P(two clients believe they hold), one corrupted write every how long at the
production lock rate, and the settings the row ran at, as CSV.

Usage: explore [--NAME VALUE ...] [--query QUERY] [options] > table.csv

Settings: the page's form's fields (\"How likely?\"), read by the page's own
reader; units as the form's labels say (ms, s, per hour). Unset fields take
the form's defaults.";

    const AFTER: &str = "\
  --query QUERY       the fields as a query string: a page's address
                      (?explore&system=redlock&ttls=1%2C+5) or name=value pairs;
                      flags given after it override its fields

Options:
  --shard I/N         runs only shard I of N (1-based), a contiguous slice of the
                      cells; shard 1 prints the header, so the shards' CSVs
                      concatenate to the whole sweep's, byte for byte
  --no-header         leaves out the header line
  --threads N         worker threads (default: one per core); never changes a number
  --rebuild CELL/TRIAL  prints one trial as a scenario in JSON, the file the page
                      loads, instead of the table
  --list-profiles     lists the pause profiles with their sources
  --help              this text

Example (etcd and Redlock meeting the same pauses, G1's capped at 20 s,
cross-region, fencing on):
  explore --axis system --values etcd,redlock --ttls 5,10,30 --max 20000 \\
      --latency cross-region --fencing on --trials 20000";

    /// The arguments, read.
    struct Args {
        plan: Plan,
        shard: Option<(u32, u32)>,
        header: bool,
        threads: Option<usize>,
        rebuild: Option<(u32, u32)>,
    }

    /// What the command line asks for.
    enum Asked {
        Run(Box<Args>),
        Help,
        Profiles,
    }

    pub fn main() -> ExitCode {
        let result = match read_args() {
            Ok(Asked::Help) => {
                println!("{}", usage());
                return ExitCode::SUCCESS;
            }
            Ok(Asked::Profiles) => {
                list_profiles();
                return ExitCode::SUCCESS;
            }
            Ok(Asked::Run(args)) => match args.rebuild {
                Some((cell, trial)) => rebuild(&args.plan, cell, trial),
                None => table(&args),
            },
            Err(message) => Err(message),
        };
        match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("explore: {message}");
                ExitCode::from(2)
            }
        }
    }

    /// The help text: the settings listed from the form's own fields.
    fn usage() -> String {
        let mut s = format!("{ABOUT}\n\nSettings (--NAME VALUE, default in brackets):\n");
        for (name, label, default) in FIELDS {
            let default = if default.is_empty() { "none" } else { default };
            s.push_str(&format!("  --{name:<16} {label} [{default}]\n"));
        }
        s.push_str("  Choices: --system redis, redlock, zookeeper, etcd, chubby, consul,\n");
        s.push_str("  dynamodb, postgresql; --fencing and --renewal on or off; --check\n");
        s.push_str("  at-acquire or before-write; --pauses a preset (--list-profiles),\n");
        s.push_str("  custom (--per-hour, --median, --p99) or histogram (--hist-per-hour,\n");
        s.push_str("  --hist \"20:5;100:40;2000:3\"); --latency one-zone, cross-zone,\n");
        s.push_str("  cross-region or slowed-10x; --keepalives os or tuned; --axis p99,\n");
        s.push_str("  rate, max (longest pause, s) or system (--values names systems).\n");
        s.push_str(AFTER);
        s
    }

    /// The arguments: the form's fields gathered into one query string
    /// and read by the worker's reader; the rest are the command line's.
    fn read_args() -> Result<Asked, String> {
        use lexopt::prelude::*;
        let names: Vec<&str> = FIELDS.iter().map(|f| f.0).collect();
        let mut parser = lexopt::Parser::from_env();
        let mut query: Vec<String> = Vec::new();
        let (mut shard, mut header, mut threads, mut rebuild) = (None, true, None, None);
        while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
            match arg {
                Long("help") | Short('h') => return Ok(Asked::Help),
                Long("list-profiles") => return Ok(Asked::Profiles),
                Long("query") => {
                    // A whole address is fine: its query is what counts.
                    let v = value(&mut parser)?;
                    let v = v.split_once('?').map_or(v.as_str(), |(_, q)| q);
                    query.push(v.split('#').next().unwrap_or_default().to_string());
                }
                Long("shard") => shard = Some(pair("--shard", &value(&mut parser)?)?),
                Long("no-header") => header = false,
                Long("threads") => {
                    let v = value(&mut parser)?;
                    threads = Some(v.parse().map_err(|_| format!("--threads: {v:?}"))?);
                }
                Long("rebuild") => rebuild = Some(pair("--rebuild", &value(&mut parser)?)?),
                Long(name) if names.contains(&name) => {
                    let name = name.to_string();
                    query.push(format!("{name}={}", encoded(&value(&mut parser)?)));
                }
                _ => {
                    return Err(format!(
                        "{} (explore --help lists the settings)",
                        arg.unexpected()
                    ))
                }
            }
        }
        // A later field wins over an earlier one, as in the page's reader.
        let plan = plan_of(&query.join("&")).map_err(|why| why.replace('\n', "\n  "))?;
        Ok(Asked::Run(Box::new(Args {
            plan,
            shard,
            header,
            threads,
            rebuild,
        })))
    }

    /// A value as a query carries it: the reader decodes `+` and `%XX`,
    /// and `&` would end the pair.
    fn encoded(v: &str) -> String {
        v.replace('%', "%25")
            .replace('+', "%2B")
            .replace('&', "%26")
    }

    /// "I/N": two numbers with a slash.
    fn pair(flag: &str, s: &str) -> Result<(u32, u32), String> {
        let bad = || format!("{flag} {s:?}: give two numbers like 2/8");
        let (a, b) = s.split_once('/').ok_or_else(bad)?;
        Ok((a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?))
    }

    /// The cells of shard `i` of `n`: a contiguous slice, so that shards in
    /// order cover the grid in order.
    fn shard_cells(cells: u32, shard: Option<(u32, u32)>) -> Result<std::ops::Range<u32>, String> {
        let Some((i, n)) = shard else {
            return Ok(0..cells);
        };
        if n == 0 || !(1..=n).contains(&i) {
            return Err(format!("--shard {i}/{n}: I must be from 1 to N"));
        }
        let bound = |k: u32| (u64::from(k) * u64::from(cells) / u64::from(n)) as u32;
        Ok(bound(i - 1)..bound(i))
    }

    fn table(args: &Args) -> Result<(), String> {
        let plan = &args.plan;
        let cells = shard_cells(plan.cells(), args.shard)?;
        let header = args.header && args.shard.is_none_or(|(i, _)| i == 1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(args.threads.unwrap_or(0))
            .build()
            .map_err(|e| format!("cannot start the worker threads: {e}"))?;
        // A cell that runs exactly as an earlier one of this shard (etcd's
        // 1 s column as its 2 s one) takes that cell's numbers; the rest run.
        let every = plan.runs_as();
        let runs_as: std::collections::BTreeMap<u32, u32> = cells
            .clone()
            .filter_map(|cell| {
                let source = every[cell as usize].filter(|s| cells.contains(s))?;
                Some((cell, source))
            })
            .collect();
        let own: Vec<u32> = cells.clone().filter(|c| !runs_as.contains_key(c)).collect();
        let started = Instant::now();
        let results = pool.install(|| run_cells(plan, &own))?;
        let secs = started.elapsed().as_secs_f64();
        let rare_started = Instant::now();
        // A threshold a system and TTL, shared by the rows that differ
        // only in their pauses.
        let mut thresholds = std::collections::BTreeMap::new();
        for r in &results {
            let cell = plan.cell(r.cell).map_err(|e| e.to_string())?;
            thresholds
                .entry((cell.backend, cell.ttl_ms))
                .or_insert(None);
        }
        let found: Vec<Threshold> = pool.install(|| {
            thresholds
                .keys()
                .collect::<Vec<_>>()
                .into_par_iter()
                .map(|&(backend, ttl_ms)| Threshold::find(plan, backend, ttl_ms))
                .collect()
        });
        for t in found {
            thresholds.insert((t.backend, t.ttl_ms), Some(t));
        }
        let rares: Vec<Rare> = pool
            .install(|| {
                results
                    .par_iter()
                    .map(|r| {
                        let cell = plan.cell(r.cell)?;
                        let threshold = thresholds[&(cell.backend, cell.ttl_ms)]
                            .expect("every system and TTL has its threshold");
                        Rare::of(plan, r, threshold, &mut |_| {})
                    })
                    .collect::<Result<Vec<Rare>, PlanError>>()
            })
            .map_err(|e| e.to_string())?;
        let rare_secs = rare_started.elapsed().as_secs_f64();
        let ran: std::collections::BTreeMap<u32, (&CellResult, &Rare)> = results
            .iter()
            .zip(&rares)
            .map(|(r, rare)| (r.cell, (r, rare)))
            .collect();
        let mut out = std::io::stdout().lock();
        let mut text = if header { csv_header() } else { String::new() };
        for cell in cells {
            let (r, rare) = match runs_as.get(&cell) {
                Some(source) => {
                    let (r, rare) = ran[source];
                    let here = plan.cell(cell).map_err(|e| e.to_string())?;
                    (r.as_cell(&here), rare.as_cell(&here))
                }
                None => (*ran[&cell].0, *ran[&cell].1),
            };
            text.push_str(&csv_row(plan, &r, Some(&rare)));
        }
        out.write_all(text.as_bytes())
            .map_err(|e| format!("cannot write the table: {e}"))?;
        let trials: u64 = results.iter().map(|r| u64::from(r.trials)).sum();
        eprintln!(
            "explore: {trials} trials in {secs:.2} s on {} threads: {:.0} trials/s",
            pool.current_num_threads(),
            trials as f64 / secs.max(1e-9)
        );
        let weighted: u64 = rares
            .iter()
            .filter_map(|r| r.weighted.map(|w| u64::from(w.trials)))
            .sum();
        eprintln!(
            "explore: thresholds and rare-event estimates in {rare_secs:.2} s ({weighted} weighted trials)"
        );
        if !runs_as.is_empty() {
            eprintln!(
                "explore: {} cells run as another (the same system, pauses and granted lease) and take its numbers",
                runs_as.len()
            );
        }
        Ok(())
    }

    /// Every cell in `cells`, each cut in chunks of trials that run on any
    /// thread; the chunks' counts are summed per cell, which gives the same
    /// result whatever the order.
    fn run_cells(plan: &Plan, cells: &[u32]) -> Result<Vec<CellResult>, String> {
        let chunks: Vec<(u32, u32)> = cells
            .iter()
            .flat_map(|&cell| (0..plan.trials.div_ceil(CHUNK_TRIALS)).map(move |k| (cell, k)))
            .collect();
        let parts: Vec<CellResult> = chunks
            .into_par_iter()
            .map(|(cell, k)| {
                let from = k * CHUNK_TRIALS;
                let to = (from + CHUNK_TRIALS).min(plan.trials);
                run_trials(plan, cell, from..to)
            })
            .collect::<Result<_, PlanError>>()
            .map_err(|e| e.to_string())?;
        let mut results: Vec<CellResult> = Vec::new();
        for part in parts {
            match results.last_mut() {
                Some(last) if last.cell == part.cell => *last = last.merge(&part),
                _ => results.push(part),
            }
        }
        Ok(results)
    }

    fn rebuild(plan: &Plan, cell: u32, trial: u32) -> Result<(), String> {
        let run = rebuild_trial(plan, cell, trial).map_err(|e| e.to_string())?;
        println!("{}", run.scenario.to_json());
        let c = run.counts;
        eprintln!(
            "explore: cell {cell} trial {trial}: play to {}; {} holds, {} corrupted, {} saved \
             by fencing, {} stretches of two believed holders, {} pauses",
            run.end, c.holds, c.corrupted, c.saved, c.two_holders, c.pauses
        );
        Ok(())
    }

    fn list_profiles() {
        for preset in Preset::ALL {
            let p = preset.profile();
            println!(
                "{} ({}): {} pauses/hour, median {} us, p99 {} us\n  {}\n",
                preset.slug(),
                preset.name(),
                p.per_hour(),
                p.median_us,
                p.p99_us,
                preset.source()
            );
        }
    }
}
