//! Program tests live under `tests/`; this crate has no library code.
