//! The scenarios, per agent.

/// The tests `PI` and `OMP` of one scenario of pi and oh-my-pi, `SCENARIO(flavor)`, run for
/// each agent; ignored as every scenario is (they need the agents), or with the `#[ignore]`
/// given.
macro_rules! for_pi_and_omp {
    (#[ignore = $why:literal] $scenario:ident => $pi:ident, $omp:ident) => {
        #[test]
        #[ignore = $why]
        fn $pi() {
            $scenario(crate::agent::pi::Flavor::Pi);
        }

        #[test]
        #[ignore = $why]
        fn $omp() {
            $scenario(crate::agent::pi::Flavor::Omp);
        }
    };
    ($scenario:ident => $pi:ident, $omp:ident) => {
        for_pi_and_omp!(
            #[ignore = "needs HOOKS_E2E=install (the real agents)"]
            $scenario => $pi, $omp
        );
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
mod guards;
mod pi;
mod pi_bridge;
mod protocol;
mod qwen;
mod team;
