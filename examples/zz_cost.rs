use distlock::tools::explore::form::{plan_json, plan_of, read_plan};
use distlock::tools::explore::*;
use std::time::Instant;
fn main() {
    let plan = plan_of("").unwrap();
    let json = plan_json(&plan);
    println!("plan json {} bytes", json.len());
    let t = Instant::now();
    for _ in 0..1000 {
        let p = read_plan(&json).unwrap();
        std::hint::black_box(p);
    }
    println!("read_plan {:?} each", t.elapsed() / 1000);
    let t = Instant::now();
    for _ in 0..1000 {
        plan.validate().unwrap();
    }
    println!("validate {:?} each", t.elapsed() / 1000);
    let t = Instant::now();
    let mut n = 0;
    run_weighted(&plan, 0, Tilt::NONE, 0..500, &mut |_, _| n += 1).unwrap();
    println!("500 trials {:?}", t.elapsed());
    let pairs: Vec<(u64, u64)> = (0..500)
        .map(|i| (i % 3, (0.123456789f64 * i as f64).to_bits()))
        .collect();
    let t = Instant::now();
    let s = serde_json::to_string(&pairs).unwrap();
    let back: Vec<(u64, u64)> = serde_json::from_str(&s).unwrap();
    println!("pairs json {} bytes, {:?} write+read", s.len(), t.elapsed());
    std::hint::black_box(back);
}
