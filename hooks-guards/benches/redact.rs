//! Time of the secret redactor ([`hookwright_guards::secrets::redact_output`]) per KB of
//! typical tool output (a build and test log, Rust source, JSON lines: words like `key`,
//! `token` and `password` included, so the keyword prefilter lets rules run), without secrets
//! and with one secret every 2 KB; and, printed first, the first call's time in a fresh
//! process (the rule file read and the rules its keywords call for compiled), which a hook
//! process pays once.
//!
//! `cargo bench -p hookwright-guards --bench redact`

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group};
use hookwright_guards::secrets::redact_output;

/// One block of typical output, about 1 KB.
const BLOCK: &str = r#"   Compiling serde v1.0.229
   Compiling hookwright-guards v0.1.0 (/work/hooks-guards)
warning: unused variable: `token_count`
  --> src/lib.rs:42:9
test secrets::an_assignment_keeps_its_key ... ok
test judge::git_reset_hard_is_blocked ... ok
fn load(path: &Path) -> Result<Config, Error> {
    let key = config.primary_key.clone();
    let password = read_password()?;
    Ok(Config { key, password_field: None })
}
{"id": "3f2b9c4e-8d1a-4b7e-9f0c-2a6d5e8b1c3f", "status": "ok", "elapsed_ms": 12}
{"id": "7a1e4d2c-5b9f-4c3a-8e6d-1f0b2a9c7e4d", "status": "ok", "elapsed_ms": 9}
2026-12-02T06:13:25Z INFO request handled path=/api/v1/items status=200 auth=session
commit 1a52415130fffec249e3c8adde72f58e3c4d6de0
Author: A Developer <dev@example.com>
    Rotate the access token docs; explain the API key setup
sha256:9b74c9897bac770ffc029102a200c5de7f1e4f6f1d8e2a3b4c5d6e7f8a9b0c1d
"#;

/// `kb` KB of typical output; with `secrets`, one secret every second block.
fn output(kb: usize, secrets: bool) -> String {
    let key = ["AKIA", "Z7QK2M4WXN5RJ3VB"].concat();
    let pat = ["ghp_", "Zq4Lm8Rt2Vx6Bn0Kc3Hj7Wp1Ys5Dg9Fa2Ue4T"].concat();
    let mut text = String::new();
    let mut block = 0;
    while text.len() < kb * 1024 {
        text.push_str(BLOCK);
        if secrets && block % 2 == 1 {
            if block % 4 == 1 {
                text.push_str(&format!("aws_access_key_id = {key}\n"));
            } else {
                text.push_str(&format!("GITHUB_TOKEN={pat}\n"));
            }
        }
        block += 1;
    }
    text
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("redact");
    for (name, secrets) in [("clean", false), ("secrets", true)] {
        let text = output(16, secrets);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(format!("16KB {name}"), |b| {
            b.iter(|| redact_output(black_box(&text)));
        });
    }
    group.finish();
}

criterion_group! {
    name = group;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    targets = benches
}

fn main() {
    let text = output(16, true);
    let start = Instant::now();
    let redacted = redact_output(&text);
    println!(
        "first call (rules read, the rules its keywords call for compiled): {:?}",
        start.elapsed()
    );
    assert!(redacted.contains("[redacted:aws-access-token]"));
    assert!(redacted.contains("[redacted:github-pat]"));
    group();
    Criterion::default().configure_from_args().final_summary();
}
