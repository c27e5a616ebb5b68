//! Tests of the session store: file format, ordering, append-only writes and crash safety.

use super::*;
use crate::events::{Attribution, Extra, MessageContent};
use serde_json::json;
use std::collections::HashSet;
use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;

fn keys(value: &Value) -> Vec<&str> {
    value
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect()
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is complete JSON"))
        .collect()
}

fn file_of(store: &JsonlSessionStore) -> PathBuf {
    store.session_file().expect("a file-backed store")
}

fn custom_message(custom_type: &str, text: &str) -> CustomMessage {
    let mut message = CustomMessage::new(custom_type, text);
    message.details = Some(json!({"n": 1}));
    message
}

#[test]
fn session_create_writes_a_header_line_and_names_the_file_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let store =
        JsonlSessionStore::create(&dir.path().join("sessions"), Path::new("/work"), None).unwrap();
    let path = file_of(&store);
    let header = &lines(&path)[0];
    assert_eq!(
        keys(header),
        ["type", "version", "id", "timestamp", "cwd"],
        "no parentSession key without a parent"
    );
    assert_eq!(header["type"], "session");
    assert_eq!(header["version"], 3);
    assert_eq!(header["id"], store.session_id().as_str());
    assert_eq!(header["cwd"], "/work");
    let name = path.file_name().unwrap().to_str().unwrap();
    let stamp = header["timestamp"]
        .as_str()
        .unwrap()
        .replace([':', '.'], "-");
    assert_eq!(name, format!("{stamp}_{}.jsonl", store.session_id()));
    assert_eq!(store.cwd(), Path::new("/work"));
    assert_eq!((store.entries(), store.leaf_id()), (vec![], None));
}

#[test]
fn session_create_then_open_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let store = JsonlSessionStore::create(dir.path(), Path::new("/project"), None).unwrap();
    store.append_message(Message::user("hello")).unwrap();
    store
        .append_custom_entry("state", Some(json!({"a": [1, 2]})))
        .unwrap();
    store
        .append_custom_message(custom_message("note", "hi"))
        .unwrap();

    let reopened = JsonlSessionStore::open(&file_of(&store)).unwrap();
    assert_eq!(reopened.entries(), store.entries());
    assert_eq!(reopened.session_id(), store.session_id());
    assert_eq!(reopened.cwd(), store.cwd());
    assert_eq!(reopened.leaf_id(), store.leaf_id());
    assert_eq!(reopened.session_file(), store.session_file());
    assert!(reopened.load_warnings().is_empty());
    assert_eq!(reopened.parent_session(), None);
}

#[test]
fn session_entries_are_in_order_with_parent_ids_chained() {
    let store = JsonlSessionStore::in_memory(Path::new("/p"));
    let a = store.append_message(Message::user("one")).unwrap();
    let b = store.append_custom_entry("x", None).unwrap();
    let c = store.append_message(Message::user("two")).unwrap();
    assert_eq!(a.parent_id, None);
    assert_eq!(b.parent_id.as_deref(), Some(a.id.as_str()));
    assert_eq!(c.parent_id.as_deref(), Some(b.id.as_str()));
    assert_eq!(store.entries(), vec![a.clone(), b.clone(), c.clone()]);
    assert_eq!(store.leaf_id(), Some(c.id.clone()));
    for entry in [&a, &b, &c] {
        assert_eq!(entry.id.len(), 8);
        assert!(entry.timestamp.as_deref().unwrap().ends_with('Z'));
    }
    assert!(a.id != b.id && b.id != c.id && a.id != c.id);
}

#[test]
fn session_message_entry_has_the_upstream_shape() {
    let dir = tempfile::tempdir().unwrap();
    let store = JsonlSessionStore::create(dir.path(), dir.path(), None).unwrap();
    store.append_message(Message::user("hello")).unwrap();
    let line = &lines(&file_of(&store))[1];
    assert_eq!(
        keys(line),
        ["type", "id", "parentId", "timestamp", "message"]
    );
    assert_eq!(line["type"], "message");
    assert_eq!(line["parentId"], Value::Null);
    assert_eq!(line["message"]["role"], "user");
    assert_eq!(line["message"]["content"], "hello");
}

#[test]
fn session_custom_entry_has_custom_type_and_data() {
    let dir = tempfile::tempdir().unwrap();
    let store = JsonlSessionStore::create(dir.path(), dir.path(), None).unwrap();
    store
        .append_custom_entry("counter", Some(json!({"n": 2})))
        .unwrap();
    store.append_custom_entry("marker", None).unwrap();
    let all = lines(&file_of(&store));
    assert_eq!(
        keys(&all[1]),
        ["type", "id", "parentId", "timestamp", "customType", "data"]
    );
    assert_eq!(
        (&all[1]["type"], &all[1]["customType"], &all[1]["data"]),
        (&json!("custom"), &json!("counter"), &json!({"n": 2}))
    );
    assert_eq!(
        keys(&all[2]),
        ["type", "id", "parentId", "timestamp", "customType"],
        "no data key without data"
    );
}

