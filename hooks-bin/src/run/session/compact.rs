//! The compaction session action: `session_before_compact` (a hook may cancel or supply the
//! compaction), else the built-in model-less summary; then the compaction entry.

use hookwright::SessionManager;
use hookwright::events::{
    CompactionPreparation, CompactionResult, Extra, Message, SessionBeforeCompactEvent,
    SessionCompactEvent, SessionCompactingEvent,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::super::host::Shared;
use super::entry_message;

impl Shared {
    /// A compaction: `session_before_compact` (cancellable; a hook may supply the compaction),
    /// otherwise `session.compacting` and the built-in, model-less summary; then the compaction
    /// entry and `session_compact`.
    pub(in crate::run) async fn compact(
        &self,
        custom_instructions: Option<String>,
        summary: Option<String>,
    ) {
        let current = self.session.get();
        let branch = current.branch_entries();
        // Keep the last user prompt and what follows it; summarise what came before.
        let keep_from = branch
            .iter()
            .rposition(|e| {
                e.entry_type == "message"
                    && e.extra.get("message").and_then(|m| m.get("role")) == Some(&json!("user"))
            })
            .unwrap_or(branch.len().saturating_sub(1));
        let first_kept = branch
            .get(keep_from)
            .map(|e| e.id.clone())
            .unwrap_or_default();
        let to_summarize: Vec<Message> = branch[..keep_from]
            .iter()
            .filter_map(entry_message)
            .collect();
        let recent: Vec<Message> = branch[keep_from..]
            .iter()
            .filter_map(entry_message)
            .collect();
        let tokens_before = branch
            .iter()
            .map(|e| serde_json::to_string(&e.extra).map_or(0, |s| s.len() as u64 / 4))
            .sum();
        // The branch's last compaction: hooks get its summary and preserved data (upstream's
        // `previousSummary`, `previousPreserveData`), and the built-in summary keeps its text.
        let previous = branch.iter().rev().find(|e| e.entry_type == "compaction");
        let previous_summary = previous
            .and_then(|e| e.extra.get("summary"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let previous_preserve_data = previous
            .and_then(|e| e.extra.get("preserveData"))
            .and_then(Value::as_object)
            .cloned();
        let before = SessionBeforeCompactEvent {
            preparation: CompactionPreparation {
                first_kept_entry_id: first_kept.clone(),
                messages_to_summarize: to_summarize.clone(),
                turn_prefix_messages: Vec::new(),
                recent_messages: recent,
                is_split_turn: false,
                tokens_before,
                previous_summary: previous_summary.clone(),
                previous_preserve_data,
                file_ops: json!({}),
                settings: json!({}),
                extra: Extra::new(),
            },
            branch_entries: branch.clone(),
            custom_instructions,
            signal: CancellationToken::new(),
        };
        let result = self.emit(&before).await;
        if result.as_ref().is_some_and(|r| r.cancel == Some(true)) {
            self.out.compaction(true, false, None, None);
            return;
        }
        let (compaction, from_extension) = match result.and_then(|r| r.compaction) {
            Some(c) => (c, true),
            None => {
                let compacting = SessionCompactingEvent {
                    session_id: current.session_id(),
                    messages: to_summarize.clone(),
                };
                let extra = self.emit(&compacting).await.unwrap_or_default();
                let mut text = summary.unwrap_or_else(|| {
                    format!(
                        "Summary of {} earlier messages (scripted session: no model).",
                        to_summarize.len()
                    )
                });
                if let Some(previous) = previous_summary {
                    text.push_str("\n\nPrevious summary:\n");
                    text.push_str(&previous);
                }
                if let Some(lines) = extra.context.filter(|l| !l.is_empty()) {
                    text.push_str("\n\nAdditional context:\n");
                    text.push_str(
                        &lines
                            .iter()
                            .map(|l| format!("- {l}"))
                            .collect::<Vec<_>>()
                            .join("\n"),
                    );
                }
                (
                    CompactionResult {
                        summary: text,
                        short_summary: None,
                        first_kept_entry_id: first_kept,
                        tokens_before,
                        details: extra.prompt.map(|p| json!({"prompt": p})),
                        preserve_data: extra.preserve_data,
                    },
                    false,
                )
            }
        };
        let mut fields = match serde_json::to_value(&compaction) {
            Ok(Value::Object(map)) => map,
            _ => Extra::new(),
        };
        fields.insert("fromHook".to_owned(), Value::from(from_extension));
        let entry = match current.append_entry("compaction", fields) {
            Ok(entry) => entry,
            Err(e) => {
                self.fail(&e.to_string());
                return;
            }
        };
        self.out.compaction(
            false,
            from_extension,
            Some(&entry.id),
            Some(&compaction.summary),
        );
        self.emit(&SessionCompactEvent {
            compaction_entry: entry,
            from_extension,
        })
        .await;
    }
}
