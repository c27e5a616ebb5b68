//! `hook = "id"`, `crate = path` and `timeout_ms = N` (`250u8` too); handlers in nested modules, raw
//! identifiers, other attributes on the function; the function stays callable.

use std::time::Duration;

use hookwright::prelude::*;
use hookwright::registry::{self, RegistrationKind};

mod facade {
    pub use hookwright;
}

/// Documented, public, and still callable.
#[hook(event = "tool_call")]
#[inline]
pub fn first(event: &ToolCallEvent) -> Option<ToolCallEventResult> {
    (event.tool_name == "bash").then(|| ToolCallEventResult::block("no"))
}

#[hook(event = "tool_call", hook = "zz_named", crate = ::hookwright)]
fn r#type(_event: &ToolCallEvent) {}

// A suffixed literal is milliseconds too.
#[hook(crate = facade::hookwright, event = "turn_end", timeout_ms = 250u8, hook = "zz_named")]
async fn slow(_event: &TurnEndEvent, _ctx: &HookContext) {}

/// Compiled out: so is its registration.
#[hook(event = "tool_call")]
#[cfg(any())]
fn compiled_out(_event: &ToolCallEvent) {}

mod inner {
    use hookwright::prelude::*;

    #[hook(event = "agent_end")]
    pub(crate) fn nested(_event: &AgentEndEvent) {}
}

fn main() {
    #[hook(event = "agent_start", hook = "zz_named")]
    fn local(_event: &AgentStartEvent) {}

    let event: ToolCallEvent = serde_json::from_str(
        r#"{"type":"tool_call","toolName":"bash","toolCallId":"1","input":{}}"#,
    )
    .unwrap();
    assert!(first(&event).unwrap().is_block());
    r#type(&event);
    inner::nested(&serde_json::from_str(r#"{"type":"agent_end","messages":[]}"#).unwrap());

    // The default hook id is the module path.
    let here = module_path!();
    let inner = format!("{here}::inner");
    let regs: Vec<_> = registry::registrations()
        .iter()
        .map(|r| (r.hook(), r.name(), r.kind(), r.target(), r.timeout()))
        .collect();
    use RegistrationKind::Handler;
    assert_eq!(
        regs,
        [
            (here, "first", Handler, "tool_call", None),
            (&*inner, "nested", Handler, "agent_end", None),
            ("zz_named", "type", Handler, "tool_call", None),
            (
                "zz_named",
                "slow",
                Handler,
                "turn_end",
                Some(Duration::from_millis(250))
            ),
            ("zz_named", "local", Handler, "agent_start", None),
        ]
    );
    assert_eq!(registry::compiled_hook_ids(), [here, &inner, "zz_named"]);
    let hooks = registry::compiled_hooks(std::path::Path::new("/tmp")).unwrap();
    let named = &hooks[2];
    assert_eq!(named.path, "zz_named");
    let infos = named.handlers.infos(EventKind::TurnEnd);
    assert_eq!(infos[0].timeout, Some(Duration::from_millis(250)));
    assert!(infos[0].location.unwrap().file.ends_with("keys.rs"));
}
