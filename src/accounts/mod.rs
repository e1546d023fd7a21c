//! Accounts and sessions (docs/api.md §Accounts): one use case per function,
//! each run inside one transaction, in files named for what they do:
//! registering, signing in and staying signed in (`sessions`), guests,
//! passwords and their reset links, addresses and putting an old one back
//! (`email_undos`), the profile, my signed-in devices (`my_sessions`),
//! Google and Apple identities. The account row's own use cases are
//! re-exported here (`accounts::register`); the other rooms are named by
//! their file (`accounts::identities::link`).

mod addresses;
pub mod closing;
pub mod email_undos;
mod guests;
pub mod identities;
mod my_profile;
pub mod my_sessions;
pub mod password_resets;
mod passwords;
mod registration;
mod rows;
mod sessions;
pub mod standing;

pub use addresses::*;
pub use guests::*;
pub use my_profile::*;
pub use passwords::*;
pub use registration::*;
pub use rows::*;
pub use sessions::*;
