//! The macros' checks, in one test binary: their event table against `hookwright::events`, and
//! their compile-time errors (trybuild). The tests beside this one are binaries of their own
//! because each needs its own set of linked bundles, and `e2e` is the end-to-end suite.

mod event_table;
mod ui;
