//! The one table of event names and event types the macros know, and the lookup with a
//! suggestion for near misses.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// Every event of SPEC.md section 3: its name and its type in `hookwright::events`, in the order
/// of `hookwright::events::EventKind::ALL`. A test in the `tests` crate fails if they drift.
pub(crate) const EVENTS: &[(&str, &str)] = &[
    ("session_start", "SessionStartEvent"),
    ("session_before_switch", "SessionBeforeSwitchEvent"),
    ("session_switch", "SessionSwitchEvent"),
    ("session_before_branch", "SessionBeforeBranchEvent"),
    ("session_branch", "SessionBranchEvent"),
    ("session_before_compact", "SessionBeforeCompactEvent"),
    ("session.compacting", "SessionCompactingEvent"),
    ("session_compact", "SessionCompactEvent"),
    ("session_before_tree", "SessionBeforeTreeEvent"),
    ("session_tree", "SessionTreeEvent"),
    ("session_shutdown", "SessionShutdownEvent"),
    ("context", "ContextEvent"),
    ("before_agent_start", "BeforeAgentStartEvent"),
    ("agent_start", "AgentStartEvent"),
    ("agent_end", "AgentEndEvent"),
    ("turn_start", "TurnStartEvent"),
    ("turn_end", "TurnEndEvent"),
    ("auto_compaction_start", "AutoCompactionStartEvent"),
    ("auto_compaction_end", "AutoCompactionEndEvent"),
    ("auto_retry_start", "AutoRetryStartEvent"),
    ("auto_retry_end", "AutoRetryEndEvent"),
    ("ttsr_triggered", "TtsrTriggeredEvent"),
    ("todo_reminder", "TodoReminderEvent"),
    ("tool_call", "ToolCallEvent"),
    ("tool_result", "ToolResultEvent"),
];

/// The type name of the event `name`, or an error message listing the known events and
/// suggesting the closest one.
pub(crate) fn lookup(name: &str) -> Result<&'static str, String> {
    if let Some((_, ty)) = EVENTS.iter().find(|(n, _)| *n == name) {
        return Ok(ty);
    }
    let names: Vec<&str> = EVENTS.iter().map(|(n, _)| *n).collect();
    let mut msg = format!("unknown event `{name}`");
    if let Some(best) = closest(name, &names) {
        msg.push_str(&format!("; did you mean `{best}`?"));
    }
    msg.push_str("\nknown events: ");
    msg.push_str(&names.join(", "));
    Err(msg)
}

/// The candidate closest to `input`, if it is close enough to be a likely typo.
pub(crate) fn closest<'a>(input: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let norm = |s: &str| -> String {
        s.chars()
            .filter(|c| !matches!(c, '_' | '.' | '-' | ' '))
            .flat_map(char::to_lowercase)
            .collect()
    };
    if let Some(same) = candidates.iter().find(|c| norm(c) == norm(input)) {
        return Some(same);
    }
    let limit = (input.chars().count() / 3).max(2);
    candidates
        .iter()
        .map(|c| (levenshtein(input, c), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// `__event_table!()`: the table as `&[(name, type name, <type as HookEvent>::NAME)]`, for the
/// test that keeps it in line with `hookwright`.
pub(crate) fn table(input: TokenStream) -> TokenStream {
    let krate = if input.is_empty() {
        quote!(::hookwright)
    } else {
        input
    };
    let rows = EVENTS.iter().map(|(name, ty)| {
        let ident = format_ident!("{}", ty);
        quote! {
            (#name, #ty, <#krate::__private::events::#ident as #krate::__private::HookEvent>::NAME)
        }
    });
    quote!(&[#(#rows),*])
}
