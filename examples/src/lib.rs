//! Example hook bundles.
