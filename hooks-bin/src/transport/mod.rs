//! How a call reaches the pipeline ([`crate::call`]) and its answer the agent: one process per
//! call ([`command`]), JSON-RPC 2.0 on stdin and stdout for the pi and oh-my-pi bridge
//! ([`stdio`]); the resident server's HTTP and unix socket are [`crate::serve`]'s.

pub mod command;
pub mod stdio;
