use hookwright::prelude::*;

#[derive(Debug)]
struct MyError;

// An error type without `Display`: the command's return-type message, not the sealed trait's.
#[command("handoff")]
fn handoff(_args: &str) -> Result<(), MyError> {
    Err(MyError)
}

fn main() {
    let _ = handoff;
}
