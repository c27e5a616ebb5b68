//! The merge core: a settings file's syntax tree (`jsonc-parser`'s CST) extended in place with
//! this binary's entries, the same for every agent (see the [module docs](super)).

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstArray, CstInputValue, CstNode, CstObject, CstObjectProp, CstRootNode};
use serde_json::{Value, json};

use super::shape::{Ours, handler, shell_command};
use super::{InstallError, Replaced};
use crate::agents::{AgentEvent, FailValue, Form, Layout};
use crate::json::{self, InputError};
use crate::text::json_kind;

/// `text`, a settings file's content without its byte order mark, as a syntax tree that keeps
/// every byte of it (see the [module docs](super)); blank `text` gives an empty tree. It is
/// decoded with the bounded, strict decoder first, so a file that is not one JSON object is an
/// error naming `file:line:column`, as everywhere else (the tree's own parser also accepts
/// comments and trailing commas).
pub(super) fn parse_settings(text: &str, shown: &str) -> Result<CstRootNode, InstallError> {
    if !text.is_empty() {
        json::decode_object::<serde_json::Map<String, Value>>(text.as_bytes(), shown)?;
    }
    CstRootNode::parse(text, &ParseOptions::default()).map_err(|e| {
        InstallError::Input(InputError::Invalid {
            name: shown.to_owned(),
            message: e.to_string(),
        })
    })
}

/// The value of `node`, a JSON value of a settings file (already decoded, so it parses).
pub(super) fn value_of(node: &CstNode) -> Value {
    serde_json::from_str(&node.to_string()).unwrap_or(Value::Null)
}

/// `value` as a value to insert into the syntax tree.
fn cst_value(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(cst_value).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), cst_value(v))).collect())
        }
    }
}

/// The property `key` of `object`: the last one when the key is repeated, as a JSON parser
/// (and so the agent) reads it.
pub(super) fn property(object: &CstObject, key: &str) -> Option<CstObjectProp> {
    object
        .properties()
        .into_iter()
        .rfind(|p| p.decoded_name().as_deref() == Some(key))
}

/// The object under `key` in `parent`, added when missing; `shown` names the key in the error.
fn object_under(parent: &CstObject, key: &str, shown: &str) -> Result<CstObject, String> {
    match property(parent, key) {
        None => Ok(parent
            .append(key, CstInputValue::Object(Vec::new()))
            .object_value_or_set()),
        Some(prop) => prop
            .object_value()
            .ok_or_else(|| wrong_type(&prop, shown, "an object")),
    }
}

/// The array under `key` in `parent`, added when missing; `shown` names the key in the error.
fn array_under(parent: &CstObject, key: &str, shown: &str) -> Result<CstArray, String> {
    match property(parent, key) {
        None => Ok(parent
            .append(key, CstInputValue::Array(Vec::new()))
            .array_value_or_set()),
        Some(prop) => prop
            .array_value()
            .ok_or_else(|| wrong_type(&prop, shown, "an array")),
    }
}

fn wrong_type(prop: &CstObjectProp, shown: &str, expected: &str) -> String {
    let found = prop.value().map_or(Value::Null, |v| value_of(&v));
    format!("{shown} must be {expected}, found {}", json_kind(&found))
}

/// The `hooks` list of a matcher group, when the group is an object with one.
pub(super) fn handlers(group: &CstNode) -> Option<CstArray> {
    property(&group.as_object()?, "hooks")?.array_value()
}

/// What [`merge`] changed.
#[derive(Debug, Default)]
pub(super) struct Merged {
    /// The events whose entries were added.
    pub(super) added: Vec<AgentEvent>,
    /// The entries for another path of this binary that were pointed at it or removed.
    pub(super) replaced: Vec<Replaced>,
    /// The events whose entry of ours (already there) got the fail-closed key.
    pub(super) upgraded: Vec<AgentEvent>,
    /// The events whose group of ours (already there) got the matcher install gives it.
    pub(super) matched: Vec<AgentEvent>,
}

