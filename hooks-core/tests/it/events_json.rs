//! The JSON wire form (SPEC.md section 3 and the naming note, SPEC-DETAILS section 1): every one
//! of the 25 events and every result type round-trips against a literal upstream-shaped JSON
//! string (camelCase keys, `type` first); unknown message/content fields are kept; a wrong
//! `type` is rejected; `EventKind` names all 25 events.

use std::str::FromStr;

use hookwright::events::*;
use hookwright::{EventKind, HookError, SessionActionResult};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

// ---- shared upstream-shaped fragments ------------------------------------------------------

const USER: &str = r#"{"role":"user","content":"fix the bug","timestamp":1767600000000}"#;
const USER_PARTS: &str = r#"{"role":"user","content":[{"type":"text","text":"see image"},{"type":"image","data":"aGVsbG8=","mimeType":"image/png"}],"timestamp":1767600000001}"#;
const ASSISTANT: &str = r#"{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","thinkingSignature":"sig"},{"type":"text","text":"Running ls"},{"type":"toolCall","id":"call-1","name":"bash","arguments":{"command":"ls"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.3}},"stopReason":"toolUse","timestamp":1767600000002}"#;
const TOOL_RESULT_MESSAGE: &str = r#"{"role":"toolResult","toolCallId":"call-1","toolName":"bash","content":[{"type":"text","text":"a.txt\n"}],"details":{"exitCode":0},"isError":false,"timestamp":1767600000003}"#;
const CUSTOM: &str = r#"{"role":"custom","customType":"note","content":"remember","display":true,"details":{"k":1},"attribution":"agent","timestamp":1767600000004}"#;
const BASH_EXECUTION: &str = r#"{"role":"bashExecution","command":"ls","output":"a.txt","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1767600000005}"#;

fn messages() -> String {
    format!("[{USER},{USER_PARTS},{ASSISTANT},{TOOL_RESULT_MESSAGE},{CUSTOM},{BASH_EXECUTION}]")
}

const ENTRY: &str = r#"{"type":"message","id":"e1","parentId":null,"timestamp":"2026-01-05T09:03:07.123Z","message":{"role":"user","content":"hi","timestamp":1}}"#;
const COMPACTION_ENTRY: &str = r#"{"type":"compaction","id":"c1","parentId":"e9","timestamp":"2026-01-05T09:03:08.000Z","summary":"did things","firstKeptEntryId":"e5","tokensBefore":12000,"details":{"readFiles":["a.rs"]},"fromHook":false}"#;
const COMPACTION_RESULT: &str = r#"{"summary":"did things","shortSummary":"things","firstKeptEntryId":"e5","tokensBefore":12000,"details":{"readFiles":[]},"preserveData":{"todo":["x"]}}"#;

fn preparation() -> String {
    format!(
        r#"{{"firstKeptEntryId":"e5","messagesToSummarize":[{USER},{ASSISTANT}],"turnPrefixMessages":[],"recentMessages":[{TOOL_RESULT_MESSAGE}],"isSplitTurn":false,"tokensBefore":12000,"previousSummary":"earlier","previousPreserveData":{{"k":"v"}},"fileOps":{{"read":["a.rs"],"edited":[]}},"settings":{{"enabled":true,"reserveTokens":16384,"keepRecentTokens":20000}}}}"#
    )
}

// ---- helpers -------------------------------------------------------------------------------

/// Parses `literal` as `T`, serializes it back, and checks the JSON is the literal's.
fn round_trip<T>(literal: &str) -> T
where
    T: Serialize + DeserializeOwned + std::fmt::Debug,
{
    let parsed: T =
        serde_json::from_str(literal).unwrap_or_else(|e| panic!("cannot parse {literal}: {e}"));
    let written = serde_json::to_value(&parsed).unwrap();
    let expected: Value = serde_json::from_str(literal).unwrap();
    assert_eq!(written, expected, "JSON changed in the round trip");
    let again: T = serde_json::from_value(written.clone()).unwrap();
    // Compared as JSON: events with a cancellation signal compare their tokens by identity.
    assert_eq!(serde_json::to_value(&again).unwrap(), written);
    parsed
}

