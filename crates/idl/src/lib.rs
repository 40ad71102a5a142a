//! Builds a program's Anchor IDL the way `anchor idl build` does (anchor-lang-idl's builder, which runs the
//! program's `__anchor_private_print_idl` tests), without the anchor CLI.
//!
//! Two traps are handled here: the builder tries to install a toolchain whenever `RUSTUP_TOOLCHAIN` is set
//! (rustup sets it for every child of `cargo`), so it is removed; and the builder compiles with its own
//! `RUSTFLAGS`, so it gets its own target directory instead of invalidating the workspace's.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// Programs whose IDL is committed under `idl/`.
pub const PROGRAMS: &[&str] = &["launchpad", "amm"];

/// The workspace root (this crate sits at `crates/idl`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The committed IDL of `program`.
pub fn committed_path(program: &str) -> PathBuf {
    workspace_root().join("idl").join(format!("{program}.json"))
}

/// Builds `programs/<program>`'s IDL and returns it as pretty JSON with a trailing newline.
pub fn build(program: &str) -> Result<String> {
    let root = workspace_root();
    // SAFETY: called from a single-threaded tool or test before any other thread reads the environment.
    unsafe {
        std::env::remove_var("RUSTUP_TOOLCHAIN");
        std::env::set_var("CARGO_TARGET_DIR", root.join("target/idl-build"));
    }
    let idl = anchor_lang_idl::build::IdlBuilder::new()
        .program_path(root.join("programs").join(program))
        .skip_lint(false)
        .no_docs(false)
        .cargo_args(vec!["--lib".into()])
        .build()
        .with_context(|| format!("building the IDL of {program}"))?;
    Ok(serde_json::to_string_pretty(&idl)? + "\n")
}
