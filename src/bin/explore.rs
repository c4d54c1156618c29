//! The hazard explorer on the command line: the same table as the page,
//! as CSV, on every core. `cargo run --release --bin explore -- --help`.

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
    use clap::Parser;
    use distlock::explore::{
        csv_header, csv_row, rebuild_trial, run_trials, Axis, CellResult, Check, PauseProfile,
        Pauses, Plan, PlanError, Preset, PLAN_VERSION,
    };
    use distlock::sim::{Backend, Fencing, Seed};
    use rayon::prelude::*;
    use std::io::Write;
    use std::process::ExitCode;
    use std::time::{Duration, Instant};

    /// Trials per unit of work handed to a thread: small enough to spread a
    /// single cell over every core, large enough to cost little to hand out.
    const CHUNK_TRIALS: u32 = 500;

    const ABOUT: &str = "How often does a distributed lock break? Runs seeded 60-second \
        trials of a lock workload on the simulator for each cell of a grid (TTL x pause \
        p99 or rate) and prints, per cell, P(corrupted write per lock hold) with its 95% \
        Wilson interval, P(two clients believe they hold), and one corrupted write every \
        how long at the production lock rate, as CSV.";

    const AFTER: &str = "Durations take units: 500us, 250ms, 2s, 1.5min. Rates: 10/s, 300/min, \
        12/h. Lists are comma-separated: --ttl 1s,5s,30s.\n\n\
        Same inputs, same numbers: on any machine, with any --threads, and split with \
        --shard (shard CSVs concatenate to the whole sweep's CSV).\n\n\
        Example:\n  explore --backend redis --profile jvm-g1 --ttl 1s,5s,10s \
        --p99-axis 1s,5s,20s --trials 20000 --fencing on";

    #[derive(Parser, Debug)]
    #[command(name = "explore", about = ABOUT, after_help = AFTER)]
    struct Args {
        /// The lock system: redis, redlock, zookeeper, etcd, chubby, consul,
        /// dynamodb or postgresql.
        #[arg(long, default_value = "etcd", value_parser = parse_backend)]
        backend: Backend,
        /// Whether the resource checks fencing tokens: on or off.
        #[arg(long, default_value = "off", value_parser = parse_fencing)]
        fencing: Fencing,
        /// Automatic renewal (keepalive, heartbeat, extension): on or off.
        #[arg(long, default_value = "on", value_parser = parse_on_off, action = clap::ArgAction::Set)]
        renewal: bool,
        /// Clients contending for the lock, 2 to 4.
        #[arg(long, default_value_t = 3)]
        clients: u8,
        /// How long a holder works under the lock before it writes.
        #[arg(long, default_value = "500ms", value_parser = parse_ms)]
        hold: u64,
        /// Mean idle time between a client's release and its next acquire
        /// (drawn evenly from none to twice this): how busy the lock is.
        #[arg(long, default_value = "15s", value_parser = parse_ms)]
        think: u64,
        /// When the application checks that it still holds the lock:
        /// at-acquire (a pause in the hold strikes between the check and the
        /// write) or before-write (it asks its lock library again after the
        /// work).
        #[arg(long, default_value = "at-acquire", value_parser = parse_check)]
        check: Check,
        /// Locks taken in production, for "one corrupted write every ...".
        #[arg(long, default_value = "10/s", value_parser = parse_rate)]
        lock_rate: u64,
        /// Pause profile: go, jvm-g1, jvm-cms-full, swap, network-delay, or
        /// custom (then give --pauses-per-hour, --median and --p99).
        #[arg(long, default_value = "jvm-g1")]
        profile: String,
        /// Pauses per hour per client (overrides the preset's).
        #[arg(long, value_parser = parse_thousandths)]
        pauses_per_hour: Option<u64>,
        /// Median pause length (overrides the preset's).
        #[arg(long, value_parser = parse_us)]
        median: Option<u64>,
        /// 99th-percentile pause length (overrides the preset's).
        #[arg(long, value_parser = parse_us)]
        p99: Option<u64>,
        /// TTLs, one column each (1s to 30s).
        #[arg(long, default_value = "1s,2s,5s,10s,30s", value_delimiter = ',', value_parser = parse_ms)]
        ttl: Vec<u64>,
        /// Rows: values of the pause p99 (the default is one row, the
        /// profile's own p99).
        #[arg(long, value_delimiter = ',', value_parser = parse_us, conflicts_with = "rate_axis")]
        p99_axis: Vec<u64>,
        /// Rows: values of the pauses per hour.
        #[arg(long, value_delimiter = ',', value_parser = parse_thousandths)]
        rate_axis: Vec<u64>,
        /// Trials per cell.
        #[arg(long, default_value_t = 1_000)]
        trials: u32,
        /// Master seed: every trial's seed derives from it, the cell and the
        /// trial's index.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Runs only shard I of N (1-based): a contiguous slice of the cells.
        /// Shard 1 prints the header.
        #[arg(long, value_parser = parse_shard)]
        shard: Option<(u32, u32)>,
        /// Leaves out the header line.
        #[arg(long)]
        no_header: bool,
        /// Worker threads (default: one per core). The numbers do not depend on it.
        #[arg(long)]
        threads: Option<usize>,
        /// Prints one trial (CELL/TRIAL) as a scenario in JSON, to load in
        /// the page, instead of the table.
        #[arg(long, value_parser = parse_shard)]
        rebuild: Option<(u32, u32)>,
        /// Lists the pause profiles with their sources, then exits.
        #[arg(long)]
        list_profiles: bool,
    }

    pub fn main() -> ExitCode {
        let args = Args::parse();
        if args.list_profiles {
            list_profiles();
            return ExitCode::SUCCESS;
        }
        let result = plan(&args).and_then(|plan| {
            plan.validate().map_err(|e| e.to_string())?;
            match args.rebuild {
                Some((cell, trial)) => rebuild(&plan, cell, trial),
                None => table(&plan, &args),
            }
        });
        match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("explore: {message}");
                ExitCode::from(2)
            }
        }
    }

    fn plan(args: &Args) -> Result<Plan, String> {
        let base = if args.profile == "custom" {
            let missing = |what| format!("a custom profile needs {what}");
            PauseProfile {
                per_kilohour: args
                    .pauses_per_hour
                    .ok_or_else(|| missing("--pauses-per-hour"))?,
                median_us: args.median.ok_or_else(|| missing("--median"))?,
                p99_us: args.p99.ok_or_else(|| missing("--p99"))?,
                ..PauseProfile::default()
            }
        } else {
            let preset = Preset::from_slug(&args.profile).ok_or_else(|| {
                let names: Vec<_> = Preset::ALL.iter().map(|p| p.slug()).collect();
                format!(
                    "no profile '{}': choose {} or custom",
                    args.profile,
                    names.join(", ")
                )
            })?;
            preset.profile()
        };
        let profile = PauseProfile {
            per_kilohour: args.pauses_per_hour.unwrap_or(base.per_kilohour),
            median_us: args.median.unwrap_or(base.median_us),
            p99_us: args.p99.unwrap_or(base.p99_us),
            ..base
        };
        let pauses = match Preset::from_slug(&args.profile) {
            Some(preset) if profile == preset.profile() => Pauses::Preset { preset },
            _ => Pauses::Custom { profile },
        };
        let axis = if !args.rate_axis.is_empty() {
            Axis::PerKilohour(args.rate_axis.clone())
        } else if !args.p99_axis.is_empty() {
            Axis::P99Us(args.p99_axis.clone())
        } else {
            Axis::P99Us(vec![profile.p99_us])
        };
        Ok(Plan {
            version: PLAN_VERSION,
            backend: args.backend,
            fencing: args.fencing,
            renewal: args.renewal,
            clients: args.clients,
            hold_ms: args.hold,
            think_ms: args.think,
            check: args.check,
            locks_per_hour: args.lock_rate,
            pauses,
            pause_max_us: None,
            ttls_ms: args.ttl.clone(),
            axis,
            trials: args.trials,
            seed: Seed(args.seed),
            ..Plan::default()
        })
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

    fn table(plan: &Plan, args: &Args) -> Result<(), String> {
        let cells = shard_cells(plan.cells(), args.shard)?;
        let header = !args.no_header && args.shard.is_none_or(|(i, _)| i == 1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(args.threads.unwrap_or(0))
            .build()
            .map_err(|e| format!("cannot start the worker threads: {e}"))?;
        let started = Instant::now();
        let results = pool.install(|| run_cells(plan, cells))?;
        let secs = started.elapsed().as_secs_f64();
        let mut out = std::io::stdout().lock();
        let mut text = if header { csv_header() } else { String::new() };
        for r in &results {
            text.push_str(&csv_row(plan, r));
        }
        out.write_all(text.as_bytes())
            .map_err(|e| format!("cannot write the table: {e}"))?;
        let trials: u64 = results.iter().map(|r| u64::from(r.trials)).sum();
        eprintln!(
            "explore: {trials} trials in {secs:.2} s on {} threads: {:.0} trials/s",
            pool.current_num_threads(),
            trials as f64 / secs.max(1e-9)
        );
        Ok(())
    }

    /// Every cell in `cells`, each cut in chunks of trials that run on any
    /// thread; the chunks' counts are summed per cell, which gives the same
    /// result whatever the order.
    fn run_cells(plan: &Plan, cells: std::ops::Range<u32>) -> Result<Vec<CellResult>, String> {
        let chunks: Vec<(u32, u32)> = cells
            .clone()
            .flat_map(|cell| (0..plan.trials.div_ceil(CHUNK_TRIALS)).map(move |k| (cell, k)))
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

    fn parse_backend(s: &str) -> Result<Backend, String> {
        Backend::from_slug(s).ok_or_else(|| {
            let names: Vec<_> = Backend::ALL.iter().map(|b| b.slug()).collect();
            format!("no lock system '{s}': choose {}", names.join(", "))
        })
    }

    fn parse_on_off(s: &str) -> Result<bool, String> {
        match s {
            "on" => Ok(true),
            "off" => Ok(false),
            _ => Err(format!("'{s}': say on or off")),
        }
    }

    fn parse_fencing(s: &str) -> Result<Fencing, String> {
        parse_on_off(s).map(|on| if on { Fencing::On } else { Fencing::Off })
    }

    fn parse_check(s: &str) -> Result<Check, String> {
        match s {
            "at-acquire" => Ok(Check::AtAcquire),
            "before-write" => Ok(Check::BeforeWrite),
            _ => Err(format!("'{s}': say at-acquire or before-write")),
        }
    }

    fn parse_duration(s: &str) -> Result<Duration, String> {
        humantime::parse_duration(s).map_err(|e| format!("'{s}' is not a duration ({e})"))
    }

    fn parse_ms(s: &str) -> Result<u64, String> {
        let d = parse_duration(s)?;
        if d.as_micros() % 1_000 != 0 {
            return Err(format!("'{s}': whole milliseconds only"));
        }
        u64::try_from(d.as_millis()).map_err(|_| format!("'{s}' is too long"))
    }

    fn parse_us(s: &str) -> Result<u64, String> {
        let d = parse_duration(s)?;
        u64::try_from(d.as_micros()).map_err(|_| format!("'{s}' is too long"))
    }

    /// A decimal number with up to three places, in thousandths: "0.042"
    /// is 42, "12" is 12,000. No floats: the plan stays exact.
    fn parse_thousandths(s: &str) -> Result<u64, String> {
        let bad = || format!("'{s}' is not a number with at most three decimals");
        let (int, frac) = s.split_once('.').unwrap_or((s, ""));
        if frac.len() > 3 || (int.is_empty() && frac.is_empty()) {
            return Err(bad());
        }
        let digits = |t: &str| t.is_empty() || t.bytes().all(|b| b.is_ascii_digit());
        if !digits(int) || !digits(frac) {
            return Err(bad());
        }
        let int: u64 = if int.is_empty() {
            0
        } else {
            int.parse().map_err(|_| bad())?
        };
        let frac: u64 = format!("{frac:0<3}").parse().map_err(|_| bad())?;
        int.checked_mul(1_000)
            .and_then(|v| v.checked_add(frac))
            .ok_or_else(bad)
    }

    /// "10/s", "300/min", "12/h" to locks per hour.
    fn parse_rate(s: &str) -> Result<u64, String> {
        let (count, unit) = s
            .split_once('/')
            .ok_or_else(|| format!("'{s}': give a rate like 10/s, 300/min or 12/h"))?;
        let per_hour = match unit {
            "s" | "sec" => 3_600,
            "m" | "min" => 60,
            "h" | "hour" => 1,
            _ => return Err(format!("'{s}': the unit is s, min or h")),
        };
        let thousandths = parse_thousandths(count)?;
        Ok(thousandths * per_hour / 1_000)
    }

    /// "I/N": two numbers with a slash.
    fn parse_shard(s: &str) -> Result<(u32, u32), String> {
        let bad = || format!("'{s}': give two numbers like 2/8");
        let (a, b) = s.split_once('/').ok_or_else(bad)?;
        Ok((a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?))
    }
}
