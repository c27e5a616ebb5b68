//! The trust store: the file format (`trusted.json`, read with the bounded decoder), the
//! content hashes and keys it records, and its atomic writes.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize};
use sha2::{Digest, Sha256};

use hookwright::loader::path::normalize_lexically;

use crate::json as input;

use super::config::store_path;
use super::error::{TrustError, shown};

/// The version of the trust store's format.
pub const TRUST_VERSION: u32 = 1;

/// The lowercase hex SHA-256 of `bytes`.
#[must_use]
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    use fmt::Write as _;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _infallible = write!(out, "{b:02x}");
    }
    out
}

/// The lowercase hex SHA-256 of the file at `path` (read in chunks; symlinks followed).
///
/// # Errors
/// The file cannot be opened or read.
pub fn sha256_file(path: &Path) -> io::Result<String> {
    let mut file = fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(hex(&hasher.finalize()))
}

/// The key of `path` in the trust store: its canonical path (symlinks resolved) when it
/// exists, else its lexically normalised absolute path.
#[must_use]
pub fn file_key(path: &Path) -> String {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map_or_else(|_| path.to_path_buf(), |d| d.join(path))
    };
    fs::canonicalize(&absolute)
        .unwrap_or_else(|_| normalize_lexically(&absolute))
        .to_string_lossy()
        .into_owned()
}

/// Whether a file is trusted, compared with the trust store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrustStatus {
    /// Its current content is the trusted content.
    Trusted,
    /// It is not in the store.
    Untrusted,
    /// It is in the store with another content hash.
    Changed {
        /// The hash recorded when it was trusted.
        trusted: String,
        /// The hash of its content now.
        current: String,
    },
}

/// A SHA-256 hex string, checked while decoding (so a bad one has a position).
struct HashHex(String);

impl<'de> Deserialize<'de> for HashHex {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(HashHex(s.to_ascii_lowercase()))
        } else {
            Err(serde::de::Error::custom(format!(
                "expected a SHA-256 hash (64 hex digits), found {:?}",
                input::one_line(&s, 80)
            )))
        }
    }
}

/// The format version, checked while decoding.
struct Version;

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = u64::deserialize(d)?;
        if v == u64::from(TRUST_VERSION) {
            Ok(Version)
        } else {
            Err(serde::de::Error::custom(format!(
                "unsupported trust store version {v} (this hooks reads version {TRUST_VERSION})"
            )))
        }
    }
}

#[derive(Deserialize)]
struct StoreIn {
    #[expect(dead_code, reason = "only checked")]
    version: Version,
    #[serde(default)]
    files: BTreeMap<String, HashHex>,
}

#[derive(Serialize)]
struct StoreOut<'a> {
    version: u32,
    files: &'a BTreeMap<String, String>,
}

/// The trust store: canonical file paths and the SHA-256 of the content that was trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustStore {
    path: PathBuf,
    files: BTreeMap<String, String>,
}

impl TrustStore {
    /// Opens the store of this process ([`store_path`]).
    ///
    /// # Errors
    /// See [`TrustStore::open`].
    pub fn open_default() -> Result<Self, TrustError> {
        TrustStore::open(store_path()?)
    }

