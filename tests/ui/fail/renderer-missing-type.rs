use hookwright::prelude::*;

#[renderer]
fn render(
    _message: &CustomMessage,
    _options: RenderOptions,
    _theme: &Theme,
) -> Option<Vec<String>> {
    None
}

fn main() {
    // The function is still emitted: no "cannot find" error follows the real one.
    let _ = render;
}
