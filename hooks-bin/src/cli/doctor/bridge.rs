//! The bridge extension of pi and oh-my-pi (`install pi|omp`), found by install's rule
//! ([`extension::find_bridge`]): the binary it starts, and whether it is this binary's
//! current bridge.

use super::entries::{BinaryState, binary_state};
use super::finding::Finding;
use super::{Context, Scope};
use crate::install::extension::{self, ExtensionAgent};

/// The findings about the bridge of `agent`, project and user.
pub(super) fn check(ctx: &Context, agent: ExtensionAgent, out: &mut Vec<Finding>) {
    let home = ctx.home.clone().unwrap_or_default();
    for scope in [Scope::Project, Scope::User] {
        let fix = ctx.install_bridge(agent, scope);
        let (path, binary, current) =
            match extension::find_bridge(agent, scope, &ctx.binary, &ctx.project, &home) {
                Ok(Some(found)) => found,
                Ok(None) | Err(crate::install::InstallError::NoExtensionHome { .. }) => {
                    continue;
                }
                Err(e) => {
                    out.push(Finding::error(format!("{agent} bridge: {e}"), true).fix(fix));
                    continue;
                }
            };
        let (shown, b) = (path.display(), binary.display());
        out.push(match binary_state(&binary, &ctx.canonical_binary) {
            BinaryState::This if current => {
                Finding::ok(format!("{agent} bridge {shown} starts this binary"))
            }
            BinaryState::This => Finding::warn(format!(
                "{agent} bridge {shown} is from another version of this tool"
            ))
            .fix(fix),
            BinaryState::Other => Finding::warn(format!(
                "{agent} bridge {shown} starts {b}, not this binary ({})",
                ctx.binary.display()
            ))
            .fix(fix),
            BinaryState::Missing | BinaryState::NotExecutable => Finding::error(
                format!(
                    "{agent} bridge {shown} starts {b}, which is missing or not \
                     executable: no hook runs, and the bridge blocks every tool call \
                     (unless HOOKS_BIN names another binary)"
                ),
                true,
            )
            .fix(fix),
        });
    }
}
