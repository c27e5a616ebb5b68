use hookwright::prelude::*;

struct Guards;

impl Guards {
    #[hook(event = "tool_call")]
    fn guard(&self, _event: &ToolCallEvent) {}
}

fn main() {
    Guards.guard(&serde_json::from_str(r#"{"type":"tool_call"}"#).unwrap());
}
