//! The status line (SPEC.md section 6, SPEC-DETAILS 4.2 and deliberate difference 2): stored per
//! key, sorted by key, sanitized (whole ANSI sequences removed, other controls -> space, runs
//! collapsed, trimmed), joined with one space, truncated to a width in cells with `…`.

use crate::support::{TestUi, hook, runner, test_host};
use hookwright::StatusLine;
use hookwright::events::SessionStartEvent;
use hookwright::ui::{sanitize_status_text, truncate_to_width};
use hookwright::{HookContext, HookUi};

fn line(segments: &[(&str, Option<&str>)], width: usize) -> Option<String> {
    let mut status = StatusLine::default();
    for (key, text) in segments {
        status.set(key, *text);
    }
    status.render(width)
}

#[test]
fn status_segments_are_sorted_by_key() {
    assert_eq!(
        line(
            &[("c", Some("three")), ("a", Some("one")), ("b", Some("two"))],
            80
        )
        .as_deref(),
        Some("one two three")
    );
}

#[test]
fn status_empty_string_is_stored_and_joined() {
    assert_eq!(
        line(&[("a", Some("x")), ("b", Some("")), ("c", Some("y"))], 80).as_deref(),
        Some("x  y")
    );
    assert_eq!(line(&[("a", Some(""))], 80).as_deref(), Some(""));
}

#[test]
fn status_none_deletes_the_key() {
    assert_eq!(
        line(&[("a", Some("x")), ("b", Some("y")), ("a", None)], 80).as_deref(),
        Some("y")
    );
    assert_eq!(
        line(&[("a", None)], 80),
        None,
        "deleting a missing key is fine"
    );
}

#[test]
fn status_setting_an_existing_key_replaces_its_text() {
    assert_eq!(
        line(
            &[("a", Some("old")), ("b", Some("b")), ("a", Some("new"))],
            80
        )
        .as_deref(),
        Some("new b")
    );
}

#[test]
fn status_no_line_when_empty() {
    assert_eq!(StatusLine::default().render(80), None);
    assert!(StatusLine::default().is_empty());
    assert_eq!(line(&[("a", Some("x")), ("a", None)], 80), None);
}

#[test]
fn status_sanitize_cr_lf_tab_become_spaces() {
    assert_eq!(sanitize_status_text("a\rb"), "a b");
    assert_eq!(sanitize_status_text("a\nb"), "a b");
    assert_eq!(sanitize_status_text("a\tb"), "a b");
    assert_eq!(sanitize_status_text("build:\r\n\tok"), "build: ok");
}

#[test]
fn status_sanitize_other_control_characters_become_spaces() {
    for c in [
        '\u{0}', '\u{7}', '\u{8}', '\u{b}', '\u{c}', '\u{1f}', '\u{7f}', '\u{80}', '\u{85}',
        '\u{9f}',
    ] {
        let text = format!("a{c}b");
        assert_eq!(
            sanitize_status_text(&text),
            "a b",
            "control U+{:04X}",
            c as u32
        );
    }
}

#[test]
fn status_sanitize_collapses_space_runs_and_trims() {
    assert_eq!(
        sanitize_status_text("   lots    of     space   "),
        "lots of space"
    );
    assert_eq!(sanitize_status_text("\t\t x \n\n y \r\r"), "x y");
    assert_eq!(sanitize_status_text(" \t\r\n "), "");
}

#[test]
fn status_sanitize_keeps_non_ascii_spaces_inside_the_text() {
    // Only U+0020 runs collapse.
    assert_eq!(sanitize_status_text("a\u{a0}\u{a0}b"), "a\u{a0}\u{a0}b");
    assert_eq!(sanitize_status_text("naïve café ✓"), "naïve café ✓");
}

#[test]
fn status_sanitize_removes_ansi_csi_sequences_whole() {
    assert_eq!(sanitize_status_text("\x1b[32mok\x1b[0m done"), "ok done");
    assert_eq!(sanitize_status_text("\x1b[1;31mERR\x1b[39;49m!"), "ERR!");
    assert_eq!(sanitize_status_text("a\x1b[2Kb"), "ab");
    assert_eq!(
        sanitize_status_text("\x1b[38;5;208morange\x1b[0m"),
        "orange"
    );
}

