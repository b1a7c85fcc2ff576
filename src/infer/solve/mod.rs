//! The union-find solver and its state: the variables and their values ([`env`], [`keys`],
//! [`info`], [`store`], [`names`], [`nodes`], [`subst`], the link lists of [`row_links`] and
//! [`link_index`]), the constraints ([`constraint`], [`deferred`]) and the driver that works
//! them off ([`solver`]), and the rules that decide each kind: [`dims`], [`rows`],
//! [`broadcast`], [`arith`], [`concat`], [`product`], [`elems`]. [`conflict`] types a mismatch,
//! [`guesses`] records the closing choices that were guesses, and [`read`] reads the bindings
//! without changing them.

pub(crate) mod arith;
pub(crate) mod broadcast;
pub(crate) mod concat;
pub(crate) mod conflict;
pub(crate) mod constraint;
pub(crate) mod deferred;
pub(crate) mod dims;
pub(crate) mod elems;
pub(crate) mod env;
pub(crate) mod guesses;
pub(crate) mod info;
pub(crate) mod keys;
pub(crate) mod link_index;
pub(crate) mod names;
pub(crate) mod nodes;
pub(crate) mod product;
pub(crate) mod read;
pub(crate) mod row_links;
pub(crate) mod rows;
pub(crate) mod solver;
pub(crate) mod store;
pub(crate) mod subst;
