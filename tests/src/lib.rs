//! Shared helpers of the cross-crate integration tests.

/// The README's Rust examples, compiled and run as doctests so they stay true.
#[doc = include_str!("../../README.md")]
pub mod readme {}

/// The Rust examples of each page of docs/, compiled and run as doctests.
pub mod docs {
    #[doc = include_str!("../../docs/agents.md")]
    pub mod agents {}
    #[doc = include_str!("../../docs/architecture.md")]
    pub mod architecture {}
    #[doc = include_str!("../../docs/bundles.md")]
    pub mod bundles {}
    #[doc = include_str!("../../docs/commands.md")]
    pub mod commands {}
    #[doc = include_str!("../../docs/development.md")]
    pub mod development {}
    #[doc = include_str!("../../docs/differences.md")]
    pub mod differences {}
    #[doc = include_str!("../../docs/examples.md")]
    pub mod examples {}
    #[doc = include_str!("../../docs/failure.md")]
    pub mod failure {}
    #[doc = include_str!("../../docs/platforms.md")]
    pub mod platforms {}
    #[doc = include_str!("../../docs/serve.md")]
    pub mod serve {}
    #[doc = include_str!("../../docs/threat-model.md")]
    pub mod threat_model {}
    #[doc = include_str!("../../docs/trust.md")]
    pub mod trust {}
}

/// The Rust examples of the published packages' READMEs (their crates.io pages), compiled and
/// run as doctests.
pub mod packages {
    #[doc = include_str!("../../hooks-core/README.md")]
    pub mod hookwright {}
    #[doc = include_str!("../../hooks-macros/README.md")]
    pub mod hookwright_macros {}
    #[doc = include_str!("../../hooks-bin/README.md")]
    pub mod hookwright_cli {}
    #[doc = include_str!("../../examples/README.md")]
    pub mod hookwright_examples {}
    #[doc = include_str!("../../hooks-guards/README.md")]
    pub mod hookwright_guards {}
}
