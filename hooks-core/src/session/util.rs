//! Ids and timestamps for session files, without extra dependencies.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// 64 unpredictable-enough bits: std's randomly keyed SipHash over a process-wide counter, the
/// clock and the pid. Not cryptographic; ids only need to be unique.
pub(super) fn random_u64() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_u128(since_epoch(SystemTime::now()).as_nanos());
    hasher.write_u32(std::process::id());
    hasher.finish()
}

/// A session id shaped like a UUID v4 (`xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`).
pub(super) fn session_id() -> String {
    let hi = random_u64();
    let lo = random_u64();
    let hi = (hi & !0xF000) | 0x4000; // version 4
    let lo = (lo & !(0xC << 60)) | (0x8 << 60); // variant 10xx
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        hi >> 32,
        (hi >> 16) & 0xFFFF,
        hi & 0xFFFF,
        lo >> 48,
        lo & 0xFFFF_FFFF_FFFF
    )
}

/// A short entry id (8 hex digits) for which `taken` is false.
pub(super) fn entry_id(taken: impl Fn(&str) -> bool) -> String {
    loop {
        let id = format!("{:08x}", random_u64() & 0xFFFF_FFFF);
        if !taken(&id) {
            return id;
        }
    }
}

fn since_epoch(time: SystemTime) -> Duration {
    time.duration_since(UNIX_EPOCH).unwrap_or_default()
}

/// The current time as ISO-8601 UTC with milliseconds (`2026-01-05T09:03:07.123Z`).
pub(super) fn now_iso8601() -> String {
    iso8601(since_epoch(SystemTime::now()))
}

/// ISO-8601 UTC with milliseconds of a time since the Unix epoch.
pub(super) fn iso8601(since_epoch: Duration) -> String {
    let secs = since_epoch.as_secs();
    let days = i64::try_from(secs / 86_400).unwrap_or(i64::MAX);
    let rem = secs % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        since_epoch.subsec_millis()
    )
}

/// Year, month, day of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // [0, 146096]
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // [0, 399]
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // [0, 365]
    let mp = (5 * doy + 2) / 153; // [0, 11]
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    // Both are small positive numbers.
    (year, month as u32, day as u32)
}

/// A file-name-safe form of a timestamp (`:` and `.` become `-`), as upstream names files.
pub(super) fn file_stamp(timestamp: &str) -> String {
    timestamp.replace([':', '.'], "-")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn session_timestamps_are_iso8601_utc_with_millis() {
        assert_eq!(iso8601(Duration::ZERO), "1970-01-01T00:00:00.000Z");
        // 2000-02-29T12:34:56.789Z, a leap day of a century leap year.
        assert_eq!(
            iso8601(Duration::from_millis(951_827_696_789)),
            "2000-02-29T12:34:56.789Z"
        );
        assert_eq!(
            iso8601(Duration::from_secs(4_102_444_799)),
            "2099-12-31T23:59:59.000Z"
        );
        assert_eq!(
            file_stamp("2000-02-29T12:34:56.789Z"),
            "2000-02-29T12-34-56-789Z"
        );
    }

    #[test]
    fn session_ids_are_unique_and_well_formed() {
        let mut taken = HashSet::new();
        for _ in 0..10_000 {
            let id = entry_id(|id| taken.contains(id));
            assert_eq!(id.len(), 8);
            assert!(id.chars().all(|c| c.is_ascii_hexdigit()));
            assert!(taken.insert(id));
        }
        let sid = session_id();
        assert_eq!(sid.len(), 36);
        assert_eq!(&sid[14..15], "4");
        assert_ne!(session_id(), sid);
    }
}
