//! The per-call switches a request brings to `hooks serve`, so that a call is decided in the
//! mode of the session that made it, never in that of whichever session started the server
//! (the server starts with a clean environment: [`super::control::ensure_running`]).
//!
//! | header | sent by | value |
//! | --- | --- | --- |
//! | [`MODE_HEADER`] `x-hooks-mode` | the command adapter on the socket (always); Claude Code's HTTP entries (`$HOOKS_MODE` of the agent's environment) | `audit`, `enforce`; empty: the server's own mode (its config file) |
//! | [`DISABLE_HEADER`] `x-hooks-disable` | Claude Code's HTTP entries (`$HOOKS_DISABLE`) | `1`: the kill switch (no opinion, nothing runs); empty or `0`: off |
//! | [`CWD_HEADER`] `x-hooks-cwd` | the command adapter on the socket | the call's working directory, absolute |
//! | [`TRUST_HEADER`] `x-hooks-trust` | the command adapter on the socket | `all` (`--trust-all`) or `check` |
//!
//! Claude Code interpolates `$VAR` in an HTTP entry's header values for the names listed in
//! its `allowedEnvVars`, and an unset variable as the empty string, which is why empty means
//! "not given". The working directory and the trust mode are taken from the socket only: on
//! the loopback the body's `cwd` and the server's own trust mode apply.

use std::path::PathBuf;

use axum::http::HeaderMap;

use crate::call::AdapterOptions;
use crate::call::audit::{self, Mode};
use crate::trust::TrustMode;

/// The header of the call's working directory (absolute, as the adapter resolved it).
pub const CWD_HEADER: &str = "x-hooks-cwd";

/// The header of the call's trust mode: `all` (`--trust-all`) or `check`.
pub const TRUST_HEADER: &str = "x-hooks-trust";

/// The header of the call's audit mode ([`crate::call::audit::Mode`]): `enforce` or `audit`.
pub const MODE_HEADER: &str = "x-hooks-mode";

/// The header of the call's kill switch: `1` switches the hooks off for the call.
pub const DISABLE_HEADER: &str = "x-hooks-disable";

/// What a request's headers make of the server's options for one call.
#[derive(Debug, Clone)]
pub struct CallSwitches {
    /// The call's options.
    pub options: AdapterOptions,
    /// Whether the call's kill switch is on.
    pub disabled: bool,
}

/// The options of a call that came in on the loopback: `base` (the server's) in the call's
/// audit mode, with its kill switch.
///
/// # Errors
/// A header value that is not one of those above (names it): the call fails as a bad
/// `HOOKS_MODE` fails the command adapter.
pub fn loopback(headers: &HeaderMap, base: &AdapterOptions) -> Result<CallSwitches, String> {
    let mut options = base.clone();
    if let Some(mode) = mode(headers)? {
        options.audit = base.audit.for_mode(mode);
    }
    let disabled = match headers.get(DISABLE_HEADER).map(|v| v.as_bytes()) {
        None | Some(b"" | b"0") => false,
        Some(b"1") => true,
        Some(_) => {
            return Err(format!(
                "invalid configuration: {DISABLE_HEADER} (HOOKS_DISABLE) must be `1`, `0` or empty"
            ));
        }
    };
    Ok(CallSwitches { options, disabled })
}

/// The options of a call that came in on the unix socket: `base` (the server's) with the
/// call's working directory, trust mode and audit mode from its headers, when it has them
/// (the decision log is written where the server's settings say, when it is written in the
/// call's mode).
///
/// # Errors
/// A header that is not what the adapter sends (names it).
pub fn socket(headers: &HeaderMap, base: &AdapterOptions) -> Result<AdapterOptions, String> {
    let mut options = base.clone();
    if let Some(cwd) = headers.get(CWD_HEADER) {
        let cwd = path_of(cwd.as_bytes())
            .filter(|p| p.is_absolute())
            .ok_or_else(|| format!("{CWD_HEADER} must be an absolute path"))?;
        options.cwd = Some(cwd);
        options.project_dir = None;
    }
    if let Some(trust) = headers.get(TRUST_HEADER) {
        options.trust = match trust.as_bytes() {
            b"all" => TrustMode::All,
            b"check" => TrustMode::Check,
            _ => return Err(format!("{TRUST_HEADER} must be `all` or `check`")),
        };
    }
    match headers.get(MODE_HEADER).map(|v| v.as_bytes()) {
        None => {}
        Some(b"enforce") => options.audit = base.audit.for_mode(Mode::Enforce),
        Some(b"audit") => options.audit = base.audit.for_mode(Mode::Audit),
        Some(_) => return Err(format!("{MODE_HEADER} must be `enforce` or `audit`")),
    }
    Ok(options)
}

