//! The scenarios, per agent.

mod bridge_ts;
mod bundle;
mod claude;
mod claude_http;
mod codex;
mod codex_serve;
mod copilot;
mod copilot_bundle;
mod doctor;
mod droid;
mod droid_bundle;
mod gemini;
mod gemini_bundle;
mod pi;
mod pi_bridge;
mod qwen;
mod qwen_bundle;
