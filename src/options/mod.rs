//! The one options object every function takes: its fields and what follows from them (`values`),
//! reading it from the caller's object (`read`), the presets that fill it (`preset`), and the prompt
//! cache's prices (`cache_prices`).

mod cache_prices;
pub mod preset;
mod read;
mod values;

pub use cache_prices::{CachePrices, DEFAULT_HORIZON, READ_PRICE, WRITE_PRICE};
pub use read::profile_for_model;
pub use values::{Options, Report, Shape, SplitAt, Strategy, DEFAULT_CRITICAL_TOOLS, DEFAULT_PLACEHOLDER};
