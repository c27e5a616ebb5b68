use std::sync::Mutex;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use hookwright::events::TurnStartEvent;
use hookwright::{HookApi, JsonlSessionStore};

use super::*;

/// What the hooks of one test session did, in order: `start`, `turn N` (N counts the turns of
/// that runner), `shutdown`.
type Log = Arc<Mutex<Vec<String>>>;

fn log_lines(log: &Log) -> Vec<String> {
    log.lock().unwrap().clone()
}

/// A session whose hook logs `session_start`, each `turn_start` (with the runner's own count)
/// and `session_shutdown` as `<tag>: <what>`; `turn_start` sleeps `turn_ms` first.
fn session(tag: &str, log: &Log, turn_ms: u64) -> Session<()> {
    gated_session(tag, log, turn_ms, None)
}

/// Holds a session's `turn_start` calls while armed: each says it got there (`entered`) and
/// waits to be released, so a test knows a call is in progress without timing it.
struct Gate {
    armed: std::sync::atomic::AtomicBool,
    entered: tokio::sync::Notify,
    release: tokio::sync::Semaphore,
}

impl Gate {
    fn new() -> Arc<Self> {
        Arc::new(Gate {
            armed: std::sync::atomic::AtomicBool::new(false),
            entered: tokio::sync::Notify::new(),
            release: tokio::sync::Semaphore::new(0),
        })
    }
}

/// [`session`], whose `turn_start` waits at `gate` while it is armed.
fn gated_session(tag: &str, log: &Log, turn_ms: u64, gate: Option<Arc<Gate>>) -> Session<()> {
    let cwd = std::env::temp_dir();
    let mut api = HookApi::new(format!("test-{tag}"), &cwd);
    let (l1, l2, l3) = (Arc::clone(log), Arc::clone(log), Arc::clone(log));
    let (t1, t2, t3) = (tag.to_owned(), tag.to_owned(), tag.to_owned());
    let turns = Arc::new(AtomicUsize::new(0));
    api.on(move |_: &SessionStartEvent, _| l1.lock().unwrap().push(format!("{t1}: start")));
    api.on_async(move |_: &TurnStartEvent, _| {
        let (log, tag, turns) = (Arc::clone(&l2), t2.clone(), Arc::clone(&turns));
        let gate = gate.clone();
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(turn_ms)).await;
            if let Some(gate) = gate.filter(|g| g.armed.load(Ordering::SeqCst)) {
                gate.entered.notify_one();
                gate.release
                    .acquire()
                    .await
                    .expect("the gate is open")
                    .forget();
            }
            let n = turns.fetch_add(1, Ordering::SeqCst) + 1;
            log.lock().unwrap().push(format!("{tag}: turn {n}"));
        })
    });
    api.on(move |_: &SessionShutdownEvent, _| {
        l3.lock().unwrap().push(format!("{t3}: shutdown"));
    });
    let store = Arc::new(JsonlSessionStore::in_memory_with_id(&cwd, tag));
    Session {
        runner: Arc::new(HookRunner::new(vec![api.finish()], &cwd, store)),
        data: (),
    }
}

fn key(id: &str) -> SessionKey {
    SessionKey::new("claude", id)
}

/// One call of session `id`: a `turn_start`.
async fn turn(sessions: &Sessions<()>, id: &str, log: &Log, turn_ms: u64) -> bool {
    let call = sessions
        .enter(key(id), || Ok(session(id, log, turn_ms)))
        .await
        .expect("entered");
    let _ = call.runner.emit(&TurnStartEvent::default()).await;
    call.started()
}

/// Each end seen: the session id, why, and whether it was clean.
type Ends = Arc<Mutex<Vec<(String, EndReason, bool)>>>;

fn ends() -> (OnEnd, Ends) {
    let seen: Ends = Arc::default();
    let sink = Arc::clone(&seen);
    let on_end: OnEnd = Arc::new(move |k: &SessionKey, e: Ending| {
        sink.lock().unwrap().push((k.id.clone(), e.reason, e.clean));
    });
    (on_end, seen)
}

async fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test]
async fn session_start_is_emitted_once_and_the_runner_lives_across_calls() {
    let sessions = Sessions::new(SessionsConfig::default());
    let log: Log = Arc::default();
    let started: Vec<bool> = [
        turn(&sessions, "a", &log, 0).await,
        turn(&sessions, "a", &log, 0).await,
        turn(&sessions, "a", &log, 0).await,
    ]
    .into();
    assert_eq!(started, [true, false, false]);
    assert_eq!(
        log_lines(&log),
        ["a: start", "a: turn 1", "a: turn 2", "a: turn 3"]
    );
    assert_eq!(sessions.keys(), [key("a")]);
}

#[tokio::test]
async fn sessions_with_different_keys_keep_separate_runners() {
    let sessions = Sessions::new(SessionsConfig::default());
    let log: Log = Arc::default();
    turn(&sessions, "a", &log, 0).await;
    turn(&sessions, "b", &log, 0).await;
    turn(&sessions, "a", &log, 0).await;
    let other_agent = sessions
        .enter(SessionKey::new("codex", "a"), || {
            Ok(session("codex-a", &log, 0))
        })
        .await
        .unwrap();
    assert!(other_agent.started(), "the agent is part of the key");
    drop(other_agent);
    assert_eq!(
        log_lines(&log),
        [
            "a: start",
            "a: turn 1",
            "b: start",
            "b: turn 1",
            "a: turn 2",
            "codex-a: start"
        ]
    );
    assert_eq!(sessions.len(), 3);
}