    /// Opens the store at `path`; a missing file is an empty store.
    ///
    /// # Errors
    /// The file cannot be read, or is not a valid trust store (bounded decoding; the error
    /// names `file:line:column`).
    pub fn open(path: impl Into<PathBuf>) -> Result<Self, TrustError> {
        let path = path.into();
        let bytes = match fs::File::open(&path) {
            Ok(mut file) => input::read_bounded(&mut file).map_err(|source| TrustError::Read {
                path: path.clone(),
                source,
            })?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(TrustStore {
                    path,
                    files: BTreeMap::new(),
                });
            }
            Err(source) => return Err(TrustError::Read { path, source }),
        };
        TrustStore::parse(path, &bytes)
    }

    /// Decodes a store whose file `path` holds `bytes` (the checks of [`TrustStore::open`],
    /// without reading the file).
    ///
    /// # Errors
    /// [`TrustError::Malformed`], naming `path:line:column`.
    pub fn parse(path: impl Into<PathBuf>, bytes: &[u8]) -> Result<Self, TrustError> {
        let path = path.into();
        let decoded: StoreIn = input::decode_object(bytes, &shown(&path))
            .map_err(|error| TrustError::Malformed { error })?;
        Ok(TrustStore {
            path,
            files: decoded
                .files
                .into_iter()
                .map(|(k, HashHex(v))| (k, v))
                .collect(),
        })
    }

    /// The store's file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The entries, `(path, sha256 hex)`, sorted by path.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &str)> {
        self.files.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Whether the store has no entries.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The hash recorded for `file` ([`file_key`]), if any.
    #[must_use]
    pub fn get(&self, file: &Path) -> Option<&str> {
        self.files.get(&file_key(file)).map(String::as_str)
    }

    /// Compares `file`'s current content with the store.
    ///
    /// # Errors
    /// [`TrustError::Hash`]: the file cannot be read.
    pub fn status(&self, file: &Path) -> Result<TrustStatus, TrustError> {
        let Some(trusted) = self.get(file) else {
            return Ok(TrustStatus::Untrusted);
        };
        let current = sha256_file(file).map_err(|source| TrustError::Hash {
            path: file.to_path_buf(),
            source,
        })?;
        Ok(if current == trusted {
            TrustStatus::Trusted
        } else {
            TrustStatus::Changed {
                trusted: trusted.to_owned(),
                current,
            }
        })
    }

    /// Records `file`'s current content (in memory; [`TrustStore::save`] writes it). Returns
    /// the key, the hash, and the status before.
    ///
    /// # Errors
    /// [`TrustError::Hash`]: the file cannot be read, or is not a regular file.
    pub fn trust(&mut self, file: &Path) -> Result<(String, String, TrustStatus), TrustError> {
        let hash_err = |source| TrustError::Hash {
            path: file.to_path_buf(),
            source,
        };
        let meta = fs::metadata(file).map_err(hash_err)?;
        if !meta.is_file() {
            let what = if meta.is_dir() {
                "a directory; name a hook file inside it"
            } else {
                "not a regular file"
            };
            return Err(hash_err(io::Error::other(format!("it is {what}"))));
        }
        let hash = sha256_file(file).map_err(hash_err)?;
        let key = file_key(file);
        let before = match self.files.get(&key) {
            None => TrustStatus::Untrusted,
            Some(old) if *old == hash => TrustStatus::Trusted,
            Some(old) => TrustStatus::Changed {
                trusted: old.clone(),
                current: hash.clone(),
            },
        };
        self.files.insert(key.clone(), hash.clone());
        Ok((key, hash, before))
    }

    /// Removes `file` (by [`file_key`], or by the exact key text) from the store (in memory).
    /// Returns whether it was there.
    pub fn untrust(&mut self, file: &Path) -> bool {
        let key = file_key(file);
        self.files.remove(&key).is_some()
            || self.files.remove(file.to_string_lossy().as_ref()).is_some()
    }

    /// Writes the store atomically (a temporary file in the same directory, flushed, renamed
    /// over it); creates the directory. A symlinked store is written through to its target.
    ///
    /// # Errors
    /// [`TrustError::Write`].
    pub fn save(&self) -> Result<(), TrustError> {
        let err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| TrustError::Write { path, source }
        };
        let target = if fs::symlink_metadata(&self.path).is_ok_and(|m| m.file_type().is_symlink()) {
            fs::canonicalize(&self.path).map_err(err(&self.path))?
        } else {
            self.path.clone()
        };
        let dir = target
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        fs::create_dir_all(dir).map_err(err(dir))?;
        let mut text = serde_json::to_string_pretty(&StoreOut {
            version: TRUST_VERSION,
            files: &self.files,
        })
        .map_err(|e| err(&target)(io::Error::other(e)))?;
        text.push('\n');
        let mut tmp = tempfile::Builder::new()
            .prefix(".trusted-")
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(err(dir))?;
        tmp.write_all(text.as_bytes()).map_err(err(tmp.path()))?;
        tmp.as_file().sync_all().map_err(err(tmp.path()))?;
        tmp.persist(&target).map_err(|e| err(&target)(e.error))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_known_input() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn store_round_trip_and_status() {
        let dir = tempfile::tempdir().unwrap();
        let hook = dir.path().join("hook.sh");
        fs::write(&hook, "#!/bin/sh\n").unwrap();
        let path = dir.path().join("cfg/trusted.json");
        let mut store = TrustStore::open(&path).unwrap();
        assert_eq!(store.status(&hook).unwrap(), TrustStatus::Untrusted);
        store.trust(&hook).unwrap();
        store.save().unwrap();
        let store = TrustStore::open(&path).unwrap();
        assert_eq!(store.status(&hook).unwrap(), TrustStatus::Trusted);
        fs::write(&hook, "#!/bin/sh\necho changed\n").unwrap();
        assert!(matches!(
            store.status(&hook).unwrap(),
            TrustStatus::Changed { .. }
        ));
        let text = fs::read_to_string(&path).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["version"], 1);
        assert_eq!(value["files"].as_object().unwrap().len(), 1);
    }

    #[test]
    fn malformed_stores_name_the_position() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trusted.json");
        for (text, needle) in [
            ("{\"version\": 1, \"files\": {", ":1:"),
            (
                "{\"version\": 2, \"files\": {}}",
                "unsupported trust store version 2",
            ),
            ("{\"version\": 1,\n \"files\": {\"/a\": \"xyz\"}}", ":2:"),
            ("", "empty input"),
            ("[]", "expected a JSON object"),
        ] {
            fs::write(&path, text).unwrap();
            let err = TrustStore::open(&path).unwrap_err();
            assert_eq!(err.exit_code(), 2, "{err}");
            let message = err.to_string();
            assert!(message.contains(needle), "{text:?}: {message}");
            assert!(message.contains("trusted.json"), "{message}");
        }
    }
}
