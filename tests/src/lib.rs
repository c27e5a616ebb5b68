//! Shared helpers of the cross-crate integration tests.
