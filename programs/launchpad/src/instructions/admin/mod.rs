//! Instructions of the program's administration: initialization, configs, handovers.

pub mod accept_admin;
pub mod accept_partner;
pub mod create_config;
pub mod initialize;
pub mod propose_admin;
pub mod propose_partner;
pub mod set_config_disabled;
pub mod sync_config_partner;
