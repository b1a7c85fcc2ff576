//! Vespa tensor types, literals and JSON.
