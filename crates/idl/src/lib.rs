//! Builds a program's Anchor IDL the way `anchor idl build` does (anchor-lang-idl's builder, which runs the
//! program's `__anchor_private_print_idl` tests), without the anchor CLI.
//!
//! Two traps are handled here: the builder tries to install a toolchain whenever `RUSTUP_TOOLCHAIN` is set
//! (rustup sets it for every child of `cargo`), so it is removed; and the builder compiles with its own
//! `RUSTFLAGS`, so it gets its own target directory instead of invalidating the workspace's.

use anchor_lang_idl::types::{
    Idl, IdlInstructionAccount, IdlInstructionAccountItem, IdlPda, IdlSeed, IdlSeedConst,
};
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
    let mut idl = anchor_lang_idl::build::IdlBuilder::new()
        .program_path(root.join("programs").join(program))
        .skip_lint(false)
        .no_docs(false)
        .cargo_args(vec!["--lib".into()])
        .build()
        .with_context(|| format!("building the IDL of {program}"))?;
    resolve_event_cpi_accounts(&mut idl)?;
    Ok(serde_json::to_string_pretty(&idl)? + "\n")
}

/// Seed of every program's `emit_cpi!` event authority PDA.
const EVENT_AUTHORITY_SEED: &[u8] = b"__event_authority";

/// Gives the `#[event_cpi]` accounts what Anchor's TypeScript client needs to resolve them by itself.
///
/// Anchor 1.2.2's `#[event_cpi]` constrains `event_authority` with `address = crate::EVENT_AUTHORITY_AND_BUMP.0`,
/// an expression the IDL builder cannot evaluate, and `program` not at all, so its generator leaves both bare
/// and every caller would have to pass them. Written here as earlier Anchor generators wrote them: the event
/// authority as the PDA `["__event_authority"]`, `program` with the program's address. The launchpad's
/// `amm_event_authority` (passed on to the AMM) is the same PDA under the AMM, whose id the instruction's
/// `amm_program` account carries.
fn resolve_event_cpi_accounts(idl: &mut Idl) -> Result<()> {
    let program = idl.address.clone();
    for ix in &mut idl.instructions {
        let amm_program = single_accounts(&ix.accounts)
            .find(|a| a.name == "amm_program")
            .and_then(|a| a.address.clone());
        for account in single_accounts_mut(&mut ix.accounts) {
            match account.name.as_str() {
                "event_authority" => account.pda = Some(event_authority_pda(None)?),
                "amm_event_authority" => {
                    let amm = amm_program
                        .as_deref()
                        .context("amm_event_authority without an amm_program address")?;
                    account.pda = Some(event_authority_pda(Some(amm))?);
                }
                "program" => account.address = Some(program.clone()),
                _ => {}
            }
        }
    }
    Ok(())
}

fn event_authority_pda(program: Option<&str>) -> Result<IdlPda> {
    let program = match program {
        None => None,
        Some(address) => Some(IdlSeed::Const(IdlSeedConst {
            value: bs58::decode(address).into_vec()?,
        })),
    };
    Ok(IdlPda {
        seeds: vec![IdlSeed::Const(IdlSeedConst {
            value: EVENT_AUTHORITY_SEED.to_vec(),
        })],
        program,
    })
}

fn single_accounts(
    items: &[IdlInstructionAccountItem],
) -> impl Iterator<Item = &IdlInstructionAccount> {
    items.iter().filter_map(|item| match item {
        IdlInstructionAccountItem::Single(a) => Some(a),
        IdlInstructionAccountItem::Composite(_) => None,
    })
}

fn single_accounts_mut(
    items: &mut [IdlInstructionAccountItem],
) -> impl Iterator<Item = &mut IdlInstructionAccount> {
    items.iter_mut().filter_map(|item| match item {
        IdlInstructionAccountItem::Single(a) => Some(a),
        IdlInstructionAccountItem::Composite(_) => None,
    })
}
