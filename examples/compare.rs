//! Prints the comparison of every lock system as a Markdown table, computed
//! as the page computes it: `cargo run --release --example compare`.

use distlock::lesson::compare::{matrix, COLUMNS};

fn main() {
    let rows = matrix();
    let fastest = rows.iter().map(|r| r.acquire_ms).min().unwrap_or(1).max(1);
    print!("| System | Token | Monotonic | Acquire |");
    for c in COLUMNS {
        print!(" {} (off / on) |", c.title);
    }
    println!();
    print!("|---|---|---|---|");
    for _ in COLUMNS {
        print!("---|");
    }
    println!();
    for row in rows {
        let b = row.backend;
        print!(
            "| {} | {} | {} | {} ms ({}x) |",
            b.name(),
            b.token_short(),
            if b.monotonic_tokens() { "yes" } else { "no" },
            row.acquire_ms,
            (row.acquire_ms + fastest / 2) / fastest
        );
        for [off, on] in &row.cells {
            let (a, b) = (off.outcome.word(), on.outcome.word());
            if a == b {
                print!(" {a} |");
            } else {
                print!(" {a} / {b} |");
            }
        }
        println!();
    }
}
