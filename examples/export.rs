//! Writes a run as a history another tool reads, the same bytes the
//! page's export buttons save:
//!
//!     cargo run --release --example export -- LINK FORMAT
//!
//! LINK is the page's address with its run, or the run's fragment alone
//! (`#v1.…` or `v1.…`); FORMAT is `edn` (a Jepsen history), `porcupine`
//! (Porcupine's operation log) or `itf` (an ITF trace for Apalache and
//! Quint). docs/exports.md shows each. A link or format that cannot be
//! read is said on stderr, with exit code 2.

use distlock::wire::export::{self, Format};
use std::io::Write;
use std::process::ExitCode;

const USAGE: &str = "usage: export LINK FORMAT\n  LINK    the page's address with its run, or its #v1.… fragment\n  FORMAT  edn | porcupine | itf";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [link, format] = args.as_slice() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let Some(format) = Format::from_slug(format) else {
        eprintln!("There is no format \"{format}\": it is edn, porcupine or itf.\n{USAGE}");
        return ExitCode::from(2);
    };
    match export::from_link(link, format) {
        Ok(text) => {
            let mut out = std::io::stdout().lock();
            if out
                .write_all(text.as_bytes())
                .and_then(|_| out.flush())
                .is_err()
            {
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("{why}");
            ExitCode::from(2)
        }
    }
}
