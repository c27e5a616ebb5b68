//! The scenarios, per agent.

mod claude;
mod codex;
mod pi;
