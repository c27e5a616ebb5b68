//! [`Shared`]: the state a runner shares with every context it builds and every hook it runs,
//! and its record of the hosts it was given ([`Installed`]).

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::calls::{HookApiError, SendMessageOptions};
use crate::events::CustomMessage;
use crate::host::Host;
use crate::session::SessionManager;
use crate::state::RunnerState;
use crate::ui::{HookUi, NoUi};

/// The host of a runner that was not initialized: every default.
struct NoHost;

impl Host for NoHost {}

/// A host as one `initialize` installed it.
pub(crate) struct Installed {
    /// `None` before the first `initialize` (the defaults apply, and sending a message or an
    /// entry fails).
    host: Option<Arc<dyn Host>>,
    /// The host whose `new_session`, `branch`, `navigate_tree` are in force.
    new_session: Arc<dyn Host>,
    branch: Arc<dyn Host>,
    navigate_tree: Arc<dyn Host>,
    pub(crate) ui: Arc<dyn HookUi>,
    pub(crate) has_ui: bool,
}

impl Installed {
    /// The host, or the defaults.
    #[inline(always)]
    pub(crate) fn host(&self) -> &dyn Host {
        match &self.host {
            Some(host) => &**host,
            None => &NoHost,
        }
    }

    /// The host, or the defaults, shared.
    pub(crate) fn shared_host(&self) -> Arc<dyn Host> {
        match &self.host {
            Some(host) => Arc::clone(host),
            None => Arc::new(NoHost),
        }
    }

    /// The host whose `new_session` is in force.
    pub(crate) fn new_session(&self) -> &dyn Host {
        &*self.new_session
    }

    /// The host whose `branch` is in force.
    pub(crate) fn branch(&self) -> &dyn Host {
        &*self.branch
    }

    /// The host whose `navigate_tree` is in force.
    pub(crate) fn navigate_tree(&self) -> &dyn Host {
        &*self.navigate_tree
    }
}

/// State shared by a runner, every context it builds and every hook it runs: its working
/// directory and session, and each host it was given.
///
/// The hosts are kept in an append-only list until the runner and its contexts are gone (a
/// runner is initialized once or twice in practice); the last one is in force. So the runner
/// and a late-bound member read the host in force with one load, without a lock or a
/// reference count, and a host is never freed while an emission may use it. The list holds
/// each host boxed: its first block has room for 32 entries, which is 512 bytes of pointers
/// where it would be 3 KiB of hosts, in every runner.
pub(crate) struct Shared {
    pub(crate) cwd: PathBuf,
    pub(crate) session_manager: Arc<dyn SessionManager>,
    hosts: boxcar::Vec<Box<Installed>>,
    current: AtomicUsize,
    /// Held while a host is installed: installs happen one at a time.
    install: Mutex<()>,
    /// What hooks keep for the life of the runner.
    pub(crate) state: RunnerState,
}

impl Shared {
    /// The state of a runner in `cwd` whose host is not given yet.
    pub(crate) fn new(cwd: PathBuf, session_manager: Arc<dyn SessionManager>) -> Self {
        let none: Arc<dyn Host> = Arc::new(NoHost);
        let hosts = boxcar::Vec::new();
        hosts.push(Box::new(Installed {
            host: None,
            new_session: Arc::clone(&none),
            branch: Arc::clone(&none),
            navigate_tree: none,
            ui: Arc::new(NoUi),
            has_ui: false,
        }));
        Shared {
            cwd,
            session_manager,
            hosts,
            current: AtomicUsize::new(0),
            install: Mutex::new(()),
            state: RunnerState::default(),
        }
    }

    /// The index of the host in force.
    #[inline(always)]
    pub(crate) fn current(&self) -> usize {
        self.current.load(Ordering::Acquire)
    }

    /// The host in force.
    #[inline(always)]
    pub(crate) fn installed(&self) -> &Installed {
        &self.hosts[self.current()]
    }

    /// The host at `index`.
    pub(crate) fn installed_at(&self, index: usize) -> &Installed {
        &self.hosts[index]
    }

    /// Installs `host` (SPEC-DETAILS 5.2): it replaces the host in force, except for the
    /// session actions it does not carry out, which stay with the previous one; its UI is
    /// asked once. `publish` runs with the new host's index before the host comes in force
    /// (the runner lends contexts of it from then on).
    pub(crate) fn install(&self, host: Arc<dyn Host>, publish: impl FnOnce(usize)) {
        // The host is asked before the lock is taken: a host may call back into the runner.
        let actions = host.session_actions();
        let ui = host.ui().unwrap_or_else(|| Arc::new(NoUi));
        let has_ui = host.has_ui();
        let _one_at_a_time = self
            .install
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let previous = self.installed();
        let pick = |given: bool, kept: &Arc<dyn Host>| {
            if given {
                Arc::clone(&host)
            } else {
                Arc::clone(kept)
            }
        };
        let installed = Installed {
            new_session: pick(actions.new_session, &previous.new_session),
            branch: pick(actions.branch, &previous.branch),
            navigate_tree: pick(actions.navigate_tree, &previous.navigate_tree),
            ui,
            has_ui,
            host: Some(host),
        };
        let index = self.hosts.push(Box::new(installed));
        publish(index);
        self.current.store(index, Ordering::Release);
    }

    /// `send_message` of a hook or a context: to the host in force.
    ///
    /// # Errors
    /// `sendMessage handler not initialized` before the first `initialize`.
    pub(crate) fn send_message(
        &self,
        message: CustomMessage,
        options: SendMessageOptions,
    ) -> Result<(), HookApiError> {
        let host = self
            .installed()
            .host
            .as_ref()
            .ok_or(HookApiError::SendMessageNotInitialized)?;
        host.send_message(message, options);
        Ok(())
    }

    /// `append_entry` of a hook or a context: to the host in force.
    ///
    /// # Errors
    /// `appendEntry handler not initialized` before the first `initialize`.
    pub(crate) fn append_entry(
        &self,
        custom_type: &str,
        data: Option<Value>,
    ) -> Result<(), HookApiError> {
        let host = self
            .installed()
            .host
            .as_ref()
            .ok_or(HookApiError::AppendEntryNotInitialized)?;
        host.append_entry(custom_type, data);
        Ok(())
    }

    /// Whether a host was installed.
    pub(crate) fn initialized(&self) -> bool {
        self.installed().host.is_some()
    }
}
