//! `curve-cases` as the TypeScript SDK's differential test runs it (`clients/ts/test/differential.test.ts`):
//! the same seed gives the same lines on every run, the six pinned configs come first, and every other line
//! names a function and carries its result or its error.
//!
//! Also the reason this binary is built by `cargo test --workspace` itself: `scripts/test` hands it to the
//! SDK's tests from that build (a `cargo build -p curve-cases` resolves other features and rebuilt half the
//! dependency tree).

use serde_json::Value;
use std::process::Command;

fn run(seed: &str, count: &str) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_curve-cases"))
        .args(["--seed", seed, "--count", count])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn a_seed_gives_the_same_cases_every_run_configs_first() {
    let first = run("7", "20");
    assert_eq!(first, run("7", "20"));
    assert_ne!(first, run("8", "20"));
    let (configs, cases) = first.split_at(6);
    for (i, c) in configs.iter().enumerate() {
        assert_eq!(c["fn"], "config");
        assert_eq!(c["idx"], i);
    }
    assert!(cases.len() >= 20, "{}", cases.len());
    for case in cases {
        let f = case["fn"].as_str().unwrap();
        assert_ne!(f, "config");
        assert!(!case["result"].is_null(), "{f} without a result: {case}");
    }
}
