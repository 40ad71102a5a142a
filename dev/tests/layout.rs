//! The workspace's layout, checked: the crate arrows run one way (the production API links no development
//! chain and no indexer; the database crate uses neither the indexer nor the API; the aggregator and the
//! crates it shares with the API sit below the API), no crate's modules import each other in a circle (the
//! write side of the index never reaches its read side), the EVM swap and cross-chain aggregator
//! (`crates/aggregator`) is entered only through its surface, `api/src` is in folders that say what they
//! are, and no crate grows back into one: the API's own code stays under a quarter of the workspace's, and
//! no file above 700 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `cargo metadata`: each workspace package's name, and the names of the packages its normal (not dev,
/// not build) dependencies reach, transitively.
fn normal_closures() -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(workspace())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let name_of: BTreeMap<&str, &str> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    let deps: BTreeMap<&str, Vec<&str>> = meta["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            let normal = n["deps"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| {
                    d["dep_kinds"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|k| k["kind"].is_null())
                })
                .map(|d| d["pkg"].as_str().unwrap())
                .collect();
            (n["id"].as_str().unwrap(), normal)
        })
        .collect();
    let mut closures = BTreeMap::new();
    for member in meta["workspace_members"].as_array().unwrap() {
        let root = member.as_str().unwrap();
        let mut seen = BTreeSet::new();
        let mut stack = vec![root];
        while let Some(id) = stack.pop() {
            for d in &deps[id] {
                if seen.insert(*d) {
                    stack.push(d);
                }
            }
        }
        closures.insert(
            name_of[root].to_string(),
            seen.iter().map(|id| name_of[id].to_string()).collect(),
        );
    }
    closures
}

#[test]
fn the_crate_arrows_run_one_way() {
    let closures = normal_closures();
    let reaches = |from: &str, to: &str| closures[from].contains(to);
    // The production API: no development chain, no embedded bank.
    for dev_only in ["localnet", "solana-runtime", "solana-program-test", "dev"] {
        assert!(!reaches("api", dev_only), "api links {dev_only}");
    }
    // The database serves both sides and depends on neither.
    for user in ["indexer", "api", "dev", "localnet"] {
        assert!(!reaches("launchpad-index", user), "index uses {user}");
    }
    assert!(reaches("indexer", "launchpad-index"));
    assert!(reaches("api", "launchpad-index"));
    assert!(!reaches("indexer", "api"), "indexer uses api");
    // The aggregator is mounted by the API, never the other way; what both speak sits below both.
    assert!(reaches("api", "aggregator"));
    for below in ["launchpad-web", "swap-core"] {
        assert!(
            reaches("api", below) && reaches("aggregator", below),
            "{below}"
        );
        for above in ["api", "aggregator", "indexer", "localnet"] {
            assert!(!reaches(below, above), "{below} uses {above}");
        }
    }
    assert!(!reaches("launchpad-web", "swap-core"), "web uses swap-core");
    for above in ["api", "indexer", "localnet", "dev"] {
        assert!(!reaches("aggregator", above), "aggregator uses {above}");
    }
    // The math is pure.
    for solana in ["anchor-lang", "solana-program", "launchpad-sdk"] {
        assert!(!reaches("launchpad-curve", solana), "curve uses {solana}");
    }
    // Nothing but the development stack is built on it.
    for (name, closure) in &closures {
        assert!(!closure.contains("dev"), "{name} uses dev");
    }
}

