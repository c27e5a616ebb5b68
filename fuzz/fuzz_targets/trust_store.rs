//! The trust store (`trusted.json`): `hookwright_cli::trust::TrustStore::parse` on arbitrary bytes
//! (the decoder `TrustStore::open` runs on the file's content). It decodes, with only
//! well-formed hashes, or fails with a one-line error naming `trusted.json`.

#![no_main]

use hookwright_cli::trust::TrustStore;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match TrustStore::parse("/cfg/trusted.json", data) {
        Ok(store) => {
            for (_path, hash) in store.entries() {
                assert_eq!(hash.len(), 64, "{hash}");
                assert!(
                    hash.bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
                    "{hash}"
                );
            }
        }
        Err(e) => {
            let text = e.to_string();
            assert!(!text.contains('\n'), "{text:?}");
            assert!(text.starts_with("/cfg/trusted.json"), "{text}");
        }
    }
});