/// The mode [`MODE_HEADER`] names, as `HOOKS_MODE` would.
fn mode(headers: &HeaderMap) -> Result<Option<Mode>, String> {
    let Some(value) = headers.get(MODE_HEADER) else {
        return Ok(None);
    };
    let value = value.to_str().unwrap_or("\u{fffd}");
    audit::parse_mode(Some(value)).map_err(|e| format!("invalid configuration: {e}"))
}

fn path_of(bytes: &[u8]) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt as _;
    Some(PathBuf::from(std::ffi::OsStr::from_bytes(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(k, v)| (axum::http::HeaderName::from_static(k), v.parse().unwrap()))
            .collect()
    }

    #[test]
    fn a_socket_call_brings_its_own_working_directory_and_trust_mode() {
        let base = AdapterOptions {
            project_dir: Some("/elsewhere".into()),
            ..AdapterOptions::default()
        };
        let got = socket(
            &headers(&[(CWD_HEADER, "/work/p"), (TRUST_HEADER, "all")]),
            &base,
        )
        .unwrap();
        assert_eq!(got.cwd, Some(PathBuf::from("/work/p")));
        assert_eq!(
            got.project_dir, None,
            "the call's directory is resolved already"
        );
        assert_eq!(got.trust, TrustMode::All);
        let kept = socket(&HeaderMap::new(), &base).unwrap();
        assert_eq!(
            (kept.cwd, kept.project_dir, kept.trust),
            (None, base.project_dir.clone(), TrustMode::Check)
        );
    }

    #[test]
    fn a_socket_call_with_a_relative_directory_or_an_unknown_trust_mode_is_refused() {
        let base = AdapterOptions::default();
        let relative = socket(&headers(&[(CWD_HEADER, "p")]), &base).unwrap_err();
        assert_eq!(relative, "x-hooks-cwd must be an absolute path");
        let trust = socket(&headers(&[(TRUST_HEADER, "yes")]), &base).unwrap_err();
        assert_eq!(trust, "x-hooks-trust must be `all` or `check`");
        let mode = socket(&headers(&[(MODE_HEADER, "lenient")]), &base).unwrap_err();
        assert_eq!(mode, "x-hooks-mode must be `enforce` or `audit`");
    }

    #[test]
    fn a_call_is_decided_in_the_mode_it_brings_and_logged_where_the_server_logs() {
        let place = audit::LogSettings {
            path: "/s/decisions.jsonl".into(),
            max_bytes: 1,
            keep: 1,
        };
        let base = AdapterOptions {
            audit: audit::Settings {
                place: Some(place.clone()),
                ..audit::Settings::default()
            },
            ..AdapterOptions::default()
        };
        let audited = socket(&headers(&[(MODE_HEADER, "audit")]), &base).unwrap();
        assert_eq!(
            (audited.audit.mode, audited.audit.log),
            (Mode::Audit, Some(place))
        );
        let mut auditing = base.clone();
        auditing.audit.mode = Mode::Audit;
        let enforce = socket(&headers(&[(MODE_HEADER, "enforce")]), &auditing).unwrap();
        assert_eq!(
            (enforce.audit.mode, enforce.audit.log),
            (Mode::Enforce, None)
        );
        let over_http = loopback(&headers(&[(MODE_HEADER, "audit")]), &base).unwrap();
        assert_eq!(over_http.options.audit.mode, Mode::Audit);
        let unset = loopback(
            &headers(&[(MODE_HEADER, ""), (DISABLE_HEADER, "")]),
            &auditing,
        );
        let unset = unset.unwrap();
        assert_eq!(
            (unset.options.audit.mode, unset.disabled),
            (Mode::Audit, false)
        );
        let off = loopback(&headers(&[(DISABLE_HEADER, "1")]), &base).unwrap();
        assert!(off.disabled);
        let typo = loopback(&headers(&[(MODE_HEADER, "lenient")]), &base).unwrap_err();
        assert!(typo.contains("HOOKS_MODE=lenient is not a mode"), "{typo}");
    }
}