/// [`round_trip`] for an event, also checking that `type` is its name and comes first.
fn event_round_trip<E>(literal: &str) -> E
where
    E: HookEvent,
{
    let event: E = round_trip(literal);
    let text = serde_json::to_string(&event).unwrap();
    let prefix = format!(r#"{{"type":"{}""#, E::NAME);
    assert!(text.starts_with(&prefix), "`type` first: {text}");
    assert_eq!(E::KIND.as_str(), E::NAME);
    event
}

macro_rules! event_round_trips {
    ($($test:ident: $ty:ty = $literal:expr;)*) => {$(
        #[test]
        fn $test() {
            let literal: String = $literal.into();
            let _ = event_round_trip::<$ty>(&literal);
        }
    )*};
}

// ---- the 25 events -------------------------------------------------------------------------

event_round_trips! {
    session_start_json_round_trips: SessionStartEvent = r#"{"type":"session_start"}"#;
    session_before_switch_json_round_trips: SessionBeforeSwitchEvent =
        r#"{"type":"session_before_switch","reason":"resume","targetSessionFile":"/s/b.jsonl"}"#;
    session_switch_json_round_trips: SessionSwitchEvent =
        r#"{"type":"session_switch","reason":"fork","previousSessionFile":"/s/a.jsonl"}"#;
    session_before_branch_json_round_trips: SessionBeforeBranchEvent =
        r#"{"type":"session_before_branch","entryId":"e7"}"#;
    session_branch_json_round_trips: SessionBranchEvent =
        r#"{"type":"session_branch","previousSessionFile":"/s/a.jsonl"}"#;
    session_before_compact_json_round_trips: SessionBeforeCompactEvent = format!(
        r#"{{"type":"session_before_compact","preparation":{},"branchEntries":[{ENTRY},{COMPACTION_ENTRY}],"customInstructions":"focus on tests"}}"#,
        preparation()
    );
    session_compacting_json_round_trips: SessionCompactingEvent = format!(
        r#"{{"type":"session.compacting","sessionId":"s-1","messages":{}}}"#,
        messages()
    );
    session_compact_json_round_trips: SessionCompactEvent = format!(
        r#"{{"type":"session_compact","compactionEntry":{COMPACTION_ENTRY},"fromExtension":true}}"#
    );
    session_before_tree_json_round_trips: SessionBeforeTreeEvent = format!(
        r#"{{"type":"session_before_tree","preparation":{{"targetId":"e3","oldLeafId":"e9","commonAncestorId":null,"entriesToSummarize":[{ENTRY}],"userWantsSummary":true}}}}"#
    );
    session_tree_json_round_trips: SessionTreeEvent =
        r#"{"type":"session_tree","newLeafId":"e3","oldLeafId":null,"summaryEntry":{"type":"branch_summary","id":"b1","parentId":"e3","timestamp":"2026-01-05T09:03:09.000Z","fromId":"e9","summary":"explored X"},"fromExtension":false}"#;
    session_shutdown_json_round_trips: SessionShutdownEvent = r#"{"type":"session_shutdown"}"#;
    context_json_round_trips: ContextEvent =
        format!(r#"{{"type":"context","messages":{}}}"#, messages());
    before_agent_start_json_round_trips: BeforeAgentStartEvent =
        r#"{"type":"before_agent_start","prompt":"fix it","images":[{"type":"image","data":"aGVsbG8=","mimeType":"image/png"}]}"#;
    agent_start_json_round_trips: AgentStartEvent = r#"{"type":"agent_start"}"#;
    agent_end_json_round_trips: AgentEndEvent =
        format!(r#"{{"type":"agent_end","messages":{}}}"#, messages());
    turn_start_json_round_trips: TurnStartEvent =
        r#"{"type":"turn_start","turnIndex":0,"timestamp":1767600000000}"#;
    turn_end_json_round_trips: TurnEndEvent = format!(
        r#"{{"type":"turn_end","turnIndex":2,"message":{ASSISTANT},"toolResults":[{TOOL_RESULT_MESSAGE}]}}"#
    );
    auto_compaction_start_json_round_trips: AutoCompactionStartEvent =
        r#"{"type":"auto_compaction_start","reason":"threshold","action":"context-full"}"#;
    auto_compaction_end_json_round_trips: AutoCompactionEndEvent = format!(
        r#"{{"type":"auto_compaction_end","action":"handoff","result":{COMPACTION_RESULT},"aborted":false,"willRetry":true}}"#
    );
    auto_compaction_end_without_result_json_round_trips: AutoCompactionEndEvent =
        r#"{"type":"auto_compaction_end","action":"context-full","aborted":true,"willRetry":false,"errorMessage":"no model","skipped":true}"#;
    auto_retry_start_json_round_trips: AutoRetryStartEvent =
        r#"{"type":"auto_retry_start","attempt":2,"maxAttempts":3,"delayMs":2000,"errorMessage":"overloaded"}"#;
    auto_retry_end_json_round_trips: AutoRetryEndEvent =
        r#"{"type":"auto_retry_end","success":false,"attempt":3,"finalError":"overloaded"}"#;
    ttsr_triggered_json_round_trips: TtsrTriggeredEvent =
        r#"{"type":"ttsr_triggered","rules":[{"name":"no-console","path":"/r/no-console.md","content":"Do not use console.log","globs":["*.ts"],"alwaysApply":false,"description":"d","condition":["console\\.log"],"scope":["tool:edit"],"interruptMode":"always","_source":{"provider":"native","providerName":"OMP","path":"/r","level":"project"},"ttsrTrigger":"console"}]}"#;
    todo_reminder_json_round_trips: TodoReminderEvent =
        r#"{"type":"todo_reminder","todos":[{"id":"t1","content":"write tests","status":"in_progress","notes":"n","details":{"p":1}},{"id":"t2","content":"ship","status":"pending"},{"id":"t3","content":"a","status":"completed"},{"id":"t4","content":"b","status":"abandoned","owner":"x"}],"attempt":1,"maxAttempts":3}"#;
    tool_call_json_round_trips: ToolCallEvent =
        r#"{"type":"tool_call","toolName":"bash","toolCallId":"call-1","input":{"command":"ls -la","timeout":30,"env":{"A":"1"}}}"#;
    tool_result_json_round_trips: ToolResultEvent =
        r#"{"type":"tool_result","toolName":"read","toolCallId":"call-2","input":{"path":"a.txt"},"content":[{"type":"text","text":"API_KEY=x"},{"type":"image","data":"aGVsbG8=","mimeType":"image/png"}],"details":{"truncation":null},"isError":false,"isWarning":true}"#;
    tool_result_error_path_json_round_trips: ToolResultEvent =
        r#"{"type":"tool_result","toolName":"bash","toolCallId":"call-3","input":{},"content":[{"type":"text","text":"exit code 1"}],"isError":true}"#;
}

#[test]
fn events_built_in_rust_serialize_upstream_shaped() {
    let event = BeforeAgentStartEvent {
        prompt: "look".to_owned(),
        images: Some(vec![ImageContent {
            data: "aGVsbG8=".to_owned(),
            mime_type: "image/png".to_owned(),
            extra: serde_json::Map::new(),
        }]),
    };
    assert_eq!(
        serde_json::to_value(&event).unwrap(),
        json!({
            "type": "before_agent_start",
            "prompt": "look",
            "images": [{ "type": "image", "data": "aGVsbG8=", "mimeType": "image/png" }]
        })
    );
    let event = ToolResultEvent {
        tool_name: "bash".to_owned(),
        tool_call_id: "c".to_owned(),
        input: serde_json::Map::new().into(),
        content: vec![Content::text("boom")],
        details: None,
        is_error: Some(true),
        is_warning: None,
    };
    assert_eq!(
        serde_json::to_value(&event).unwrap(),
        json!({
            "type": "tool_result",
            "toolName": "bash",
            "toolCallId": "c",
            "input": {},
            "content": [{ "type": "text", "text": "boom" }],
            "isError": true
        })
    );
    let event = SessionTreeEvent {
        new_leaf_id: None,
        old_leaf_id: Some("e1".to_owned()),
        summary_entry: None,
        from_extension: None,
    };
    assert_eq!(
        serde_json::to_value(&event).unwrap(),
        json!({ "type": "session_tree", "newLeafId": null, "oldLeafId": "e1" })
    );
}

#[test]
fn before_agent_start_images_accept_a_missing_tag_and_reject_a_wrong_one() {
    let event: BeforeAgentStartEvent = serde_json::from_str(
        r#"{"type":"before_agent_start","prompt":"p","images":[{"data":"d","mimeType":"image/png"}]}"#,
    )
    .unwrap();
    assert_eq!(event.images.as_ref().unwrap()[0].mime_type, "image/png");
    assert_eq!(
        serde_json::to_value(&event).unwrap()["images"][0]["type"],
        "image"
    );
    assert!(
        serde_json::from_str::<BeforeAgentStartEvent>(
            r#"{"type":"before_agent_start","prompt":"p","images":[{"type":"text","text":"t"}]}"#,
        )
        .is_err()
    );
    let without: BeforeAgentStartEvent =
        round_trip(r#"{"type":"before_agent_start","prompt":"p"}"#);
    assert_eq!(without.images, None);
}

#[test]
fn event_with_a_signal_round_trips_without_it() {
    let event: SessionBeforeTreeEvent = serde_json::from_value(json!({
        "type": "session_before_tree",
        "preparation": {
            "targetId": "t", "oldLeafId": null, "commonAncestorId": null,
            "entriesToSummarize": [], "userWantsSummary": false
        }
    }))
    .unwrap();
    assert!(!event.signal.is_cancelled());
    let value = serde_json::to_value(&event).unwrap();
    assert!(value.get("signal").is_none());
}

// ---- results -------------------------------------------------------------------------------

#[test]
fn session_before_switch_result_json_round_trips() {
    let r: SessionBeforeSwitchResult = round_trip(r#"{"cancel":true}"#);
    assert_eq!(r.cancel, Some(true));
    let _: SessionBeforeSwitchResult = round_trip("{}");
}

#[test]
fn session_before_branch_result_json_round_trips() {
    let r: SessionBeforeBranchResult =
        round_trip(r#"{"cancel":false,"skipConversationRestore":true}"#);
    assert_eq!(r.skip_conversation_restore, Some(true));
}

#[test]
fn session_before_compact_result_json_round_trips() {
    let r: SessionBeforeCompactResult = round_trip(&format!(
        r#"{{"cancel":false,"compaction":{COMPACTION_RESULT}}}"#
    ));
    assert_eq!(r.compaction.unwrap().tokens_before, 12000);
    let _: CompactionResult =
        round_trip(r#"{"summary":"s","firstKeptEntryId":"e1","tokensBefore":5}"#);
}

#[test]
fn session_compacting_result_json_round_trips() {
    let r: SessionCompactingResult = round_trip(
        r#"{"context":["line 1","line 2"],"prompt":"Summarize","preserveData":{"todo":["a"]}}"#,
    );
    assert_eq!(r.prompt.as_deref(), Some("Summarize"));
}

#[test]
fn session_before_tree_result_json_round_trips() {
    let r: SessionBeforeTreeResult =
        round_trip(r#"{"cancel":false,"summary":{"summary":"branch summary","details":{"n":1}}}"#);
    assert_eq!(r.summary.unwrap().summary, "branch summary");
    let _: SessionBeforeTreeResult = round_trip(r#"{"summary":{"summary":"s"}}"#);
}

#[test]
fn context_event_result_json_round_trips() {
    let r: ContextEventResult = round_trip(&format!(r#"{{"messages":{}}}"#, messages()));
    assert_eq!(r.messages.unwrap().len(), 6);
    let empty: ContextEventResult = round_trip(r#"{"messages":[]}"#);
    assert_eq!(
        empty.messages,
        Some(vec![]),
        "an empty list is kept, not dropped"
    );
    let none: ContextEventResult = round_trip("{}");
    assert_eq!(none.messages, None);
}

#[test]
fn before_agent_start_event_result_json_round_trips() {
    let r: BeforeAgentStartEventResult = round_trip(
        r#"{"message":{"customType":"memory","content":[{"type":"text","text":"remember"}],"display":false,"details":{"src":"m.md"},"attribution":"user"}}"#,
    );
    assert_eq!(r.message.unwrap().attribution, Some(Attribution::User));
    let _: BeforeAgentStartEventResult =
        round_trip(r#"{"message":{"customType":"m","content":"text","display":true}}"#);
}

#[test]
fn tool_call_event_result_json_round_trips() {
    let r: ToolCallEventResult = round_trip(r#"{"block":true,"reason":"rm -rf blocked (no UI)"}"#);
    assert!(r.is_block());
    let empty: ToolCallEventResult = round_trip("{}");
    assert_eq!(empty, ToolCallEventResult::default());
}

#[test]
fn tool_result_event_result_json_round_trips() {
    let r: ToolResultEventResult = round_trip(
        r#"{"content":[{"type":"text","text":"API_KEY=[REDACTED]"}],"details":{"redacted":true},"isError":false,"isWarning":true}"#,
    );
    assert_eq!(r.is_warning, Some(true));
    let _: ToolResultEventResult = round_trip(r#"{"details":{"only":"details"}}"#);
}

#[test]
fn hook_error_and_session_action_result_json_round_trip() {
    let e: HookError = round_trip(r#"{"hookPath":"/h/a.rs","event":"tool_result","error":"boom"}"#);
    assert_eq!(e.hook_path, "/h/a.rs");
    let r: SessionActionResult = round_trip(r#"{"cancelled":false}"#);
    assert!(!r.cancelled);
}

// ---- unknown fields are kept ---------------------------------------------------------------

#[test]
fn unknown_message_role_is_kept_as_message_other() {
    let m: Message = round_trip(BASH_EXECUTION);
    let Message::Other(value) = &m else {
        panic!("expected Message::Other, got {m:?}")
    };
    assert_eq!(value["command"], "ls");
    assert_eq!(m.role(), "bashExecution");
}

#[test]
fn unknown_content_types_are_kept_as_content_other() {
    let m: Message = round_trip(ASSISTANT);
    let Message::Assistant(a) = &m else {
        panic!("expected an assistant message, got {m:?}")
    };
    assert!(matches!(&a.content[0], Content::Other(v) if v["type"] == "thinking"));
    assert_eq!(a.content[1].as_text(), Some("Running ls"));
    assert!(matches!(&a.content[2], Content::Other(v) if v["name"] == "bash"));
    assert_eq!(
        a.extra["stopReason"], "toolUse",
        "model metadata kept in extra"
    );
    assert_eq!(a.extra["usage"]["cost"]["total"], json!(0.3));
}

#[test]
fn unknown_fields_of_known_messages_and_content_are_kept_in_extra() {
    let user: Message = round_trip(
        r#"{"role":"user","content":[{"type":"text","text":"t","textSignature":"s1"},{"type":"image","data":"d","mimeType":"image/gif","detail":"high"}],"synthetic":true}"#,
    );
    let Message::User(u) = &user else {
        panic!("expected a user message")
    };
    assert_eq!(u.extra["synthetic"], true);
    let MessageContent::Parts(parts) = &u.content else {
        panic!("expected parts")
    };
    let Content::Text(text) = &parts[0] else {
        panic!("expected text")
    };
    assert_eq!(text.extra["textSignature"], "s1");
    assert!(
        !text.extra.contains_key("type"),
        "the tag is not an unknown field"
    );
    let Content::Image(image) = &parts[1] else {
        panic!("expected image")
    };
    assert_eq!(image.extra["detail"], "high");

    let custom: Message = round_trip(
        r#"{"role":"custom","customType":"x","content":"c","display":false,"hookVersion":2}"#,
    );
    assert!(matches!(&custom, Message::Custom(c) if c.extra["hookVersion"] == 2));
    let tool: Message = round_trip(
        r#"{"role":"toolResult","toolCallId":"c","toolName":"t","content":[],"isError":true,"durationMs":12}"#,
    );
    assert!(matches!(&tool, Message::ToolResult(t) if t.extra["durationMs"] == 12 && t.is_error));
}

#[test]
fn known_roles_parse_to_their_variants() {
    let all: Vec<Message> = serde_json::from_str(&messages()).unwrap();
    let roles: Vec<&str> = all.iter().map(Message::role).collect();
    assert_eq!(
        roles,
        [
            "user",
            "user",
            "assistant",
            "toolResult",
            "custom",
            "bashExecution"
        ]
    );
    assert!(matches!(all[0], Message::User(_)));
    assert!(matches!(all[2], Message::Assistant(_)));
    assert!(matches!(all[3], Message::ToolResult(_)));
    assert!(matches!(all[4], Message::Custom(_)));
    assert_eq!(all[4].custom_type(), Some("note"));
}

#[test]
fn session_entry_keeps_its_own_fields() {
    let e: SessionEntry = round_trip(COMPACTION_ENTRY);
    assert_eq!(e.entry_type, "compaction");
    assert_eq!(e.parent_id.as_deref(), Some("e9"));
    assert_eq!(e.extra["fromHook"], false);
}

// ---- the `type` discriminator --------------------------------------------------------------

#[test]
fn wrong_event_type_is_rejected() {
    let err = serde_json::from_str::<ToolCallEvent>(
        r#"{"type":"tool_result","toolName":"bash","toolCallId":"c","input":{}}"#,
    )
    .unwrap_err();
    assert!(err.to_string().contains("tool_call"), "{err}");
    assert!(
        serde_json::from_str::<SessionCompactingEvent>(
            r#"{"type":"session_compacting","sessionId":"s","messages":[]}"#
        )
        .is_err(),
        "`session.compacting` has a dot"
    );
    assert!(serde_json::from_str::<SessionStartEvent>(r#"{"type":"session_shutdown"}"#).is_err());
    assert!(serde_json::from_str::<AgentStartEvent>(r#"{"type":42}"#).is_err());
}

#[test]
fn every_event_rejects_every_other_events_type() {
    fn rejects<E: HookEvent>(own: &Value) {
        for kind in EventKind::ALL {
            let mut value = own.clone();
            value["type"] = Value::from(kind.as_str());
            let result = serde_json::from_value::<E>(value);
            assert_eq!(
                result.is_ok(),
                kind.as_str() == E::NAME,
                "{} as {}",
                E::NAME,
                kind
            );
        }
    }
    rejects::<SessionStartEvent>(&json!({}));
    rejects::<SessionShutdownEvent>(&json!({}));
    rejects::<AgentStartEvent>(&json!({}));
    rejects::<SessionBeforeBranchEvent>(&json!({ "entryId": "e" }));
    rejects::<SessionCompactingEvent>(&json!({ "sessionId": "s", "messages": [] }));
    rejects::<ToolCallEvent>(&json!({ "toolName": "t", "toolCallId": "c", "input": {} }));
}

#[test]
fn wrong_role_or_content_shape_does_not_become_a_known_variant() {
    // A user message without content is not a valid user message: it is kept whole instead.
    let m: Message = serde_json::from_str(r#"{"role":"user","text":"no content"}"#).unwrap();
    assert!(matches!(m, Message::Other(_)));
    let c: Content = serde_json::from_str(r#"{"type":"text","value":"no text"}"#).unwrap();
    assert!(matches!(c, Content::Other(_)));
}

// ---- EventKind -----------------------------------------------------------------------------

const ALL_NAMES: [&str; 25] = [
    "session_start",
    "session_before_switch",
    "session_switch",
    "session_before_branch",
    "session_branch",
    "session_before_compact",
    "session.compacting",
    "session_compact",
    "session_before_tree",
    "session_tree",
    "session_shutdown",
    "context",
    "before_agent_start",
    "agent_start",
    "agent_end",
    "turn_start",
    "turn_end",
    "auto_compaction_start",
    "auto_compaction_end",
    "auto_retry_start",
    "auto_retry_end",
    "ttsr_triggered",
    "todo_reminder",
    "tool_call",
    "tool_result",
];

#[test]
fn event_kind_lists_all_25_events_with_as_str() {
    assert_eq!(EventKind::COUNT, 25);
    let names: Vec<&str> = EventKind::ALL.iter().map(|k| k.as_str()).collect();
    assert_eq!(names, ALL_NAMES);
}

#[test]
fn event_kind_from_str_parses_all_25_including_session_compacting() {
    for name in ALL_NAMES {
        let kind = EventKind::from_str(name).unwrap();
        assert_eq!(kind.as_str(), name);
        assert_eq!(kind.to_string(), name);
        assert_eq!(serde_json::to_value(kind).unwrap(), json!(name));
        assert_eq!(
            serde_json::from_value::<EventKind>(json!(name)).unwrap(),
            kind
        );
    }
    assert_eq!(
        EventKind::from_str("session.compacting").unwrap(),
        EventKind::SessionCompacting
    );
}

#[test]
fn event_kind_from_str_rejects_unknown_names() {
    for bad in [
        "session_compacting",
        "Tool_Call",
        "tool-call",
        "",
        "message_start",
    ] {
        let err = EventKind::from_str(bad).unwrap_err();
        assert!(
            err.to_string().contains("tool_call"),
            "lists the known events: {err}"
        );
    }
    assert!(serde_json::from_value::<EventKind>(json!("nope")).is_err());
}

#[test]
fn every_event_type_declares_its_name_kind_and_combine_rule() {
    fn check<E: HookEvent>(combine: Combine) {
        assert_eq!(E::KIND.as_str(), E::NAME);
        assert_eq!(E::COMBINE, combine, "{}", E::NAME);
    }
    use Combine::*;
    check::<SessionStartEvent>(Ignore);
    check::<SessionBeforeSwitchEvent>(LastWinsUntilCancel);
    check::<SessionSwitchEvent>(Ignore);
    check::<SessionBeforeBranchEvent>(LastWinsUntilCancel);
    check::<SessionBranchEvent>(Ignore);
    check::<SessionBeforeCompactEvent>(LastWinsUntilCancel);
    check::<SessionCompactingEvent>(LastWins);
    check::<SessionCompactEvent>(Ignore);
    check::<SessionBeforeTreeEvent>(LastWinsUntilCancel);
    check::<SessionTreeEvent>(Ignore);
    check::<SessionShutdownEvent>(Ignore);
    check::<ContextEvent>(Chain);
    check::<BeforeAgentStartEvent>(FirstMessage);
    check::<AgentStartEvent>(Ignore);
    check::<AgentEndEvent>(Ignore);
    check::<TurnStartEvent>(Ignore);
    check::<TurnEndEvent>(Ignore);
    check::<AutoCompactionStartEvent>(Ignore);
    check::<AutoCompactionEndEvent>(Ignore);
    check::<AutoRetryStartEvent>(Ignore);
    check::<AutoRetryEndEvent>(Ignore);
    check::<TtsrTriggeredEvent>(Ignore);
    check::<TodoReminderEvent>(Ignore);
    check::<ToolCallEvent>(LastWinsUntilBlock);
    check::<ToolResultEvent>(LastWins);
}
