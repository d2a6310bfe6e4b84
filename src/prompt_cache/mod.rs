//! The provider's prompt cache: what an edit to the history costs (`cache_cost`), where the cache
//! markers go (`breakpoints`), the next request (`turn`), and a conversation kept across turns
//! (`session`).

pub mod breakpoints;
pub mod cache_cost;
pub mod session;
pub mod turn;
