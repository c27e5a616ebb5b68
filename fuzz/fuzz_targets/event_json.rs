//! Event and message JSON: `serde_json::from_slice` of the event types a host decodes from
//! outside (tool calls and results, session entries, compaction, messages) must return `Ok` or
//! `Err` on any bytes, and what decodes must encode again and decode to the same value.

#![no_main]

use hookwright::events::{
    AgentEndEvent, BeforeAgentStartEvent, ContextEvent, Message, SessionBeforeCompactEvent,
    SessionEntry, ToolCallEvent, ToolResultEvent,
};
use libfuzzer_sys::fuzz_target;
use serde::Serialize;
use serde::de::DeserializeOwned;

fn round_trip<T: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug>(data: &[u8]) {
    if let Ok(value) = serde_json::from_slice::<T>(data) {
        let text = serde_json::to_vec(&value).expect("a decoded value encodes");
        let again: T = serde_json::from_slice(&text).expect("an encoded value decodes");
        assert_eq!(value, again);
    }
}

fuzz_target!(|data: &[u8]| {
    round_trip::<ToolCallEvent>(data);
    round_trip::<ToolResultEvent>(data);
    round_trip::<Message>(data);
    round_trip::<SessionEntry>(data);
    let _ = serde_json::from_slice::<ContextEvent>(data);
    let _ = serde_json::from_slice::<BeforeAgentStartEvent>(data);
    let _ = serde_json::from_slice::<AgentEndEvent>(data);
    let _ = serde_json::from_slice::<SessionBeforeCompactEvent>(data);
});
