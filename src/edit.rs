//! What an operation did to the history, as data: each output message is either the caller's own
//! message (kept as the very same object by the binding), a copy of one with some fields set, or a
//! new message. The core never rebuilds the host's objects itself.

use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq)]
pub enum Slot {
    /// The input message at this index, unchanged.
    Keep(usize),
    /// A copy of the input message at `index` with `set` fields replaced.
    Patch { index: usize, set: Map<String, Value> },
    /// A message that ctxfold made (a summary).
    New(Value),
}

/// The output history as plain values: what the binding builds from JS objects, done natively so
/// tests can check it.
pub fn materialize(slots: &[Slot], input: &[Value]) -> Vec<Value> {
    slots
        .iter()
        .filter_map(|slot| match slot {
            Slot::Keep(i) => input.get(*i).cloned(),
            Slot::Patch { index, set } => input.get(*index).map(|orig| {
                let mut copy = orig.clone();
                if let Value::Object(obj) = &mut copy {
                    for (k, v) in set {
                        obj.insert(k.clone(), v.clone());
                    }
                }
                copy
            }),
            Slot::New(v) => Some(v.clone()),
        })
        .collect()
}
