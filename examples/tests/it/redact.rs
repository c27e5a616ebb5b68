//! What the recommended redaction (`hookwright_examples::redact::redact_secrets`) finds.

use hookwright_examples::redact::{redact_api_keys, redact_secrets};

/// Each text with a secret, and the text after redaction.
const REDACTED: &[(&str, &str)] = &[
    ("API_KEY=abc123", "API_KEY=[REDACTED]"),
    ("api_key=abc", "api_key=[REDACTED]"),
    ("API_KEY = abc", "API_KEY = [REDACTED]"),
    ("API_KEY:\tabc", "API_KEY:\t[REDACTED]"),
    (
        r#"{"API_KEY": "abc", "debug": true}"#,
        r#"{"API_KEY": "[REDACTED]", "debug": true}"#,
    ),
    ("API_KEY=\u{a0}abc", "API_KEY=\u{a0}[REDACTED]"),
    ("password:\u{3000}hunter2", "password:\u{3000}[REDACTED]"),
    ("api-key: abc", "api-key: [REDACTED]"),
    ("apikey=abc", "apikey=[REDACTED]"),
    ("ApiKey: abc", "ApiKey: [REDACTED]"),
    ("X-Api-Key: abc", "X-Api-Key: [REDACTED]"),
    ("MY_API_KEY=zz", "MY_API_KEY=[REDACTED]"),
    ("GITHUB_TOKEN=ghp_abc", "GITHUB_TOKEN=[REDACTED]"),
    ("client_secret='s e c'", "client_secret='[REDACTED]'"),
    ("'token' => 'abc'", "'token' => '[REDACTED]'"),
    (r#"DB_PASSWORD="p\"q r""#, r#"DB_PASSWORD="[REDACTED]""#),
    ("passwd: x", "passwd: [REDACTED]"),
    (
        "export SECRET=abc # set by ops",
        "export SECRET=[REDACTED] # set by ops",
    ),
    (
        "API_KEY=a\nTOKEN=b LOG=1",
        "API_KEY=[REDACTED]\nTOKEN=[REDACTED] LOG=1",
    ),
    ("API_KEY=[REDACTED]", "API_KEY=[REDACTED]"),
    (
        "AWS_SECRET_ACCESS_KEY=wJal",
        "AWS_SECRET_ACCESS_KEY=[REDACTED]",
    ),
    ("private_key: abc", "private_key: [REDACTED]"),
];

/// Texts without a secret's value, left as they are.
const KEPT: &[&str] = &[
    "no secrets here",
    "API_KEY=",
    "API_KEY= \n",
    "password:\nnext line",
    "token::Kind",
    "the token is valid",
    r#"{"token": ""}"#,
    r#"{"max_tokens": 1024, "model": "m"}"#,
    "max_tokens: 1024,",
    "token_count = 3",
    "secret_name: prod-db",
    "passwords_checked=4",
];

#[test]
fn secrets_are_redacted_in_every_spelling_of_key_separator_and_quotes() {
    let wrong: Vec<_> = REDACTED
        .iter()
        .map(|(text, want)| (*text, redact_secrets(text), *want))
        .filter(|(_, got, want)| got != want)
        .collect();
    assert!(wrong.is_empty(), "(text, got, wanted): {wrong:#?}");
}

#[test]
fn text_without_a_secret_value_is_kept_and_a_key_only_containing_a_keyword_is_no_secret() {
    for text in KEPT {
        assert_eq!(redact_secrets(text), *text);
    }
}

#[test]
fn the_upstream_port_redacts_api_key_equals_only() {
    assert_eq!(
        redact_api_keys("API_KEY=abc123 x\nAPI_KEY=\tAPI_KEY=é!x MY_API_KEY=zz"),
        "API_KEY=[REDACTED] x\nAPI_KEY=\tAPI_KEY=[REDACTED] MY_API_KEY=[REDACTED]"
    );
    for text in ["api_key=abc", "API_KEY = abc", r#""API_KEY": "abc""#] {
        assert_eq!(redact_api_keys(text), text);
    }
}
