//! The per-user secret every HTTP request of `hooks serve` carries (`Authorization: Bearer
//! SECRET`): 32 random bytes, hex, in `<config dir>/serve-secret` (mode 0600), made on first
//! use. It lives in the config directory only: `hooks install claude --http` writes it into
//! the user's settings or the project's personal (git-ignored) `settings.local.json`, never
//! into a settings file that gets committed.

use std::fmt;
use std::fs;
use std::io::{self, Read as _, Write as _};
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

/// The secret's file name in the config directory.
pub const SECRET_FILE: &str = "serve-secret";

/// The per-user secret of `hooks serve`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(..)")
    }
}

impl Secret {
    /// A new random secret (32 bytes from the OS, as 64 hex digits).
    ///
    /// # Errors
    /// The OS gives no random bytes.
    pub fn generate() -> Result<Secret, String> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| format!("no random bytes from the OS: {e}"))?;
        Ok(Secret(bytes.iter().map(|b| format!("{b:02x}")).collect()))
    }

    /// The secret as sent: 64 hex digits.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `given` is this secret (in time independent of where they differ).
    #[must_use]
    pub fn matches(&self, given: &[u8]) -> bool {
        same_bytes(self.0.as_bytes(), given)
    }

    /// Whether the `Authorization` header value `value` carries this secret
    /// (`Bearer SECRET`).
    #[must_use]
    pub fn authorizes(&self, value: &[u8]) -> bool {
        value
            .strip_prefix(b"Bearer ")
            .is_some_and(|given| self.matches(given))
    }

    /// The secret file in the config directory `dir`.
    #[must_use]
    pub fn path_in(dir: &Path) -> PathBuf {
        dir.join(SECRET_FILE)
    }

    /// The secret in `dir` ([`SECRET_FILE`]), made (mode 0600, with `dir` made if missing)
    /// when there is none.
    ///
    /// # Errors
    /// The file cannot be read or made, is not 64 hex digits, or can be read by others than
    /// its owner (a wider mode than 0600).
    pub fn load_or_create(dir: &Path) -> Result<Secret, String> {
        let path = Secret::path_in(dir);
        match Secret::load(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            other => return other.map_err(|e| format!("{}: {e}", path.display())),
        }
        fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        let secret = Secret::generate()?;
        let mut options = fs::OpenOptions::new();
        options.write(true).create_new(true).mode(0o600);
        match options.open(&path) {
            Ok(mut file) => {
                file.write_all(secret.0.as_bytes())
                    .and_then(|()| file.sync_all())
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                Ok(secret)
            }
            // Made by another process meanwhile: use that one.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                Secret::load(&path).map_err(|e| format!("{}: {e}", path.display()))
            }
            Err(e) => Err(format!("cannot make {}: {e}", path.display())),
        }
    }

    /// The secret in the file `path`.
    ///
    /// # Errors
    /// The file cannot be read (`NotFound` when missing), is readable by others
    /// (`PermissionDenied`), or is not 64 hex digits (`InvalidData`).
    pub fn load(path: &Path) -> io::Result<Secret> {
        let file = fs::File::open(path)?;
        let mode = file.metadata()?.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("the secret file has mode {mode:04o}; it must be 0600 (chmod 600 it)"),
            ));
        }
        let mut text = String::new();
        file.take(128).read_to_string(&mut text)?;
        let text = text.trim();
        if text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(Secret(text.to_owned()))
        } else {
            Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the secret file does not hold 64 hex digits",
            ))
        }
    }
}

/// Whether `a` and `b` are the same bytes, in time independent of where they differ.
#[must_use]
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