#[test]
fn status_sanitize_removes_ansi_osc_sequences_whole() {
    assert_eq!(
        sanitize_status_text("\x1b]8;;https://example.com\x07link\x1b]8;;\x07"),
        "link"
    );
    assert_eq!(
        sanitize_status_text("\x1b]0;window title\x1b\\text"),
        "text"
    );
    assert_eq!(
        sanitize_status_text("a\x1b]2;t\x07 b\x07c"),
        "a b c",
        "a lone BEL is a space"
    );
}

#[test]
fn status_sanitize_removes_other_escape_sequences_and_lone_esc() {
    assert_eq!(sanitize_status_text("\x1b(Bplain\x1b7x\x1b8"), "plainx");
    assert_eq!(sanitize_status_text("\x1bPq#0;2;0;0;0\x1b\\sixel"), "sixel");
    assert_eq!(sanitize_status_text("end\x1b"), "end");
    assert_eq!(sanitize_status_text("a\x1b\x1b[31mb"), "ab");
    assert_eq!(
        sanitize_status_text("\x1b[31"),
        "",
        "an unterminated CSI is dropped"
    );
}

#[test]
fn status_render_sanitizes_each_segment_then_joins() {
    assert_eq!(
        line(
            &[
                ("b", Some("\x1b[33m warn \x1b[0m")),
                ("a", Some("  git:\tmain \n")),
            ],
            80
        )
        .as_deref(),
        Some("git: main warn")
    );
}

#[test]
fn status_truncates_with_an_ellipsis() {
    assert_eq!(truncate_to_width("hello world", 5), "hell…");
    assert_eq!(
        line(&[("a", Some("hello")), ("b", Some("world"))], 8).as_deref(),
        Some("hello w…")
    );
}

#[test]
fn status_fitting_line_is_unchanged_and_not_padded() {
    assert_eq!(truncate_to_width("hello world", 11), "hello world");
    assert_eq!(truncate_to_width("hello world", 40), "hello world");
    assert_eq!(truncate_to_width("", 0), "");
}

#[test]
fn status_truncate_width_one_gives_only_the_ellipsis() {
    assert_eq!(truncate_to_width("hello", 1), "…");
    assert_eq!(line(&[("a", Some("hello"))], 1).as_deref(), Some("…"));
}

#[test]
fn status_truncate_width_zero_gives_an_empty_string() {
    assert_eq!(truncate_to_width("hello", 0), "");
    assert_eq!(line(&[("a", Some("hello"))], 0).as_deref(), Some(""));
}

#[test]
fn status_wide_cjk_characters_count_two_cells() {
    let text = "日本語テキスト"; // 7 characters, 14 cells
    assert_eq!(truncate_to_width(text, 14), text);
    assert_eq!(truncate_to_width(text, 13), "日本語テキス…");
    assert_eq!(truncate_to_width(text, 12), "日本語テキ…");
    assert_eq!(truncate_to_width(text, 6), "日本…");
    assert_eq!(
        truncate_to_width(text, 2),
        "…",
        "a wide char never straddles the edge"
    );
    assert_eq!(truncate_to_width("ab日本", 4), "ab…");
    assert_eq!(truncate_to_width("ab日本", 6), "ab日本");
}

#[tokio::test]
async fn status_set_by_a_handler_through_the_ui_renders_sorted() {
    let h = hook("h", |api| {
        api.on(|_e: &SessionStartEvent, ctx: &HookContext| {
            ctx.ui().set_status("zz-model", Some("opus"));
            ctx.ui().set_status("aa-git", Some("main\n*"));
            ctx.ui().set_status("mm-tmp", Some("gone"));
            ctx.ui().set_status("mm-tmp", None);
        });
    });
    let runner = runner(vec![h]);
    let ui = TestUi::new("tui");
    let (mut options, _inbox) = test_host();
    let dyn_ui: std::sync::Arc<dyn HookUi> = ui.clone();
    options.ui = Some(dyn_ui);
    options.has_ui = Some(true);
    runner.initialize(options);
    let _ = runner.emit(&SessionStartEvent::default()).await;
    assert_eq!(
        ui.status.lock().unwrap().render(80).as_deref(),
        Some("main * opus")
    );
}
