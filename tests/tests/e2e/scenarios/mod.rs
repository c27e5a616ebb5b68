//! The scenarios, per agent.

mod claude;
mod codex;
mod gemini;
