//! What an agent served through the bridge extension is ([`Extension`]): pi and oh-my-pi load
//! TypeScript extensions in-process; `hooks install NAME` puts the bridge
//! (`hooks-bin/bridges/pi/hooks.ts`) where the agent loads extensions from, and the bridge
//! runs the hooks in `hooks serve --stdio`. The agent gives the bridge our events themselves,
//! so there is no [`Protocol`](super::Protocol) to translate them.

use hookwright::EventKind;

/// An agent served through the bridge extension: one `static` in the agent's own file
/// ([`pi::PI`](super::pi::PI), [`omp::OMP`](super::omp::OMP)), named by
/// [`ExtensionAgent`](super::ExtensionAgent).
#[derive(Debug)]
pub struct Extension {
    /// The agent's name, as `hooks install` takes it and messages say it: `pi`.
    pub name: &'static str,
    /// Its own name, for people: `oh-my-pi`.
    pub display_name: &'static str,
    /// Its configuration directory, in a project and in `HOME`: `.pi`.
    pub config_dir: &'static str,
    /// The events of ours the agent never gives the bridge (the bridge's `SOURCES` have no
    /// entry for them; `hooks-bin/tests/it/bridge_source.rs` checks the two agree).
    pub never_delivers: &'static [EventKind],
}

impl Extension {
    /// The events of ours the agent delivers to the bridge: every one but
    /// [`Extension::never_delivers`], in [`EventKind::ALL`] order.
    #[must_use]
    pub fn delivers(&self) -> Vec<EventKind> {
        EventKind::ALL
            .iter()
            .copied()
            .filter(|kind| !self.never_delivers.contains(kind))
            .collect()
    }
}
