//! Prints the comparison of every lock system, as the page computes it:
//! `cargo run --release --example compare`.

use distlock::lesson::compare::{matrix, COLUMNS};

fn main() {
    let rows = matrix();
    print!("{:<11}", "");
    for c in COLUMNS {
        print!("| {:<36}", c.title);
    }
    println!("| acquire");
    for row in rows {
        print!("{:<11}", row.backend.name());
        for [off, on] in &row.cells {
            print!("| {:<17} {:<18}", off.outcome.word(), on.outcome.word());
        }
        println!("| {} ms", row.acquire_ms);
    }
}
