//! Hook files' output: `hookwright::loader::claude::decide_pre_tool_use` and
//! `decide_post_tool_use` on arbitrary stdout and stderr. The first byte picks how the process
//! ended; the rest is split at the first 0xff byte into stdout and stderr.

#![no_main]

use std::path::Path;
use std::time::Duration;

use hookwright::loader::claude::{HookExit, HookRun, decide_post_tool_use, decide_pre_tool_use};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let exit = match first % 6 {
        0 | 1 => HookExit::Code(0),
        2 => HookExit::Code(2),
        3 => HookExit::Code(i32::from(first)),
        4 => HookExit::Signal(9),
        _ => HookExit::TimedOut(Duration::from_millis(500)),
    };
    let (stdout, stderr) = match rest.iter().position(|&b| b == 0xff) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let run = HookRun {
        exit,
        stdout: stdout.to_vec(),
        stderr: stderr.to_vec(),
        stdout_truncated: first & 0x80 != 0 && first % 6 == 1,
    };
    let file = Path::new("/p/.xcsh/hooks/pre/bash.sh");
    match decide_pre_tool_use(&run, file) {
        Ok(Some(result)) => {
            assert_eq!(result.block, Some(true), "a PreToolUse decision is a block")
        }
        Ok(None) => assert_eq!(run.exit, HookExit::Code(0)),
        Err(e) => assert!(e.contains("bash.sh"), "the error names the file: {e}"),
    }
    match decide_post_tool_use(&run, file) {
        Ok(_) => assert_eq!(run.exit, HookExit::Code(0)),
        Err(e) => assert!(e.contains("bash.sh"), "the error names the file: {e}"),
    }
});
