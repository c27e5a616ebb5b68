//! Whether an agent's hooks are switched on: Claude Code's `disableAllHooks`, Codex's `hooks`
//! feature, Gemini CLI's `hooksConfig.enabled`, and this binary's own kill switch.

use serde_json::Value;

use super::finding::Finding;
use super::{Context, Scope, entries};
use crate::agents::{Agent, HooksSwitch};
use crate::install::{self, CodexConfig};

/// The switch of `agent`'s hooks, `gating`: whether the agent has a gating entry of ours
/// (so that switched off, a gating hook does not run).
pub(super) fn check(ctx: &Context, agent: Agent, gating: bool, out: &mut Vec<Finding>) {
    match agent.protocol().cli().switch {
        Some(HooksSwitch::SettingsKey { pointer, off }) => {
            settings_switch(ctx, agent, gating, pointer, off, out);
        }
        Some(HooksSwitch::CodexFeature) => codex_feature(ctx, gating, out),
        None => {}
    }
}

/// A settings key (a JSON pointer) that switches every hook off when it is `off`, in any of
/// the agent's settings files (the project's, then the user's).
fn settings_switch(
    ctx: &Context,
    agent: Agent,
    gating: bool,
    pointer: &str,
    off: bool,
    out: &mut Vec<Finding>,
) {
    let key = pointer.trim_start_matches('/').replace('/', ".");
    let files = [Scope::Project, Scope::User]
        .into_iter()
        .flat_map(|scope| entries::files(ctx, agent, scope));
    for file in files {
        let Ok(Some(settings)) = install::read_object(&file) else {
            continue;
        };
        if Value::Object(settings).pointer(pointer) == Some(&Value::Bool(off)) {
            out.push(
                Finding::error(
                    format!(
                        "{}: `{key}` is {off}: {} runs no hook at all",
                        file.display(),
                        agent.display_name()
                    ),
                    gating,
                )
                .fix(format!(
                    "set `\"{key}\": {}` in {} (or remove the key)",
                    !off,
                    file.display()
                )),
            );
        }
    }
}

/// Codex's `[features] hooks = false` in its `config.toml`.
fn codex_feature(ctx: &Context, gating: bool, out: &mut Vec<Finding>) {
    let Some(path) = ctx.codex_config_path() else {
        return;
    };
    if let Ok(Some(config)) = CodexConfig::read(&path)
        && config.hooks_feature() == Some(false)
    {
        out.push(
            Finding::error(
                format!(
                    "{}: `features.hooks` is false: Codex runs no hook at all",
                    path.display()
                ),
                gating,
            )
            .fix("codex features enable hooks"),
        );
    }
}

/// This binary's kill switch in the environment `hooks doctor` runs in.
pub(super) fn kill_switch(out: &mut Vec<Finding>) {
    if crate::call::hooks_disabled() {
        out.push(
            Finding::error(
                format!(
                    "{}=1 is set here: every hook of this binary started from this \
                     environment answers \"no opinion\" at once, gating ones too",
                    crate::call::DISABLE_ENV
                ),
                true,
            )
            .fix(format!("unset {}", crate::call::DISABLE_ENV)),
        );
    }
}