#[test]
fn session_custom_message_entry_has_content_display_and_details() {
    let dir = tempfile::tempdir().unwrap();
    let store = JsonlSessionStore::create(dir.path(), dir.path(), None).unwrap();
    let mut message = custom_message("note", "shown to the model");
    message.timestamp = Some(1_700_000_000_000);
    store.append_custom_message(message).unwrap();
    let mut hidden = CustomMessage::new("hidden", MessageContent::Text("x".into()));
    hidden.display = false;
    hidden.attribution = Some(Attribution::Agent);
    store.append_custom_message(hidden).unwrap();

    let all = lines(&file_of(&store));
    assert_eq!(
        keys(&all[1]),
        [
            "type",
            "id",
            "parentId",
            "timestamp",
            "customType",
            "content",
            "display",
            "details"
        ]
    );
    assert_eq!(all[1]["type"], "custom_message");
    assert_eq!(all[1]["customType"], "note");
    assert_eq!(all[1]["content"], "shown to the model");
    assert_eq!(all[1]["display"], true);
    assert_eq!(all[1]["details"], json!({"n": 1}));
    assert!(
        all[1]["timestamp"].is_string(),
        "the entry's ISO timestamp wins"
    );
    assert_eq!(
        keys(&all[2]),
        [
            "type",
            "id",
            "parentId",
            "timestamp",
            "customType",
            "content",
            "display",
            "attribution"
        ]
    );
    assert_eq!(
        (&all[2]["display"], &all[2]["attribution"]),
        (&json!(false), &json!("agent"))
    );
}

#[test]
fn session_parent_session_is_recorded_in_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let parent = "/sessions/old.jsonl".to_owned();
    let store = JsonlSessionStore::create(dir.path(), dir.path(), Some(parent.clone())).unwrap();
    assert_eq!(store.parent_session(), Some(parent.clone()));
    assert_eq!(lines(&file_of(&store))[0]["parentSession"], parent.as_str());
    let reopened = JsonlSessionStore::open(&file_of(&store)).unwrap();
    assert_eq!(reopened.parent_session(), Some(parent));
}

#[test]
fn session_appends_never_rewrite_earlier_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let store = JsonlSessionStore::create(dir.path(), dir.path(), None).unwrap();
    let path = file_of(&store);
    let mut before = std::fs::read(&path).unwrap();
    for i in 0..5 {
        store.append_custom_entry("step", Some(json!(i))).unwrap();
        let after = std::fs::read(&path).unwrap();
        assert!(
            after.starts_with(&before),
            "append {i} changed earlier bytes"
        );
        assert!(after.len() > before.len() && after.ends_with(b"\n"));
        before = after;
    }
    // A reopened store appends after the existing lines too.
    let reopened = JsonlSessionStore::open(&path).unwrap();
    let entry = reopened
        .append_custom_entry("step", Some(json!(5)))
        .unwrap();
    assert!(std::fs::read(&path).unwrap().starts_with(&before));
    assert_eq!(entry.parent_id, store.leaf_id());
}

/// Run by `session_cut_last_line_from_a_crashed_writer_is_tolerated` in a child process: writes
/// a session with two entries, then a torn third line, then dies without any cleanup.
#[test]
fn crash_writer_child() {
    let Ok(dir) = std::env::var("HOOKS_SESSION_CRASH_DIR") else {
        return; // Only meaningful inside the child process.
    };
    let store = JsonlSessionStore::create(Path::new(&dir), Path::new("/crash"), None).unwrap();
    store.append_message(Message::user("kept 1")).unwrap();
    store.append_custom_entry("kept", Some(json!(2))).unwrap();
    let torn = r#"{"type":"custom","id":"deadbeef","parentId":"#;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(file_of(&store))
        .unwrap();
    file.write_all(torn.as_bytes()).unwrap();
    std::process::abort();
}

#[test]
fn session_cut_last_line_from_a_crashed_writer_is_tolerated() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    // The child runs in the temporary directory, so a core dump (if enabled) lands there.
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "session::tests::crash_writer_child",
            "--exact",
            "--nocapture",
        ])
        .current_dir(dir.path())
        .env("HOOKS_SESSION_CRASH_DIR", &sessions)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(!status.success(), "the child should have crashed");
    let path = std::fs::read_dir(&sessions)
        .unwrap()
        .next()
        .expect("the child created a session file")
        .unwrap()
        .path();

    let store = JsonlSessionStore::open(&path).unwrap();
    let entries = store.entries();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0].extra["message"]["content"], "kept 1");
    assert_eq!(entries[1].extra["data"], 2);
    assert_eq!(store.leaf_id(), Some(entries[1].id.clone()));
    let warnings = store.load_warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with(&format!("{}:4:", path.display())),
        "{warnings:?}"
    );

    // The next append drops the torn bytes and continues the chain.
    let next = store.append_custom_entry("after", None).unwrap();
    assert_eq!(next.parent_id, Some(entries[1].id.clone()));
    let reopened = JsonlSessionStore::open(&path).unwrap();
    assert!(reopened.load_warnings().is_empty());
    assert_eq!(reopened.entries().len(), 3);
    assert_eq!(lines(&path).len(), 4);
}

