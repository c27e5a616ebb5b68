//! Finding and reading the two files, cheaply on the hot path: each call looks at both files'
//! metadata (device, inode, size, modification and change time) and reads them again only
//! when it changed, so a resident runner (`hooks serve`) takes a changed file on its next call
//! and a command adapter (one process per call) reads each file once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use hookwright::dirs::{self, ConfigDirError};

use super::{Config, ConfigError, Level, MAX_BYTES};

/// The user's file, in the config directory ([`hookwright::dirs::config_dir`]).
pub const USER_FILE: &str = "guards.toml";

/// The project's file, under the runner's working directory.
pub const PROJECT_FILE: &str = ".hooks/guards.toml";

/// What a file's metadata says of its content: when it changes, the file is read again.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    #[cfg(unix)]
    ids: (u64, u64, i64, i64),
}

type Loaded = Result<Arc<Config>, ConfigError>;

/// Per (user file, project file): their stamps and what they gave.
type Cache = HashMap<(Option<PathBuf>, PathBuf), (Option<Stamp>, Option<Stamp>, Loaded)>;

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

/// How many (user file, project file) pairs are kept (a server of many projects).
const MAX_CACHED: usize = 64;

/// The configuration for a call in the project `project` (the runner's working directory):
/// the user's [`USER_FILE`] merged with `project`'s [`PROJECT_FILE`]. Missing files are no
/// configuration; with no config directory there is no user file.
///
/// # Errors
/// A file that cannot be read or is invalid ([`Config::parse`]), or a relative
/// `HOOKS_CONFIG_DIR`: the guard then blocks every `bash` call, naming the error.
pub fn load(project: &Path) -> Result<Arc<Config>, ConfigError> {
    match dirs::config_dir() {
        Ok(dir) => load_with(Some(&dir.join(USER_FILE)), project),
        Err(error @ ConfigDirError::Relative { .. }) => Err(ConfigError {
            file: PathBuf::from(dirs::CONFIG_DIR_ENV),
            at: None,
            message: error.to_string(),
        }),
        Err(_) => load_with(None, project),
    }
}

/// [`load`] with the user's file at `user` (`None`: no user file) instead of the config
/// directory's, through the same cache: what a resident runner sees when the files change.
///
/// # Errors
/// See [`load`].
pub fn load_with(user: Option<&Path>, project: &Path) -> Result<Arc<Config>, ConfigError> {
    let user = user.map(Path::to_path_buf);
    let project = project.join(PROJECT_FILE);
    let user_stamp = match &user {
        Some(path) => stamp(path)?,
        None => None,
    };
    let project_stamp = stamp(&project)?;
    let key = (user, project);
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    let cache = cache.get_or_insert_with(HashMap::new);
    if let Some((u, p, loaded)) = cache.get(&key)
        && *u == user_stamp
        && *p == project_stamp
    {
        return loaded.clone();
    }
    let home = dirs::home_dir();
    let read = |path: &Path, present: bool, level| -> Result<Config, ConfigError> {
        if !present {
            return Ok(Config::default());
        }
        let text = read_bounded(path)?;
        Config::parse(path, &text, level, home.as_deref())
    };
    let loaded = key
        .0
        .as_deref()
        .map_or_else(
            || Ok(Config::default()),
            |user| read(user, user_stamp.is_some(), Level::User),
        )
        .and_then(|user| {
            let project = read(&key.1, project_stamp.is_some(), Level::Project)?;
            Ok(Arc::new(user.merged(project)))
        });
    if cache.len() >= MAX_CACHED {
        cache.clear();
    }
    cache.insert(key, (user_stamp, project_stamp, loaded.clone()));
    loaded
}

/// The text of the file at `path`, at most [`MAX_BYTES`] of it (it may have grown since
/// its stamp was taken).
fn read_bounded(path: &Path) -> Result<String, ConfigError> {
    use std::io::Read as _;
    let error = |message: String| ConfigError {
        file: path.to_path_buf(),
        at: None,
        message,
    };
    let file = std::fs::File::open(path).map_err(|e| error(format!("cannot read: {e}")))?;
    let mut text = String::new();
    file.take(MAX_BYTES as u64 + 1)
        .read_to_string(&mut text)
        .map_err(|e| error(format!("cannot read: {e}")))?;
    if text.len() > MAX_BYTES {
        return Err(error(format!("larger than {MAX_BYTES} bytes")));
    }
    Ok(text)
}

/// The stamp of the file at `path`; `None` when there is none.
fn stamp(path: &Path) -> Result<Option<Stamp>, ConfigError> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(ConfigError {
                file: path.to_path_buf(),
                at: None,
                message: format!("cannot read: {e}"),
            });
        }
    };
    if !meta.is_file() {
        return Err(ConfigError {
            file: path.to_path_buf(),
            at: None,
            message: "not a file".to_owned(),
        });
    }
    if meta.len() > MAX_BYTES as u64 {
        return Err(ConfigError {
            file: path.to_path_buf(),
            at: None,
            message: format!("larger than {MAX_BYTES} bytes"),
        });
    }
    #[cfg(unix)]
    let ids = {
        use std::os::unix::fs::MetadataExt;
        (meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec())
    };
    Ok(Some(Stamp {
        len: meta.len(),
        modified: meta.modified().ok(),
        #[cfg(unix)]
        ids,
    }))
}
