//! Checking a history against what providers accept (`validate`), fixing what can be fixed without
//! losing anything (`repair`), and recognizing a provider's error saying a request was too long
//! (`overflow`).

pub mod overflow;
pub mod repair;
pub mod validate;