/// A crate's modules (`a::b` for `src/a/b.rs` or `src/a/b/mod.rs`; `` for `lib.rs`) and, for each, the
/// modules its code (tests excluded) names through `crate::`, `super::` or child-module paths.
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    fn files(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "bin") {
                    files(&path, out);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    files(src, &mut paths);
    let module_of = |path: &Path| -> Vec<String> {
        let rel = path.strip_prefix(src).unwrap().with_extension("");
        let mut parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if matches!(
            parts.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            parts.pop();
        }
        parts
    };
    let modules: BTreeSet<Vec<String>> = paths.iter().map(|p| module_of(p)).collect();
    let path_re = regex::Regex::new(r"\b(crate|super)((?:::[a-z_][a-z0-9_]*)+)").unwrap();
    // A path relative to the module itself: `write::apply` in `store/mod.rs` names `store::write`.
    let child_re = regex::Regex::new(r"(?:^|[^:\w])([a-z_][a-z0-9_]*)::").unwrap();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in &paths {
        let me = module_of(path);
        let text = std::fs::read_to_string(path).unwrap();
        // Tests may reach anywhere; the layering is about the code that ships.
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        let mut targets = BTreeSet::new();
        for line in code.lines() {
            let line = line.trim_start();
            if line.starts_with("//") {
                continue;
            }
            for cap in path_re.captures_iter(line) {
                let mut target: Vec<String> = if &cap[1] == "crate" {
                    Vec::new()
                } else {
                    me[..me.len().saturating_sub(1)].to_vec()
                };
                let rest: Vec<String> = cap[2]
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect();
                // The deepest module the path names.
                let mut deepest = target.clone();
                for seg in rest {
                    target.push(seg);
                    if modules.contains(&target) {
                        deepest = target.clone();
                    }
                }
                // A module naming its own ancestor (the namespace that declares it) is not an arrow.
                if deepest.len() < me.len() && me.starts_with(&deepest) || deepest == me {
                    continue;
                }
                targets.insert(deepest.join("::"));
            }
            for cap in child_re.captures_iter(line) {
                let mut child = me.clone();
                child.push(cap[1].to_string());
                if modules.contains(&child) {
                    targets.insert(child.join("::"));
                }
            }
        }
        graph.entry(me.join("::")).or_default().extend(targets);
    }
    graph
}

