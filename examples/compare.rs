//! Prints the comparison of every lock system as a Markdown table, computed
//! as the page computes it: `cargo run --release --example compare`. The
//! table in docs/systems.md is this output (a test checks that they match).

fn main() {
    print!("{}", distlock::tools::compare::markdown());
}
