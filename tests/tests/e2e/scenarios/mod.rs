//! The scenarios, per agent.

/// The tests `PI` and `OMP` of one scenario of pi and oh-my-pi, `SCENARIO(flavor)`, run for
/// each agent (with the attributes given, on both).
macro_rules! for_pi_and_omp {
    ($(#[$attr:meta])* $scenario:ident => $pi:ident, $omp:ident) => {
        #[test]
        $(#[$attr])*
        fn $pi() {
            $scenario(crate::agent::pi::Flavor::Pi);
        }

        #[test]
        $(#[$attr])*
        fn $omp() {
            $scenario(crate::agent::pi::Flavor::Omp);
        }
    };
}

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
mod team;