/// A circle in `graph`, if there is one, as the modules along it.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_string(), 1);
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            match state.get(next.as_str()).copied().unwrap_or(0) {
                1 => {
                    let from = stack.iter().position(|m| m == next).unwrap();
                    let mut c = stack[from..].to_vec();
                    c.push(next.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(next, graph, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(node.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if state.get(node.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(node, graph, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn no_crate_imports_its_own_modules_in_a_circle() {
    let root = workspace();
    let crates = [
        "programs/launchpad/src",
        "programs/amm/src",
        "crates/curve/src",
        "crates/sdk/src",
        "crates/index/src",
        "crates/localnet/src",
        "crates/admin/src",
        "crates/web/src",
        "crates/swap-core/src",
        "crates/aggregator/src",
        "indexer/src",
        "api/src",
        "dev/src",
    ];
    let mut circles = Vec::new();
    for src in crates {
        let graph = module_graph(&root.join(src));
        assert!(graph.len() > 1 || src.contains("admin"), "{src}: {graph:?}");
        if let Some(c) = circle(&graph) {
            circles.push(format!("{src}: {}", c.join(" -> ")));
        }
    }
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_circle_finder_finds_a_circle() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("read", vec!["store"]),
        ("store", vec!["store::write"]),
        ("store::write", vec!["store::listing"]),
        ("store::listing", vec!["read"]),
        ("market", vec![]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
    .collect();
    let c = circle(&graph).unwrap();
    assert_eq!(c.first(), c.last());
    assert_eq!(c.len(), 5, "{c:?}");
    let mut graph = graph;
    graph.get_mut("store::listing").unwrap().clear();
    assert_eq!(circle(&graph), None);
}

/// The Rust files under `dir`, recursively, build output aside.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if !path.ends_with("target") && !path.ends_with("node_modules") {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A path into the aggregator crate: `aggregator::` and what follows it (an item, a module, or a `{...}`
/// or `*` import).
fn room_path() -> regex::Regex {
    regex::Regex::new(r"\baggregator::(\{|\*|[A-Za-z_][A-Za-z0-9_]*)").unwrap()
}

/// The EVM swap and cross-chain aggregator, `crates/aggregator`, is reached only through its surface (the
/// items its `lib.rs` declares public) and only by the code that mounts it or hands over to it: the API's
/// assembly (`app.rs`), its state (`state.rs`), its settings (`process/config.rs`, which flatten the
/// aggregator's flags) and the swap area (`/swap/quote`, `/swap/build` and `/swap/record` on an EVM chain).
/// Nothing names one of its modules; the compiler refuses that too (they are private), this also says who
/// may reach the crate at all.
#[test]
fn the_aggregator_is_entered_only_through_its_surface() {
    let root = workspace();
    let tree = root.join("crates/aggregator/src");
    let modules: BTreeSet<String> = std::fs::read_dir(&tree)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|m| m != "lib")
        .collect();
    assert!(
        modules.contains("swap") && modules.contains("cross_chain"),
        "{modules:?}"
    );
    let allowed: BTreeSet<&str> = [
        "api/src/app.rs",
        "api/src/state.rs",
        "api/src/process/config.rs",
        "api/src/routes/swap/mod.rs",
    ]
    .into();
    let path_re = room_path();
    let mut files = Vec::new();
    for dir in [
        "api",
        "dev",
        "indexer",
        "crates",
        "programs",
        "tests/programs",
    ] {
        rust_files(&root.join(dir), &mut files);
    }
    let mut naming = BTreeSet::new();
    let mut wrong = Vec::new();
    // This file spells such paths out in its own test.
    let this = root.join("dev/tests/layout.rs");
    for path in files
        .iter()
        .filter(|p| !p.starts_with(&tree) && **p != this)
    {
        let rel = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for cap in path_re.captures_iter(line) {
                naming.insert(rel.clone());
                let next = &cap[1];
                if !allowed.contains(rel.as_str()) {
                    wrong.push(format!("{rel} names the aggregator: {}", line.trim()));
                } else if next == "{" || next == "*" || modules.contains(next) {
                    wrong.push(format!(
                        "{rel} reaches inside the aggregator: {}",
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Each file allowed to name it does (the list is not stale, and the scan sees the code).
    let naming: BTreeSet<&str> = naming.iter().map(String::as_str).collect();
    assert_eq!(naming, allowed);
}

#[test]
fn the_room_check_sees_a_reach_inside() {
    let re = room_path();
    let next = |line: &str| re.captures(line).map(|c| c[1].to_string());
    assert_eq!(
        next("use aggregator::swap::quote;").as_deref(),
        Some("swap")
    );
    assert_eq!(next("use aggregator::{self, swap};").as_deref(), Some("{"));
    assert_eq!(
        next("aggregator::swap_quote(&state.aggregator, chain, &req)").as_deref(),
        Some("swap_quote")
    );
    assert_eq!(next("pub aggregator: Aggregator,"), None);
}

/// `api/src` is in folders that say what they are: at its root only the face (`lib.rs`), the service's
/// assembly (`app.rs`) and its state (`state.rs`); every other module lives in one of the folders.
#[test]
fn the_api_source_is_in_folders_that_say_what_they_are() {
    let src = workspace().join("api/src");
    let entries: BTreeSet<String> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let expected: BTreeSet<String> = [
        "lib.rs", "app.rs", "state.rs", "routes", "feed", "http", "chain", "prices", "process",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(entries, expected);
    // The face declares and re-exports; it defines nothing of its own but the allocator.
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    for defining in ["fn ", "struct ", "enum ", "impl ", "trait "] {
        assert!(
            !lib.lines()
                .any(|l| !l.trim_start().starts_with("//") && l.contains(defining)),
            "lib.rs defines a `{defining}`"
        );
    }
}

/// The non-test lines of the Rust files under `dir`: test directories, benches and build output aside,
/// and each file's `#[cfg(test)]` module cut off.
fn code_lines(dir: &Path) -> Vec<(PathBuf, usize)> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    files
        .into_iter()
        .filter(|p| {
            !p.components().any(|c| {
                matches!(
                    c.as_os_str().to_str(),
                    Some("tests" | "benches" | "generated")
                )
            })
        })
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            let n = code.lines().count();
            (p, n)
        })
        .collect()
}

/// No crate grows back into the one that held everything: the API's own source is at most a quarter of
/// the workspace's Rust (tests aside), and no file outside tests and generated code is above 700 lines.
#[test]
fn no_crate_and_no_file_grows_too_large() {
    let root = workspace();
    let mut all = Vec::new();
    for dir in ["api", "crates", "indexer", "programs", "dev", "server"] {
        if root.join(dir).exists() {
            all.extend(code_lines(&root.join(dir)));
        }
    }
    let total: usize = all.iter().map(|(_, n)| n).sum();
    let api: usize = all
        .iter()
        .filter(|(p, _)| p.starts_with(root.join("api/src")))
        .map(|(_, n)| n)
        .sum();
    assert!(
        api * 4 <= total,
        "api/src is {api} of {total} lines ({}%)",
        api * 100 / total.max(1)
    );
    let large: Vec<String> = all
        .iter()
        .filter(|(_, n)| *n > 700)
        .map(|(p, n)| format!("{} ({n})", p.strip_prefix(&root).unwrap().display()))
        .collect();
    assert!(large.is_empty(), "files above 700 lines: {large:?}");
}
