//! pi (`@mariozechner/pi-coding-agent`, under node), served through the bridge extension
//! ([`super::extension`]).

use hookwright::EventKind as E;

use super::extension::Extension;

/// pi: `hooks install pi` writes `.pi/extensions/hooks.ts` (user: `$PI_CODING_AGENT_DIR`, else
/// `~/.pi/agent`). pi 0.73.1 has no `session.compacting`, auto-compaction, auto-retry,
/// `ttsr_triggered` or `todo_reminder` event; its `session_start` and `session_before_fork`
/// stand for our `session_switch`, `session_branch` and `session_before_branch`.
pub static PI: Extension = Extension {
    name: "pi",
    display_name: "pi",
    config_dir: ".pi",
    never_delivers: &[
        E::SessionCompacting,
        E::AutoCompactionStart,
        E::AutoCompactionEnd,
        E::AutoRetryStart,
        E::AutoRetryEnd,
        E::TtsrTriggered,
        E::TodoReminder,
    ],
};
