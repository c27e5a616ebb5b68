//! The JSON listing of what loaded (the module docs of [`super`] describe it).

use std::collections::HashMap;

use hookwright::LoadedHook;
use hookwright::events::EventKind;
use hookwright::handler::SourceLocation;
use serde_json::{Value, json};

use super::LIST_JSON_VERSION;
use crate::call::load::Loaded;

fn location_json(location: Option<SourceLocation>) -> (Value, Value, Value, Value) {
    match location {
        Some(l) => (
            Value::from(l.to_string()),
            Value::from(l.file),
            Value::from(l.line),
            Value::from(l.column),
        ),
        None => (Value::Null, Value::Null, Value::Null, Value::Null),
    }
}

fn hook_kind(hook: &LoadedHook, compiled: &[&str]) -> &'static str {
    if compiled.contains(&hook.path.as_str()) {
        "compiled"
    } else {
        "file"
    }
}

/// The JSON listing (see the module docs).
#[must_use]
pub fn listing(cwd: &std::path::Path, loaded: &Loaded) -> Value {
    let compiled = hookwright::registry::compiled_hook_ids();
    let mut hooks = Vec::new();
    let mut events: Vec<Value> = Vec::new();
    for kind in EventKind::ALL {
        let handlers: Vec<Value> = loaded
            .hooks
            .iter()
            .flat_map(|hook| {
                hook.handlers.infos(*kind).into_iter().map(|info| {
                    json!({
                        "hook": hook.path,
                        "name": info.name,
                        "location": info.location.map(|l| l.to_string()),
                    })
                })
            })
            .collect();
        if !handlers.is_empty() {
            events.push(json!({"event": kind.as_str(), "handlers": handlers}));
        }
    }
    let mut first_command: HashMap<&str, &str> = HashMap::new();
    let mut first_renderer: HashMap<&str, &str> = HashMap::new();
    let mut commands = Vec::new();
    let mut renderers = Vec::new();
    for (index, hook) in loaded.hooks.iter().enumerate() {
        let mut handlers = Vec::new();
        for kind in EventKind::ALL {
            for info in hook.handlers.infos(*kind) {
                let (location, file, line, column) = location_json(info.location);
                handlers.push(json!({
                    "event": kind.as_str(),
                    "name": info.name,
                    "location": location,
                    "file": file,
                    "line": line,
                    "column": column,
                }));
            }
        }
        let mut hook_commands = Vec::new();
        for command in hook.commands.values() {
            let by = first_command.get(command.name.as_str()).copied();
            if by.is_none() {
                first_command.insert(&command.name, &hook.path);
            }
            let location = command.location.map(|l| l.to_string());
            hook_commands.push(json!({
                "name": command.name,
                "description": command.description,
                "location": location,
                "shadowed": by.is_some(),
            }));
            commands.push(json!({
                "name": command.name,
                "hook": hook.path,
                "description": command.description,
                "location": location,
                "shadowed": by.is_some(),
                "shadowedBy": by,
            }));
        }
        let mut hook_renderers = Vec::new();
        for custom_type in hook.renderers.keys() {
            let by = first_renderer.get(custom_type.as_str()).copied();
            if by.is_none() {
                first_renderer.insert(custom_type, &hook.path);
            }
            hook_renderers.push(json!({"customType": custom_type, "shadowed": by.is_some()}));
            renderers.push(json!({
                "customType": custom_type,
                "hook": hook.path,
                "shadowed": by.is_some(),
                "shadowedBy": by,
            }));
        }
        hooks.push(json!({
            "index": index + 1,
            "path": hook.path,
            "resolvedPath": hook.resolved_path.to_string_lossy(),
            "kind": hook_kind(hook, &compiled),
            "handlers": handlers,
            "customEvents": hook.handlers.custom_events().collect::<Vec<_>>(),
            "commands": hook_commands,
            "renderers": hook_renderers,
        }));
    }
    let discovered: Vec<Value> = loaded
        .discovery
        .as_ref()
        .map(|d| {
            d.all
                .iter()
                .map(|item| {
                    json!({
                        "name": item.name,
                        "path": item.path.to_string_lossy(),
                        "type": item.hook_type.as_str(),
                        "tool": item.tool,
                        "level": item.level,
                        "provider": item.source.provider,
                        "providerName": item.source.provider_name,
                        "key": item.key(),
                        "shadowed": item.shadowed,
                        "refused": d.is_refused(&item.path),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    json!({
        "version": LIST_JSON_VERSION,
        "cwd": cwd.to_string_lossy(),
        "hooks": hooks,
        "events": events,
        "commands": commands,
        "renderers": renderers,
        "discovered": discovered,
        "errors": loaded.errors,
        "warnings": loaded.warnings,
        "agents": super::agents::unreachable(&loaded.hooks),
    })
}
