//! The programs build for SBF: `anchor build` (Anchor 1.2.2) compiles them with Solana platform-tools v1.52,
//! whose rustc is 1.89, while this workspace's host toolchain is newer and would never notice a dependency
//! that needs more. Cargo refuses to build a crate whose `rust-version` is above the compiler's, so every crate
//! in the normal-dependency closure of `programs/launchpad` and `programs/amm` must declare at most 1.89.

use cargo_metadata::{semver::Version, DependencyKind, Metadata, MetadataCommand, PackageId};
use std::collections::{BTreeSet, HashMap, VecDeque};

/// rustc of Solana platform-tools v1.52, the toolchain Anchor 1.2.2's `anchor build` uses.
const PLATFORM_TOOLS_RUSTC: Version = Version::new(1, 89, 0);

/// The on-chain programs whose dependency trees must build with [`PLATFORM_TOOLS_RUSTC`].
const PROGRAMS: &[&str] = &["launchpad", "amm"];

fn metadata() -> Metadata {
    MetadataCommand::new()
        .manifest_path(launchpad_idl::workspace_root().join("Cargo.toml"))
        .other_options(vec!["--locked".to_string()])
        .exec()
        .expect("cargo metadata --format-version 1 --locked")
}

/// Every package reachable from `roots` through normal (not dev, not build) dependencies, with the root it was
/// reached from first.
fn normal_closure(meta: &Metadata, roots: &[PackageId]) -> HashMap<PackageId, PackageId> {
    let resolve = meta.resolve.as_ref().expect("metadata has a resolve graph");
    let nodes: HashMap<&PackageId, _> = resolve.nodes.iter().map(|n| (&n.id, n)).collect();
    let mut reached: HashMap<PackageId, PackageId> = HashMap::new();
    let mut queue: VecDeque<(PackageId, PackageId)> =
        roots.iter().map(|r| (r.clone(), r.clone())).collect();
    while let Some((id, root)) = queue.pop_front() {
        if reached.contains_key(&id) {
            continue;
        }
        reached.insert(id.clone(), root.clone());
        let node = nodes.get(&id).expect("every package id has a node");
        for dep in &node.deps {
            if dep
                .dep_kinds
                .iter()
                .any(|k| k.kind == DependencyKind::Normal)
            {
                queue.push_back((dep.pkg.clone(), root.clone()));
            }
        }
    }
    reached
}

#[test]
fn program_dependencies_build_with_platform_tools_rustc() {
    let meta = metadata();
    let roots: Vec<PackageId> = PROGRAMS
        .iter()
        .map(|name| {
            meta.workspace_packages()
                .into_iter()
                .find(|p| p.name.as_str() == *name)
                .unwrap_or_else(|| panic!("workspace has no package {name}"))
                .id
                .clone()
        })
        .collect();
    let closure = normal_closure(&meta, &roots);
    assert!(
        closure.len() > 20,
        "the closure should hold the whole anchor tree, got {} packages",
        closure.len()
    );
    let by_id: HashMap<&PackageId, _> = meta.packages.iter().map(|p| (&p.id, p)).collect();
    let offenders: BTreeSet<String> = closure
        .iter()
        .filter_map(|(id, root)| {
            let pkg = by_id[id];
            let wanted = pkg.rust_version.as_ref()?;
            (*wanted > PLATFORM_TOOLS_RUSTC).then(|| {
                format!(
                    "{}@{} declares rust-version {} (a normal dependency of {})",
                    pkg.name, pkg.version, wanted, by_id[root].name
                )
            })
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "these crates would not compile under `anchor build`: Anchor 1.2.2 builds the programs with Solana \
         platform-tools v1.52, whose rustc is {PLATFORM_TOOLS_RUSTC}, and cargo refuses a crate whose \
         rust-version is higher. Hold each at a version that supports {PLATFORM_TOOLS_RUSTC} (or replace it):\n  {}",
        offenders.into_iter().collect::<Vec<_>>().join("\n  ")
    );
}