#[test]
fn session_complete_last_line_without_newline_is_kept_and_ended_on_append() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(
        &path,
        concat!(
            r#"{"type":"session","version":3,"id":"s1","timestamp":"t","cwd":"/c"}"#,
            "\n",
            r#"{"type":"custom","id":"aaaa0001","parentId":null,"customType":"x"}"#
        ),
    )
    .unwrap();
    let store = JsonlSessionStore::open(&path).unwrap();
    assert!(store.load_warnings().is_empty());
    assert_eq!(store.leaf_id().as_deref(), Some("aaaa0001"));
    store.append_custom_entry("y", None).unwrap();
    let all = lines(&path);
    assert_eq!(all.len(), 3);
    assert_eq!(all[2]["parentId"], "aaaa0001");
}

#[test]
fn session_corrupt_middle_line_is_an_error_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let store = JsonlSessionStore::create(dir.path(), dir.path(), None).unwrap();
    store.append_custom_entry("a", None).unwrap();
    let path = file_of(&store);
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    file.write_all(b"{not json\n").unwrap();
    drop(file);
    store.append_custom_entry("b", None).unwrap();

    let err = JsonlSessionStore::open(&path).unwrap_err();
    assert!(
        matches!(err, SessionError::Parse { line: 3, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with(&format!("{}:3: ", path.display())),
        "{err}"
    );
}

#[test]
fn session_missing_file_error_names_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nope.jsonl");
    let err = JsonlSessionStore::open(&path).unwrap_err();
    assert!(matches!(err, SessionError::Open { .. }), "{err:?}");
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err}"
    );
}

#[test]
fn session_file_without_a_header_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, "{\"type\":\"custom\",\"id\":\"a\"}\n").unwrap();
    let err = JsonlSessionStore::open(&path).unwrap_err();
    assert!(
        matches!(err, SessionError::InvalidHeader { line: 1, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with(&format!("{}:1: ", path.display()))
    );
    std::fs::write(&path, "").unwrap();
    assert!(matches!(
        JsonlSessionStore::open(&path),
        Err(SessionError::InvalidHeader { .. })
    ));
}

#[test]
fn session_concurrent_appends_each_write_one_complete_line() {
    const THREADS: usize = 8;
    const PER_THREAD: usize = 50;
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(JsonlSessionStore::create(dir.path(), dir.path(), None).unwrap());
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let store = Arc::clone(&store);
            std::thread::spawn(move || {
                for i in 0..PER_THREAD {
                    let payload = json!({"thread": t, "i": i, "pad": "x".repeat(500)});
                    store
                        .append_custom_entry("concurrent", Some(payload))
                        .unwrap();
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }

    let all = lines(&file_of(&store));
    assert_eq!(all.len(), 1 + THREADS * PER_THREAD);
    let mut previous = Value::Null;
    let mut ids = HashSet::new();
    for line in &all[1..] {
        assert_eq!(line["parentId"], previous, "one linear chain");
        assert!(ids.insert(line["id"].as_str().unwrap().to_owned()));
        previous = line["id"].clone();
    }
    let reopened = JsonlSessionStore::open(&file_of(&store)).unwrap();
    assert_eq!(reopened.entries(), store.entries());
    assert!(reopened.load_warnings().is_empty());
}

#[test]
fn session_append_entry_ignores_reserved_keys_in_fields() {
    let store = JsonlSessionStore::in_memory(Path::new("/p"));
    let fields = Extra::from_iter([
        ("type".to_owned(), json!("spoofed")),
        ("id".to_owned(), json!("spoofed")),
        ("parentId".to_owned(), json!("spoofed")),
        ("targetId".to_owned(), json!("e1")),
    ]);
    let entry = store.append_entry("label", fields).unwrap();
    assert_eq!(entry.entry_type, "label");
    assert_ne!(entry.id, "spoofed");
    assert_eq!(entry.parent_id, None);
    assert_eq!(
        entry.extra,
        Extra::from_iter([("targetId".to_owned(), json!("e1"))])
    );
}

#[test]
fn session_in_memory_store_has_no_file() {
    let store = JsonlSessionStore::in_memory(Path::new("/mem"));
    assert_eq!(store.session_file(), None);
    assert_eq!(store.cwd(), Path::new("/mem"));
    assert_eq!(store.session_id().len(), 36);
    store.append_message(Message::user("x")).unwrap();
    assert_eq!(store.entries().len(), 1);
}

#[test]
fn session_store_is_a_shareable_trait_object() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<JsonlSessionStore>();
    let writer: Arc<dyn SessionWriter> = Arc::new(JsonlSessionStore::in_memory(Path::new("/")));
    writer.append_custom_entry("t", None).unwrap();
    let reader: &dyn SessionManager = &*writer;
    assert_eq!(reader.entries().len(), 1);
}
