//! The committed IDLs are what the programs generate now: a program change without `write` fails here.

#[test]
fn committed_idls_are_current() {
    for program in launchpad_idl::PROGRAMS {
        let built = launchpad_idl::build(program).expect("IDL builds");
        let path = launchpad_idl::committed_path(program);
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == built,
            "{} is stale: run `cargo run -p launchpad-idl -- write` and commit it",
            path.display()
        );
    }
}
