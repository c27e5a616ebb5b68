//! How a call reaches the pipeline ([`crate::call`]) and its answer the agent: one process per
//! call ([`command`]).

pub mod command;
