//! `cargo run -p launchpad-idl -- [write|check]`: writes `idl/<program>.json` for every program, or checks
//! that the committed files are current (exit 1 if not).

fn main() -> anyhow::Result<()> {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "write".into());
    let mut stale = false;
    for program in launchpad_idl::PROGRAMS {
        let built = launchpad_idl::build(program)?;
        let path = launchpad_idl::committed_path(program);
        match mode.as_str() {
            "write" => {
                std::fs::create_dir_all(path.parent().expect("idl dir"))?;
                std::fs::write(&path, built)?;
                println!("wrote {}", path.display());
            }
            "check" => {
                if std::fs::read_to_string(&path).ok().as_deref() != Some(built.as_str()) {
                    eprintln!(
                        "{} is stale: run `cargo run -p launchpad-idl -- write`",
                        path.display()
                    );
                    stale = true;
                }
            }
            other => anyhow::bail!("unknown mode {other:?}: use write or check"),
        }
    }
    if stale {
        std::process::exit(1);
    }
    Ok(())
}
