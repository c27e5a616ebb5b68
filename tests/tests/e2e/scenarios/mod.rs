//! The scenarios, per agent.

mod bridge_ts;
mod bundle;
mod claude;
mod claude_http;
mod codex;
mod codex_serve;
mod copilot;
mod doctor;
mod droid;
mod gemini;
mod pi;
mod pi_bridge;
mod protocol;
mod qwen;
