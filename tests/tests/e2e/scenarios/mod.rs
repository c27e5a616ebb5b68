//! The scenarios, per agent.

mod claude;
mod codex;
mod copilot;
mod gemini;
mod qwen;
