use hookwright::prelude::*;

// No return type: the error points at the signature, where `-> Option<Vec<String>>` belongs.
#[renderer("my-type")]
fn render(_message: &CustomMessage, _options: RenderOptions, _theme: &Theme) {}

fn main() {
    let _ = render;
}
