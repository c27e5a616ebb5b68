//! Time per decision in process ([`hookwright_guards::check_command`]) over dcg's corpus (the
//! commands of hooks-guards/tests/corpus): criterion's estimate for a pass over the whole
//! corpus and for three typical commands, then the median and p99 over the corpus' commands of
//! each command's own median time (targets: median <= 20 us, p99 <= 200 us for commands under
//! 1 KB); and what the hook adds per call, the look at the configuration files.
//!
//! `cargo bench -p hookwright-guards --bench decision`

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};

#[path = "../tests/support/dcg.rs"]
mod dcg;

/// Every command of the corpus, as written.
fn corpus() -> Vec<String> {
    dcg::commands(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus"))
}

/// Each command's median over `runs` runs, sorted.
fn per_command_medians(commands: &[String], runs: usize) -> Vec<Duration> {
    let mut medians: Vec<Duration> = commands
        .iter()
        .map(|command| {
            let mut times: Vec<Duration> = (0..runs)
                .map(|_| {
                    let start = Instant::now();
                    black_box(hookwright_guards::check_command(black_box(command)));
                    start.elapsed()
                })
                .collect();
            times.sort();
            times[runs / 2]
        })
        .collect();
    medians.sort();
    medians
}

fn decision(c: &mut Criterion) {
    let commands = corpus();
    assert!(
        commands.len() > 300,
        "the corpus has {} commands",
        commands.len()
    );
    let short: Vec<String> = commands
        .iter()
        .filter(|c| c.len() < 1024)
        .cloned()
        .collect();
    let medians = per_command_medians(&short, 51);
    let at = |q: f64| medians[((medians.len() - 1) as f64 * q).round() as usize];
    println!(
        "per decision over {} corpus commands under 1 KB (each command's median of 51 runs): \
         median {:?}, p90 {:?}, p99 {:?}, max {:?}",
        medians.len(),
        at(0.5),
        at(0.9),
        at(0.99),
        medians[medians.len() - 1]
    );
    let mut group = c.benchmark_group("decision");
    group.bench_function("whole corpus (one pass)", |b| {
        b.iter(|| {
            for command in &commands {
                black_box(hookwright_guards::check_command(black_box(command)));
            }
        });
    });
    for command in [
        "git status",
        "git reset --hard",
        "cd src && cargo build && rm -rf /tmp/build && bash -c 'git clean -fd'",
    ] {
        group.bench_function(command, |b| {
            b.iter(|| black_box(hookwright_guards::check_command(black_box(command))));
        });
    }
    // What the hook adds per call: looking whether the two configuration files changed (two
    // `stat`s and the cache), here with a user file present and unchanged.
    let dir = std::env::temp_dir().join(format!("hooks-guards-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let user = dir.join("guards.toml");
    std::fs::write(
        &user,
        "[rules]\ndisable = [\"core.git:branch-force-delete\"]\n[allow]\npaths = [\"/srv/ci\"]\n",
    )
    .expect("write");
    group.bench_function("configuration lookup (files unchanged)", |b| {
        b.iter(|| black_box(hookwright_guards::config::load_with(Some(&user), &dir)).is_ok());
    });
    let config = hookwright_guards::config::load_with(Some(&user), &dir).expect("valid");
    group.bench_function("git reset --hard under a configuration", |b| {
        b.iter(|| {
            black_box(hookwright_guards::judge_command(
                &config,
                black_box("git reset --hard"),
            ))
        });
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    targets = decision
}
criterion_main!(benches);
