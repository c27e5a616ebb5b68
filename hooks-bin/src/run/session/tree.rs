//! The tree navigation session action: the leaf of the current session moves to another
//! entry, with a branch summary when asked for.
//!
//! The model's context is built from the current branch of the session (root to leaf), not
//! from every entry in the file ([`super::context_messages`]): after a navigation the next
//! prompt continues from the entry navigated to, and the messages of the branch left behind
//! are no longer sent.

use hookwright::SessionManager;
use hookwright::context::{NavigateTreeOptions, SessionActionResult};
use hookwright::events::{Extra, SessionBeforeTreeEvent, SessionTreeEvent, TreePreparation};
use hookwright::session::branch_path;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::super::host::Shared;
use super::NOT_DONE;

impl Shared {
    /// `navigate_tree`: `session_before_tree` (cancellable; a hook may supply the summary),
    /// then the leaf moves to the target (with a `branch_summary` entry written as the
    /// target's child when a summary is asked for), then `session_tree`.
    ///
    /// The [`TreePreparation`]: `oldLeafId` is the current leaf, `commonAncestorId` the
    /// deepest entry on both the old branch and the target's, `entriesToSummarize` the old
    /// branch's entries after that ancestor (root first). A cancel moves nothing. A summary is
    /// written only when `summarize` was asked for and there is something to summarize (or a
    /// hook supplied one); the hook's `summary` wins over the built-in (model-less) one. The
    /// summary entry (`fromId`: the target, as upstream's `branchWithSummary`) becomes the new
    /// leaf. Navigating to the current leaf does nothing (no events), as upstream.
    ///
    /// Unlike upstream's interactive `/tree`, selecting a user message does not move the leaf
    /// to its parent to re-edit the prompt: the leaf is the entry named.
    pub(in crate::run) async fn navigate_tree(
        &self,
        target_id: String,
        options: NavigateTreeOptions,
    ) -> SessionActionResult {
        let current = self.session.get();
        let entries = current.entries();
        if !entries.iter().any(|e| e.id == target_id) {
            self.fail(&format!(
                "the current session has no entry with id {target_id}"
            ));
            return SessionActionResult::default();
        }
        let old_leaf = current.leaf_id();
        if old_leaf.as_deref() == Some(target_id.as_str()) {
            self.out.tree(
                false,
                old_leaf.as_deref(),
                &target_id,
                old_leaf.as_deref(),
                None,
            );
            return SessionActionResult::default();
        }
        let old_path = branch_path(&entries, old_leaf.as_deref());
        let target_path = branch_path(&entries, Some(&target_id));
        let common = target_path
            .iter()
            .rev()
            .find(|t| old_path.iter().any(|o| o.id == t.id))
            .map(|e| e.id.clone());
        let split = common
            .as_ref()
            .and_then(|c| old_path.iter().position(|e| &e.id == c))
            .map_or(0, |i| i + 1);
        let to_summarize = old_path[split..].to_vec();
        let before = SessionBeforeTreeEvent {
            preparation: TreePreparation {
                target_id: target_id.clone(),
                old_leaf_id: old_leaf.clone(),
                common_ancestor_id: common,
                entries_to_summarize: to_summarize.clone(),
                user_wants_summary: options.summarize,
            },
            signal: CancellationToken::new(),
        };
        let result = self.emit(&before).await;
        if result.as_ref().is_some_and(|r| r.cancel == Some(true)) {
            self.out.tree(
                true,
                old_leaf.as_deref(),
                &target_id,
                old_leaf.as_deref(),
                None,
            );
            return SessionActionResult { cancelled: true };
        }
        if let Err(e) = current.set_leaf(Some(&target_id)) {
            self.fail(&e.to_string());
            return NOT_DONE;
        }
        let hook_summary = result.and_then(|r| r.summary).filter(|_| options.summarize);
        let mut summary_entry = None;
        let mut from_extension = None;
        if options.summarize && (hook_summary.is_some() || !to_summarize.is_empty()) {
            from_extension = Some(hook_summary.is_some());
            let (summary, details) = match hook_summary {
                Some(s) => (s.summary, s.details),
                None => (
                    format!(
                        "Left a branch of {} entries (scripted session: no model summary).",
                        to_summarize.len()
                    ),
                    None,
                ),
            };
            let mut fields = Extra::new();
            fields.insert("fromId".to_owned(), Value::from(target_id.as_str()));
            fields.insert("summary".to_owned(), Value::from(summary));
            if let Some(details) = details {
                fields.insert("details".to_owned(), details);
            }
            fields.insert(
                "fromHook".to_owned(),
                Value::from(from_extension == Some(true)),
            );
            match current.append_entry("branch_summary", fields) {
                Ok(entry) => summary_entry = Some(entry),
                Err(e) => self.fail(&e.to_string()),
            }
        }
        let new_leaf = current.leaf_id();
        self.out.tree(
            false,
            old_leaf.as_deref(),
            &target_id,
            new_leaf.as_deref(),
            summary_entry.as_ref().map(|e| e.id.as_str()),
        );
        self.emit(&SessionTreeEvent {
            new_leaf_id: new_leaf,
            old_leaf_id: old_leaf,
            summary_entry,
            from_extension,
        })
        .await;
        SessionActionResult::default()
    }
}
