//! Writes a realistic generated vault for benchmarks and manual testing.
//!
//! `cargo run -p almanac-core --release --example gen_vault -- DIR 10000`
//! creates `DIR/events` (Full Note calendar, source dir `events`) and
//! `DIR/journal` (daily notes under `## Events`).

#[path = "support/vault_gen.rs"]
mod vault_gen;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(dir), Some(count)) = (
        args.next(),
        args.next().and_then(|n| n.parse::<usize>().ok()),
    ) else {
        eprintln!("usage: gen_vault DIR NOTES");
        std::process::exit(2);
    };
    let started = std::time::Instant::now();
    if let Err(e) = vault_gen::generate(std::path::Path::new(&dir), count) {
        eprintln!("gen_vault: {e}");
        std::process::exit(1);
    }
    println!("wrote {count} notes to {dir} in {:.1?}", started.elapsed());
}