/// Adds the missing entries to `root`, points (or, when the event already has one for this
/// binary, removes) this tool's entries for other paths of the binary, and sets the
/// fail-closed key on our entries that lack it, editing the syntax tree in place so that
/// everything else stays as written. Returns what changed, or which key has the wrong type.
pub(super) fn merge(
    root: &CstObject,
    ours: &Ours<'_>,
    events: &[AgentEvent],
) -> Result<Merged, String> {
    let mut merged = Merged::default();
    if events.is_empty() {
        return Ok(merged);
    }
    let layout = ours.target.protocol().install().layout;
    let hooks = object_under(root, "hooks", "`hooks`")?;
    let Merged {
        added,
        replaced,
        upgraded,
        matched,
    } = &mut merged;
    for &event in events {
        let list = array_under(&hooks, event.as_str(), &format!("`hooks.{event}`"))?;
        // The lists of handler entries of `event`: one per matcher group, or the event's own.
        let entry_lists = entry_lists(&list, layout);
        let mut present = entry_lists
            .iter()
            .any(|entries| runs_us(entries, ours, event));
        for entries in &entry_lists {
            if repoint(entries, ours, event, &mut present, replaced) {
                drop_if_emptied(entries, layout, our_matcher(ours.target, event));
            }
        }
        let mut set = false;
        for entries in &entry_lists {
            set |= present && set_fail_closed(entries, ours, event);
        }
        if set {
            upgraded.push(event);
        }
        if present
            && let Some(matcher) = our_matcher(ours.target, event)
            && entry_lists
                .iter()
                .any(|entries| set_matcher(entries, layout, ours, event, matcher))
        {
            matched.push(event);
        }
        if !present {
            let entry = handler(ours, event);
            match layout {
                Layout::Groups => {
                    let group = match our_matcher(ours.target, event) {
                        Some(matcher) => json!({ "matcher": matcher, "hooks": [entry] }),
                        None => json!({ "hooks": [entry] }),
                    };
                    list.append(cst_value(&group))
                }
                Layout::Versioned => list.append(cst_value(&entry)),
            };
            added.push(event);
        }
    }
    if layout == Layout::Versioned && property(root, "version").is_none() {
        root.insert(0, "version", CstInputValue::Number("1".to_owned()));
    }
    Ok(merged)
}

/// The lists of handler entries of an event whose value is `list`: one per matcher group
/// ([`Layout::Groups`]), or the event's own ([`Layout::Versioned`]).
fn entry_lists(list: &CstArray, layout: Layout) -> Vec<CstArray> {
    match layout {
        Layout::Groups => list.elements().iter().filter_map(handlers).collect(),
        Layout::Versioned => vec![list.clone()],
    }
}

/// The `matcher` install gives the group of `event`'s entry for `target`
/// ([`InstallShape::matchers`](crate::agents::InstallShape::matchers)), if any.
pub(super) fn our_matcher(target: crate::agents::Agent, event: AgentEvent) -> Option<&'static str> {
    let matchers = target.protocol().install().matchers;
    matchers
        .iter()
        .find(|(e, _)| *e == event.as_str())
        .map(|(_, m)| *m)
}

/// Gives the group of `entries` the matcher `matcher` when the group has no other key and
/// every entry in it is ours for `event` (an install from before the matcher); a group that
/// holds another tool's entry is left as it is. Returns whether it did.
fn set_matcher(
    entries: &CstArray,
    layout: Layout,
    ours: &Ours<'_>,
    event: AgentEvent,
    matcher: &str,
) -> bool {
    let elements = entries.elements();
    if layout != Layout::Groups
        || elements.is_empty()
        || !elements.iter().all(|h| ours.runs_us(&value_of(h), event))
    {
        return false;
    }
    let Some(group) = entries
        .parent()
        .and_then(|p| p.parent())
        .and_then(|g| g.as_object())
    else {
        return false;
    };
    if group.properties().len() != 1 {
        return false;
    }
    group.insert(0, "matcher", CstInputValue::String(matcher.to_owned()));
    true
}

