//! The scenarios, per agent.

mod claude;
mod claude_http;
mod codex;
mod copilot;
mod droid;
mod gemini;
mod pi;
mod pi_bridge;
mod qwen;
