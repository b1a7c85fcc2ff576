//! Closing the world once the operations are in: the staged closing of leaf and interior rows
//! and dims ([`stages`]), the join of a row's caps it closes to ([`join`]), and careful closing,
//! which tries the less material choices where the default contradicts the program
//! ([`careful`]).

pub(crate) mod careful;
pub(crate) mod join;
pub(crate) mod stages;