/// A group that held nothing but the removed entries goes with them: the matcher group of
/// `entries` (in [`Layout::Groups`]) is removed when `entries` is empty and the group has no
/// other key than the `matcher` install gives it (`matcher`).
fn drop_if_emptied(entries: &CstArray, layout: Layout, matcher: Option<&str>) {
    if layout != Layout::Groups || !entries.elements().is_empty() {
        return;
    }
    let Some(group) = entries.parent().and_then(|p| p.parent()) else {
        return;
    };
    let ours_only = group.as_object().is_some_and(|g| {
        g.properties()
            .iter()
            .all(|p| match p.decoded_name().as_deref() {
                Some("hooks") => true,
                Some("matcher") => {
                    matcher.is_some() && p.value().map(|v| value_of(&v)) == matcher.map(Value::from)
                }
                _ => false,
            })
    });
    if ours_only {
        group.remove();
    }
}

/// The `hooks` object of a settings file and the entry list of each event it has.
pub(super) struct EventLists {
    /// The `hooks` property of the file's root.
    hooks_prop: CstObjectProp,
    /// Its object.
    hooks: CstObject,
    /// For each event asked for that `hooks` has: the event, its property and its list.
    pub(super) lists: Vec<(AgentEvent, CstObjectProp, CstArray)>,
}

/// The [`EventLists`] of `root` for `events` (`None` without a `hooks` key), or which key has
/// the wrong type.
pub(super) fn event_lists(
    root: &CstObject,
    events: &[AgentEvent],
) -> Result<Option<EventLists>, String> {
    let Some(hooks_prop) = property(root, "hooks") else {
        return Ok(None);
    };
    let hooks = hooks_prop
        .object_value()
        .ok_or_else(|| wrong_type(&hooks_prop, "`hooks`", "an object"))?;
    let mut lists = Vec::new();
    for &event in events {
        let Some(prop) = property(&hooks, event.as_str()) else {
            continue;
        };
        let list = prop
            .array_value()
            .ok_or_else(|| wrong_type(&prop, &format!("`hooks.{event}`"), "an array"))?;
        lists.push((event, prop, list));
    }
    Ok(Some(EventLists {
        hooks_prop,
        hooks,
        lists,
    }))
}

/// Removes from `root` every entry that [`Ours::is_ours`] counts as this tool's, for each of
/// `events`, editing the syntax tree in place so that everything else stays as written; what
/// install added around them goes too: a group left empty, an event key left with no entry,
/// a `hooks` object left with no key, and then ([`Layout::Versioned`]) a `version` left alone
/// in the file. Returns the event of each entry removed, or which key has the wrong type.
pub(super) fn remove(
    root: &CstObject,
    ours: &Ours<'_>,
    events: &[AgentEvent],
) -> Result<Vec<AgentEvent>, String> {
    let layout = ours.target.protocol().install().layout;
    let mut removed = Vec::new();
    let Some(EventLists {
        hooks_prop,
        hooks,
        lists,
    }) = event_lists(root, events)?
    else {
        return Ok(removed);
    };
    for (event, prop, list) in lists {
        let before = removed.len();
        for entries in entry_lists(&list, layout) {
            let mut removed_any = false;
            for h in entries.elements() {
                if ours.is_ours(&value_of(&h), event) {
                    h.remove();
                    removed.push(event);
                    removed_any = true;
                }
            }
            if removed_any {
                drop_if_emptied(&entries, layout, our_matcher(ours.target, event));
            }
        }
        if removed.len() > before && list.elements().is_empty() {
            prop.remove();
        }
    }
    if !removed.is_empty() && hooks.properties().is_empty() {
        hooks_prop.remove();
        // The `version` install adds to a versioned file, when nothing else is left.
        if layout == Layout::Versioned
            && let [only] = root.properties().as_slice()
            && only.decoded_name().as_deref() == Some("version")
        {
            only.clone().remove();
        }
    }
    Ok(removed)
}

