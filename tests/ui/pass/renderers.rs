//! `#[renderer]`: renders custom messages of one type; `None` means the default rendering.

use hookwright::prelude::*;
use hookwright::registry;

#[renderer("status")]
fn render_status(
    message: &CustomMessage,
    options: RenderOptions,
    theme: &Theme,
) -> Option<Vec<String>> {
    let text = message.content.to_text();
    Some(if options.expanded {
        text.lines().map(|l| theme.bold(l)).collect()
    } else {
        vec![text.lines().next().unwrap_or_default().to_owned()]
    })
}

#[renderer("plain", hook = "zz_other")]
fn render_plain(
    _message: &CustomMessage,
    _options: RenderOptions,
    _theme: &Theme,
) -> Option<Vec<String>> {
    None
}

fn main() {
    let hooks = registry::compiled_hooks(std::path::Path::new(".")).unwrap();
    assert_eq!(hooks.len(), 2);
    let render = &hooks[0].renderers["status"];
    let message = CustomMessage::new("status", "one\ntwo");
    let theme = Theme::plain();
    assert_eq!(
        render(&message, RenderOptions { expanded: false }, &theme),
        Some(vec!["one".to_owned()])
    );
    assert_eq!(
        render(&message, RenderOptions { expanded: true }, &theme).map(|l| l.len()),
        Some(2)
    );
    assert!(hooks[1].renderers["plain"](&message, RenderOptions::default(), &theme).is_none());
}
