//! oh-my-pi (`@oh-my-pi/pi-coding-agent`, under bun), served through the bridge extension
//! ([`super::extension`]).

use super::extension::Extension;

/// oh-my-pi: `hooks install omp` writes `.omp/extensions/hooks.ts` (user:
/// `$PI_CODING_AGENT_DIR`, else `~/.omp/agent`). It delivers every event of ours.
pub static OMP: Extension = Extension {
    name: "omp",
    display_name: "oh-my-pi",
    config_dir: ".omp",
    never_delivers: &[],
};