/// Whether one of `entries` already runs this binary for `event`.
fn runs_us(entries: &CstArray, ours: &Ours<'_>, event: AgentEvent) -> bool {
    entries
        .elements()
        .iter()
        .any(|h| ours.runs_us(&value_of(h), event))
}

/// Points each of `entries` that this tool installed for `event` from another path of the
/// binary at this binary, or removes it when the event already runs this binary (`present`,
/// set once one was pointed); removes the entries of this tool's other form (the server's
/// with a plain install, the command's with `--http`). Returns whether it removed any.
fn repoint(
    entries: &CstArray,
    ours: &Ours<'_>,
    event: AgentEvent,
    present: &mut bool,
    replaced: &mut Vec<Replaced>,
) -> bool {
    let mut removed_any = false;
    for h in entries.elements() {
        let entry = value_of(&h);
        if ours.runs_us(&entry, event) {
            continue;
        }
        // An entry of the server's that this install does not write (a plain install after
        // `--http`; an `--http` entry of an older shape) goes: the event's entry is another.
        if let Some(old_binary) = ours.server_entry(&entry, event) {
            replaced.push(Replaced {
                event,
                old_binary,
                removed: true,
            });
            h.remove();
            removed_any = true;
            continue;
        }
        let Some((old_binary, form)) = ours.installed_by_us(&entry, event) else {
            continue;
        };
        // With `--http`, a command entry of ours goes: the event's entry is another.
        let remove = *present || ours.http.is_some();
        replaced.push(Replaced {
            event,
            old_binary: old_binary.to_string(),
            removed: remove,
        });
        if remove {
            h.remove();
            removed_any = true;
            continue;
        }
        let (key, command) = match form {
            Form::Exec => ("command", ours.command.word(ours.target, Form::Exec)),
            Form::Shell => (
                ours.command_key(),
                shell_command(ours.target, &ours.command, event),
            ),
        };
        if let Some(prop) = h.as_object().and_then(|o| property(&o, key)) {
            prop.set_value(CstInputValue::String(command));
        }
        *present = true;
    }
    removed_any
}

/// Sets the fail-closed key, when `ours` writes it for `event`, on each of our entries for
/// `event` in `entries` that has another value or none; whether one was set.
fn set_fail_closed(entries: &CstArray, ours: &Ours<'_>, event: AgentEvent) -> bool {
    let Some((key, value)) = ours.fail_closed_key(event) else {
        return false;
    };
    let mut set = false;
    for h in entries.elements() {
        let entry = value_of(&h);
        if !ours.runs_us(&entry, event) || entry.get(key) == Some(&value.json()) {
            continue;
        }
        let Some(object) = h.as_object() else {
            continue;
        };
        let cst = match value {
            FailValue::Text(text) => CstInputValue::String(text.to_owned()),
            FailValue::True => CstInputValue::Bool(true),
        };
        match property(&object, key) {
            Some(prop) => prop.set_value(cst),
            None => {
                object.append(key, cst);
            }
        }
        set = true;
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::hook_json::PRE_TOOL_USE;
    use crate::install::Target;

    #[test]
    fn merge_detects_shell_form() {
        let root = parse_settings(
            r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"/x/hooks claude PreToolUse"}]}]}}"#,
            "settings.json",
        )
        .unwrap();
        let merged = merge(
            &root.object_value_or_set(),
            &Ours::new(Target::Claude, "/x/hooks"),
            &[PRE_TOOL_USE],
        )
        .unwrap();
        assert!(merged.added.is_empty());
        assert!(merged.replaced.is_empty());
    }
}
