//! Unit tests of the Vespa layer.
