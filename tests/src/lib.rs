//! Shared helpers of the cross-crate integration tests.

/// The README's Rust examples, compiled and run as doctests so they stay true.
#[doc = include_str!("../../README.md")]
pub mod readme {}
