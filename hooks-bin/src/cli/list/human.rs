//! The readable listing, rendered from the JSON one: a section per key, rows as aligned
//! columns, every text sanitized.

use serde_json::Value;

use crate::sanitize::clean;

/// Rows of cells as aligned text, each line indented by two spaces.
fn table(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::from(" ");
        for (c, cell) in row.iter().enumerate() {
            line.push(' ');
            line.push_str(cell);
            if c + 1 < row.len() {
                let pad = widths[c] - cell.chars().count() + 1;
                line.push_str(&" ".repeat(pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn text(value: &Value, key: &str) -> String {
    match value.get(key) {
        Some(Value::String(s)) => clean(s),
        Some(Value::Null) | None => String::new(),
        Some(other) => clean(&other.to_string()),
    }
}

/// `items` as a table of the rows `row` makes of them, or `(none)`.
fn rows_or_none(out: &mut String, items: &[Value], row: impl Fn(&Value) -> Vec<String>) {
    if items.is_empty() {
        out.push_str("  (none)\n");
    } else {
        out.push_str(&table(&items.iter().map(row).collect::<Vec<_>>()));
    }
}

/// Whether `value`'s `key` is `true`.
fn flag(value: &Value, key: &str) -> bool {
    value.get(key) == Some(&Value::Bool(true))
}

/// The readable listing.
#[must_use]
pub fn human(listing: &Value) -> String {
    let list = |key: &str| {
        listing
            .get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let hooks = list("hooks");
    let mut out = format!(
        "Hooks for {} ({} loaded, in dispatch order)\n",
        text(listing, "cwd"),
        hooks.len()
    );
    rows_or_none(&mut out, &hooks, |h| {
        vec![
            format!("{}.", text(h, "index")),
            text(h, "path"),
            text(h, "kind"),
        ]
    });
    out.push_str("\nHandlers by event (dispatch order)\n");
    let events = list("events");
    if events.is_empty() {
        out.push_str("  (none)\n");
    }
    for event in &events {
        out.push_str(&format!("  {}\n", text(event, "event")));
        let rows: Vec<Vec<String>> = event
            .get("handlers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, h)| {
                vec![
                    format!("  {}.", i + 1),
                    text(h, "hook"),
                    text(h, "name"),
                    text(h, "location"),
                ]
            })
            .collect();
        out.push_str(&table(&rows));
    }
    out.push_str("\nCommands\n");
    rows_or_none(&mut out, &list("commands"), |c| {
        let mut row = vec![
            format!("/{}", text(c, "name")),
            text(c, "description"),
            text(c, "hook"),
            text(c, "location"),
        ];
        if flag(c, "shadowed") {
            row.push(format!("(shadowed by {})", text(c, "shadowedBy")));
        }
        row
    });
    out.push_str("\nRenderers\n");
    rows_or_none(&mut out, &list("renderers"), |r| {
        let mut row = vec![text(r, "customType"), text(r, "hook")];
        if flag(r, "shadowed") {
            row.push(format!("(shadowed by {})", text(r, "shadowedBy")));
        }
        row
    });
    out.push_str("\nDiscovered hook files\n");
    rows_or_none(&mut out, &list("discovered"), |d| {
        let mut row = vec![
            text(d, "type"),
            text(d, "tool"),
            text(d, "path"),
            format!("{} ({})", text(d, "provider"), text(d, "level")),
        ];
        if flag(d, "shadowed") {
            row.push("(shadowed)".to_owned());
        }
        if flag(d, "refused") {
            row.push("(refused: see Load errors)".to_owned());
        }
        row
    });
    out.push_str("\nHandlers each agent can never call\n");
    for agent in &list("agents") {
        let handlers = agent.get("unreachable").and_then(Value::as_array);
        let commands = agent.get("unreachableCommands").and_then(Value::as_array);
        let mut rows: Vec<Vec<String>> = handlers
            .into_iter()
            .flatten()
            .map(|h| vec![text(h, "event"), text(h, "hook"), text(h, "name")])
            .collect();
        rows.extend(
            commands
                .into_iter()
                .flatten()
                .map(|c| vec![format!("/{}", text(c, "name")), text(c, "hook")]),
        );
        if rows.is_empty() {
            out.push_str(&format!("  {}: (none)\n", text(agent, "agent")));
        } else {
            out.push_str(&format!("  {}:\n", text(agent, "agent")));
            for line in table(&rows).lines() {
                out.push_str(&format!("  {line}\n"));
            }
        }
    }
    let errors = list("errors");
    if !errors.is_empty() {
        out.push_str("\nLoad errors\n");
        for e in &errors {
            out.push_str(&format!("  {}: {}\n", text(e, "path"), text(e, "error")));
        }
    }
    let warnings = list("warnings");
    if !warnings.is_empty() {
        out.push_str("\nWarnings\n");
        for w in &warnings {
            out.push_str(&format!("  {}\n", clean(w.as_str().unwrap_or_default())));
        }
    }
    out
}