// On one thread, so that "arrived" is a fact and not a guess: each spawned call runs until it
// waits in the session's queue (or runs) before the test sends the next one. On a worker pool
// a 1 ms pause did not guarantee that under load (seen once: order [1, 0, ...]).
#[tokio::test(flavor = "current_thread")]
async fn calls_of_one_session_run_one_at_a_time_in_arrival_order() {
    let sessions = Sessions::new(SessionsConfig::default());
    let log: Log = Arc::default();
    turn(&sessions, "a", &log, 0).await;
    let order: Arc<Mutex<Vec<usize>>> = Arc::default();
    let mut tasks = Vec::new();
    for i in 0..20 {
        let (sessions, log, order) = (sessions.clone(), Arc::clone(&log), Arc::clone(&order));
        tasks.push(tokio::spawn(async move {
            let call = sessions
                .enter(key("a"), || Ok(session("a", &log, 2)))
                .await
                .unwrap();
            order.lock().unwrap().push(i);
            let _ = call.runner.emit(&TurnStartEvent::default()).await;
        }));
        // Each call arrives (is queued) before the next one is sent: the one thread runs it
        // up to its wait before this task is polled again.
        tokio::task::yield_now().await;
    }
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(*order.lock().unwrap(), (0..20).collect::<Vec<_>>());
    let turns: Vec<String> = (1..=21).map(|n| format!("a: turn {n}")).collect();
    assert_eq!(
        log_lines(&log)[1..],
        turns[..],
        "one turn at a time, none lost"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_of_different_sessions_run_at_the_same_time() {
    let sessions = Sessions::new(SessionsConfig::default());
    let log: Log = Arc::default();
    let begun = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..8 {
        let (sessions, log) = (sessions.clone(), Arc::clone(&log));
        tasks.push(tokio::spawn(async move {
            turn(&sessions, &format!("s{i}"), &log, 300).await
        }));
    }
    for t in tasks {
        assert!(t.await.unwrap());
    }
    // Eight 300 ms turns one after another would take 2.4 s.
    assert!(
        begun.elapsed() < Duration::from_millis(2000),
        "{:?}",
        begun.elapsed()
    );
}

#[tokio::test]
async fn a_session_closed_by_its_end_call_gets_no_second_shutdown_and_starts_anew() {
    let (on_end, seen) = ends();
    let sessions = Sessions::new(SessionsConfig {
        on_end: Some(on_end),
        ..SessionsConfig::default()
    });
    let log: Log = Arc::default();
    turn(&sessions, "a", &log, 0).await;
    let call = sessions
        .enter(key("a"), || Ok(session("a", &log, 0)))
        .await
        .unwrap();
    let _ = call.runner.emit(&SessionShutdownEvent {}).await;
    call.close();
    assert!(sessions.is_empty());
    assert!(turn(&sessions, "a", &log, 0).await, "a new session");
    assert_eq!(
        log_lines(&log),
        [
            "a: start",
            "a: turn 1",
            "a: shutdown",
            "a: start",
            "a: turn 1"
        ]
    );
    assert_eq!(
        *seen.lock().unwrap(),
        [("a".into(), EndReason::Agent, true)]
    );
}

#[tokio::test]
async fn end_emits_session_shutdown_once() {
    let sessions = Sessions::new(SessionsConfig::default());
    let log: Log = Arc::default();
    turn(&sessions, "a", &log, 0).await;
    assert!(sessions.end(&key("a")).await);
    assert!(!sessions.end(&key("a")).await, "already ended");
    assert_eq!(log_lines(&log), ["a: start", "a: turn 1", "a: shutdown"]);
}

#[tokio::test]
async fn an_idle_session_is_shut_down_after_the_idle_timeout() {
    let (on_end, seen) = ends();
    let sessions = Sessions::new(SessionsConfig {
        idle_timeout: Duration::from_millis(100),
        on_end: Some(on_end),
        ..SessionsConfig::default()
    });
    let log: Log = Arc::default();
    turn(&sessions, "a", &log, 0).await;
    eventually("the idle session to end", || sessions.is_empty()).await;
    eventually("its shutdown", || log_lines(&log).len() == 3).await;
    assert_eq!(log_lines(&log), ["a: start", "a: turn 1", "a: shutdown"]);
    assert_eq!(*seen.lock().unwrap(), [("a".into(), EndReason::Idle, true)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_in_progress_keeps_its_session_from_idling_out() {
    let sessions = Sessions::new(SessionsConfig {
        idle_timeout: Duration::from_millis(50),
        ..SessionsConfig::default()
    });
    let log: Log = Arc::default();
    // One turn of 600 ms: twelve idle timeouts long.
    turn(&sessions, "a", &log, 600).await;
    assert_eq!(
        log_lines(&log),
        ["a: start", "a: turn 1"],
        "not shut down mid-call"
    );
    eventually("the idle session to end", || sessions.is_empty()).await;
}

#[tokio::test]
async fn past_the_bound_the_least_recently_used_session_is_shut_down_first() {
    let (on_end, seen) = ends();
    let sessions = Sessions::new(SessionsConfig {
        max_sessions: 2,
        on_end: Some(on_end),
        ..SessionsConfig::default()
    });
    let log: Log = Arc::default();
    turn(&sessions, "a", &log, 0).await;
    turn(&sessions, "b", &log, 0).await;
    turn(&sessions, "a", &log, 0).await; // b is now the least recently used
    turn(&sessions, "c", &log, 0).await;
    assert_eq!(sessions.keys(), [key("a"), key("c")]);
    eventually("b's shutdown", || {
        log_lines(&log).contains(&"b: shutdown".into())
    })
    .await;
    assert_eq!(
        *seen.lock().unwrap(),
        [("b".into(), EndReason::Evicted, true)]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_all_shuts_every_session_down_and_builds_no_new_one() {
    let (on_end, seen) = ends();
    let sessions = Sessions::new(SessionsConfig {
        on_end: Some(on_end),
        ..SessionsConfig::default()
    });
    let log: Log = Arc::default();
    let gate = Gate::new();
    let a = sessions
        .enter(key("a"), || {
            Ok(gated_session("a", &log, 0, Some(Arc::clone(&gate))))
        })
        .await
        .expect("entered");
    let _ = a.runner.emit(&TurnStartEvent::default()).await;
    drop(a);
    for id in ["b", "c"] {
        turn(&sessions, id, &log, 0).await;
    }
    // A call in progress during the shutdown finishes first: "a"'s second turn is held at the
    // gate while the shutdown begins, and "a" ends only once it is released.
    gate.armed.store(true, Ordering::SeqCst);
    let busy = {
        let (sessions, log) = (sessions.clone(), Arc::clone(&log));
        tokio::spawn(async move { turn(&sessions, "a", &log, 0).await })
    };
    gate.entered.notified().await;
    let shutdown = {
        let sessions = sessions.clone();
        tokio::spawn(async move { sessions.shutdown_all().await })
    };
    eventually("b and c to shut down", || {
        let lines = log_lines(&log);
        ["b: shutdown", "c: shutdown"]
            .iter()
            .all(|l| lines.iter().any(|s| s == l))
    })
    .await;
    assert!(
        !log_lines(&log).iter().any(|l| l == "a: shutdown"),
        "a ended during its call: {:?}",
        log_lines(&log)
    );
    gate.release.add_permits(1);
    assert_eq!(shutdown.await.unwrap(), 3);
    busy.await.unwrap();
    let lines = log_lines(&log);
    for id in ["a", "b", "c"] {
        assert!(lines.contains(&format!("{id}: shutdown")), "{lines:?}");
    }
    let a: Vec<&String> = lines.iter().filter(|l| l.starts_with("a:")).collect();
    assert_eq!(a, ["a: start", "a: turn 1", "a: turn 2", "a: shutdown"]);
    let mut seen = seen.lock().unwrap().clone();
    seen.sort_by(|x, y| x.0.cmp(&y.0));
    assert!(
        seen.iter()
            .all(|(_, r, clean)| *r == EndReason::Shutdown && *clean),
        "{seen:?}"
    );
    let refused = sessions
        .enter(key("d"), || Ok(session("d", &log, 0)))
        .await
        .unwrap_err();
    assert_eq!(refused, SessionError::ShuttingDown);
}

#[tokio::test]
async fn a_failing_open_keeps_nothing_and_the_next_call_builds_the_session() {
    let sessions: Sessions<()> = Sessions::new(SessionsConfig::default());
    let log: Log = Arc::default();
    let err = sessions
        .enter(key("a"), || Err("cannot load hooks: boom".to_owned()))
        .await
        .unwrap_err();
    assert_eq!(err, SessionError::Open("cannot load hooks: boom".into()));
    assert!(sessions.is_empty());
    assert!(turn(&sessions, "a", &log, 0).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abandoned_session_leaves_at_once_and_shuts_down_when_its_call_returns() {
    let (on_end, seen) = ends();
    let sessions = Sessions::new(SessionsConfig {
        on_end: Some(on_end),
        ..SessionsConfig::default()
    });
    let log: Log = Arc::default();
    let hung = {
        let (sessions, log) = (sessions.clone(), Arc::clone(&log));
        tokio::spawn(async move { turn(&sessions, "a", &log, 400).await })
    };
    eventually("the session", || sessions.contains(&key("a"))).await;
    assert!(sessions.abandon(&key("a")));
    assert!(!sessions.contains(&key("a")));
    // A new call does not wait for the hung one.
    let begun = Instant::now();
    assert!(turn(&sessions, "a", &log, 0).await, "a new session");
    assert!(begun.elapsed() < Duration::from_millis(300));
    hung.await.unwrap();
    eventually("the abandoned session's shutdown", || {
        seen.lock().unwrap().len() == 1
    })
    .await;
    assert_eq!(
        *seen.lock().unwrap(),
        [("a".into(), EndReason::Abandoned, true)]
    );
}
