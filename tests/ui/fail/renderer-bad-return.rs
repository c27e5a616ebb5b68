use hookwright::prelude::*;

#[renderer("my-type")]
fn render(_message: &CustomMessage, _options: RenderOptions, _theme: &Theme) -> Vec<String> {
    Vec::new()
}

fn main() {
    // The function is still emitted: no "cannot find" error follows the real one.
    let _ = render;
}
