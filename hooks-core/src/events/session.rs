//! Session events (SPEC-DETAILS section 1.1) and their results.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::combine::Cancels;
use super::message::{Extra, Message};

/// One entry of a session file (`SessionEntry`): a `type`, an `id`, a `parentId`, a timestamp,
/// and the fields of that entry type (kept in `extra`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionEntry {
    /// The entry type: `message`, `custom`, `custom_message`, `compaction`, `branch_summary`, ...
    #[serde(rename = "type")]
    pub entry_type: String,
    /// The entry id.
    #[serde(default)]
    pub id: String,
    /// The id of the entry this one follows (`null` for the first).
    #[serde(default)]
    pub parent_id: Option<String>,
    /// ISO-8601 timestamp.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// The entry's own fields.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A compaction entry of a session file.
pub type CompactionEntry = SessionEntry;
/// A branch-summary entry of a session file.
pub type BranchSummaryEntry = SessionEntry;

/// Why a session switch happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SwitchReason {
    /// A new session.
    New,
    /// Resuming an existing session file.
    Resume,
    /// Forking the current session.
    Fork,
}

/// `CompactionPreparation`: what the built-in compaction is about to summarise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionPreparation {
    /// The first entry kept after compaction.
    pub first_kept_entry_id: String,
    /// Messages that will be summarised.
    #[serde(default)]
    pub messages_to_summarize: Vec<Message>,
    /// Messages of a split turn's prefix.
    #[serde(default)]
    pub turn_prefix_messages: Vec<Message>,
    /// Messages kept verbatim.
    #[serde(default)]
    pub recent_messages: Vec<Message>,
    /// Whether a turn is split by the cut.
    #[serde(default)]
    pub is_split_turn: bool,
    /// Token count before compaction.
    #[serde(default)]
    pub tokens_before: u64,
    /// The previous compaction's summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_summary: Option<String>,
    /// The previous compaction's preserved data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_preserve_data: Option<Map<String, Value>>,
    /// Files read and modified.
    #[serde(default)]
    pub file_ops: Value,
    /// Compaction settings.
    #[serde(default)]
    pub settings: Value,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Extra,
}

/// `CompactionResult`: a compaction, built-in or supplied by a hook.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionResult {
    /// The summary text.
    pub summary: String,
    /// A one-line summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short_summary: Option<String>,
    /// The first entry kept after compaction.
    pub first_kept_entry_id: String,
    /// Token count before compaction.
    pub tokens_before: u64,
    /// Hook-specific details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// Data preserved across compactions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preserve_data: Option<Map<String, Value>>,
}

/// `TreePreparation`: what a tree navigation is about to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TreePreparation {
    /// The entry navigated to.
    pub target_id: String,
    /// The current leaf.
    pub old_leaf_id: Option<String>,
    /// The common ancestor of old leaf and target.
    pub common_ancestor_id: Option<String>,
    /// Entries a summary would cover.
    #[serde(default)]
    pub entries_to_summarize: Vec<SessionEntry>,
    /// Whether the user asked for a summary.
    pub user_wants_summary: bool,
}

/// `session_start`: a session has started.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct SessionStartEvent {}

/// `session_before_switch`: a switch to another session is about to happen; cancellable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct SessionBeforeSwitchEvent {
    /// Why the switch happens.
    pub reason: SwitchReason,
    /// The session file resumed (only for `resume`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_session_file: Option<String>,
}

/// Result of `session_before_switch`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionBeforeSwitchResult {
    /// `true` cancels the switch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<bool>,
}

/// `session_switch`: the session was switched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct SessionSwitchEvent {
    /// Why the switch happened.
    pub reason: SwitchReason,
    /// The session file before the switch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_session_file: Option<String>,
}

/// `session_before_branch`: a branch from an entry is about to happen; cancellable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct SessionBeforeBranchEvent {
    /// The entry branched from.
    pub entry_id: String,
}

/// Result of `session_before_branch`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionBeforeBranchResult {
    /// `true` cancels the branch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<bool>,
    /// `true` branches without rewinding the in-memory conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_conversation_restore: Option<bool>,
}

/// `session_branch`: the session was branched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct SessionBranchEvent {
    /// The session file before the branch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_session_file: Option<String>,
}

/// `session_before_compact`: a compaction is about to run; cancellable, or replaceable by a
/// hook-supplied compaction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct SessionBeforeCompactEvent {
    /// What the compaction would summarise.
    pub preparation: CompactionPreparation,
    /// The branch's entries, root to current leaf.
    #[serde(default)]
    pub branch_entries: Vec<SessionEntry>,
    /// Instructions the user gave for this compaction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_instructions: Option<String>,
    /// Cancelled when the compaction is aborted (`AbortSignal`); not serialized.
    #[serde(skip)]
    pub signal: CancellationToken,
}

/// Result of `session_before_compact`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionBeforeCompactResult {
    /// `true` cancels the compaction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<bool>,
    /// A compaction to use instead of the built-in summariser.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compaction: Option<CompactionResult>,
}

/// `session.compacting` (with a dot): the built-in summariser is about to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct SessionCompactingEvent {
    /// The session id.
    pub session_id: String,
    /// The messages being compacted.
    #[serde(default)]
    pub messages: Vec<Message>,
}

/// Result of `session.compacting`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionCompactingResult {
    /// Extra lines of summary context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Vec<String>>,
    /// A prompt that overrides the summary prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Data stored with the compaction entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preserve_data: Option<Map<String, Value>>,
}

/// `session_compact`: a compaction was written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct SessionCompactEvent {
    /// The compaction entry written.
    pub compaction_entry: CompactionEntry,
    /// Whether a hook supplied the compaction.
    pub from_extension: bool,
}

/// `session_shutdown`: the session is ending.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct SessionShutdownEvent {}

/// `session_before_tree`: a tree navigation is about to happen; cancellable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct SessionBeforeTreeEvent {
    /// What the navigation would do.
    pub preparation: TreePreparation,
    /// Cancelled when the navigation is aborted (`AbortSignal`); not serialized.
    #[serde(skip)]
    pub signal: CancellationToken,
}

/// Result of `session_before_tree`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionBeforeTreeResult {
    /// `true` cancels the navigation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<bool>,
    /// A summary to use when the user asked for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<TreeSummary>,
}

/// A hook-supplied branch summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TreeSummary {
    /// The summary text.
    pub summary: String,
    /// Hook-specific details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

/// `session_tree`: a tree navigation happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct SessionTreeEvent {
    /// The new leaf (`null` for the root).
    pub new_leaf_id: Option<String>,
    /// The old leaf (`null` for the root).
    pub old_leaf_id: Option<String>,
    /// The summary entry written, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_entry: Option<BranchSummaryEntry>,
    /// Whether a hook supplied the summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_extension: Option<bool>,
}

/// The four cancellable results: `cancel: true` ends a `session_before_*` emission.
macro_rules! cancels {
    ($($ty:ty),*) => {$(
        impl Cancels for $ty {
            fn cancels(&self) -> bool {
                self.cancel == Some(true)
            }
        }
    )*};
}
cancels!(
    SessionBeforeSwitchResult,
    SessionBeforeBranchResult,
    SessionBeforeCompactResult,
    SessionBeforeTreeResult
);
