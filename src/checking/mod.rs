//! Checking a history against what providers accept (`validate`), and fixing what can be fixed
//! without losing anything (`repair`).

pub mod repair;
pub mod validate;
