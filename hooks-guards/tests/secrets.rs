//! The secret redactor ([`hookwright_guards::secrets`]): real-format samples, each redacted by
//! the right rule, and look-alikes that stay as they are.
//!
//! No real credential is written here: every secret is assembled at run time from its format's
//! prefix and a random body (a fixed-seed generator), so no scanner finds one in this file.

use hookwright::prelude::*;
use hookwright_guards::secrets::{
    self, MAX_TEXT, WITHHELD_TOO_LARGE, redact, redact_output, redact_secrets, rules,
};

/// A fixed-seed generator of bodies (xorshift64*).
struct Bodies(u64);

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const DIGITS: &str = "0123456789";
const HEX: &str = "0123456789abcdef";
const BASE32: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

impl Bodies {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// `n` characters drawn from `alphabet`.
    fn take(&mut self, alphabet: &str, n: usize) -> String {
        let chars: Vec<char> = alphabet.chars().collect();
        (0..n)
            .map(|_| {
                let i = usize::try_from(self.next() % chars.len() as u64).expect("fits");
                chars[i]
            })
            .collect()
    }

    fn alnum(&mut self, n: usize) -> String {
        self.take(&[UPPER, LOWER, DIGITS].concat(), n)
    }
}

/// A sample: the rule expected, and the text around the secret.
struct Sample {
    rule: &'static str,
    before: String,
    secret: String,
    after: String,
}

fn sample(rule: &'static str, before: &str, secret: String, after: &str) -> Sample {
    Sample {
        rule,
        before: before.to_owned(),
        secret,
        after: after.to_owned(),
    }
}

/// A PEM block of `label` with a random body.
fn pem(b: &mut Bodies, label: &str, newline: &str) -> String {
    let b64 = [UPPER, LOWER, DIGITS, "+/"].concat();
    let lines: Vec<String> = (0..6).map(|_| b.take(&b64, 64)).collect();
    [
        format!("-----BEGIN {label}-----"),
        lines.join(newline),
        format!("-----END {label}-----"),
    ]
    .join(newline)
}

fn samples() -> Vec<Sample> {
    let b = &mut Bodies(0x9E37_79B9_7F4A_7C15);
    let b64 = [UPPER, LOWER, DIGITS, "+/"].concat();
    let url64 = [UPPER, LOWER, DIGITS, "-_"].concat();
    let jwt = |b: &mut Bodies| {
        format!(
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.ey{}.{}",
            b.alnum(40),
            b.take(&url64, 43)
        )
    };
    vec![
        // Cloud keys.
        sample(
            "aws-access-token",
            "aws_access_key_id = ",
            format!("AKIA{}", b.take(BASE32, 16)),
            "\n",
        ),
        sample(
            "aws-access-token",
            "export AWS_ACCESS_KEY_ID=",
            format!("ASIA{}", b.take(BASE32, 16)),
            "",
        ),
        sample(
            "aws-access-token",
            "creds: ",
            format!("AKIA{}", b.take(BASE32, 16)),
            " (rotated)",
        ),
        sample(
            "generic-api-key",
            "aws_secret_access_key = ",
            b.take(&b64, 40),
            "\n",
        ),
        sample(
            "private-key",
            "{\"type\": \"service_account\", \"project_id\": \"demo\", \"private_key\": \"",
            pem(b, "PRIVATE KEY", "\\n"),
            "\\n\", \"client_email\": \"ci@demo.iam.gserviceaccount.com\"}",
        ),
        sample(
            "gcp-api-key",
            "GOOGLE_MAPS_KEY: ",
            format!("AIza{}", b.take(&url64, 35)),
            "\n",
        ),
        sample(
            "gcp-api-key",
            "https://maps.googleapis.com/maps/api/js?v=3 key ",
            format!("AIza{}", b.take(&url64, 35)),
            "",
        ),
        sample(
            "azure-ad-client-secret",
            "AZURE_CLIENT_SECRET=",
            format!("{}8Q~{}", b.alnum(3), b.alnum(34)),
            "\n",
        ),
        sample(
            "generic-api-key",
            "DefaultEndpointsProtocol=https;AccountName=demo;AccountKey=",
            format!("{}==", b.take(&b64, 86)),
            ";EndpointSuffix=core.windows.net",
        ),
        // Source forges.
        sample(
            "github-pat",
            "remote: ",
            format!("ghp_{}", b.alnum(36)),
            "\n",
        ),
        sample(
            "github-fine-grained-pat",
            "GH_TOKEN=",
            format!(
                "github_pat_{}",
                b.take(&[UPPER, LOWER, DIGITS, "_"].concat(), 82)
            ),
            "",
        ),
        sample(
            "github-oauth",
            "oauth: ",
            format!("gho_{}", b.alnum(36)),
            "",
        ),
        sample(
            "github-app-token",
            "installation token ",
            format!("ghs_{}", b.alnum(36)),
            " expires in 1h",
        ),
        sample(
            "gitlab-pat",
            "PRIVATE-TOKEN: ",
            format!("glpat-{}", b.alnum(20)),
            "\n",
        ),
        // Chat and payments.
        sample(
            "slack-bot-token",
            "SLACK_BOT=",
            format!(
                "xoxb-{}-{}-{}",
                b.take(DIGITS, 12),
                b.take(DIGITS, 13),
                b.alnum(24)
            ),
            "",
        ),
        sample(
            "slack-user-token",
            "slack: ",
            format!(
                "xoxp-{}-{}-{}-{}",
                b.take(DIGITS, 11),
                b.take(DIGITS, 12),
                b.take(DIGITS, 13),
                b.take(HEX, 32)
            ),
            "",
        ),
        sample(
            "slack-webhook-url",
            "curl -X POST ",
            format!(
                "https://hooks.slack.com/services/T{}/B{}/{}",
                b.take(UPPER, 8),
                b.take(UPPER, 10),
                b.alnum(24)
            ),
            " -d @msg.json",
        ),
        sample(
            "stripe-access-token",
            "stripe.api_key = \"",
            format!("sk_live_{}", b.alnum(24)),
            "\"",
        ),
        sample(
            "stripe-access-token",
            "STRIPE=",
            format!("rk_test_{}", b.alnum(32)),
            "\n",
        ),
        // AI providers.
        sample(
            "openai-api-key",
            "OPENAI_API_KEY=",
            format!(
                "sk-proj-{}T3BlbkFJ{}",
                b.take(&url64, 74),
                b.take(&url64, 74)
            ),
            "\n",
        ),
        sample(
            "openai-api-key",
            "openai: ",
            format!("sk-{}T3BlbkFJ{}", b.alnum(20), b.alnum(20)),
            "",
        ),
        sample(
            "anthropic-api-key",
            "ANTHROPIC_API_KEY=",
            format!("sk-ant-api03-{}AA", b.take(&url64, 93)),
            "\n",
        ),
        sample(
            "anthropic-admin-api-key",
            "admin key: ",
            format!("sk-ant-admin01-{}AA", b.take(&url64, 93)),
            "",
        ),
        sample(
            "huggingface-access-token",
            "HF_TOKEN=",
            format!("hf_{}", b.take(&[UPPER, LOWER].concat(), 34)),
            "",
        ),
        // Package registries and mail, SMS.
        sample(
            "npm-access-token",
            "//registry.npmjs.org/:_authToken=",
            format!("npm_{}", b.alnum(36)),
            "\n",
        ),
        sample(
            "pypi-upload-token",
            "password = ",
            format!("pypi-AgEIcHlwaS5vcmc{}", b.take(&url64, 120)),
            "\n",
        ),
        sample(
            "twilio-api-key",
            "twilio sid ",
            format!("SK{}", b.take(HEX, 32)),
            "",
        ),
        sample(
            "sendgrid-api-token",
            "SENDGRID_API_KEY='",
            format!("SG.{}.{}", b.take(&url64, 22), b.take(&url64, 43)),
            "'",
        ),
        sample(
            "digitalocean-pat",
            "DO_TOKEN=",
            format!("dop_v1_{}", b.take(HEX, 64)),
            "",
        ),
        sample(
            "shopify-access-token",
            "shop: ",
            format!("shpat_{}", b.take(HEX, 32)),
            "",
        ),
        sample(
            "databricks-api-token",
            "DATABRICKS_TOKEN=",
            format!("dapi{}", b.take(HEX, 32)),
            "\n",
        ),
        // Private key blocks.
        sample(
            "private-key",
            "$ cat ~/.ssh/id_rsa\n",
            pem(b, "RSA PRIVATE KEY", "\n"),
            "\n$ ",
        ),
        sample("private-key", "", pem(b, "EC PRIVATE KEY", "\n"), "\n"),
        sample(
            "private-key",
            "key:\n",
            pem(b, "OPENSSH PRIVATE KEY", "\n"),
            "",
        ),
        sample(
            "private-key",
            "",
            pem(b, "PGP PRIVATE KEY BLOCK", "\n"),
            "\n",
        ),
        // JWTs.
        sample("jwt", "Authorization: Bearer ", jwt(b), "\n"),
        sample("jwt", "{\"id_token\":\"", jwt(b), "\"}"),
        // URLs with passwords.
        sample(
            "url-password",
            "DATABASE_URL=postgres://app:",
            b.alnum(16),
            "@db.internal:5432/app",
        ),
        sample(
            "url-password",
            "git clone https://deploy:",
            b.alnum(20),
            "@git.example.com/team/repo.git",
        ),
        sample(
            "url-password",
            "redis: redis://default:",
            b.alnum(24),
            "@cache:6379/0",
        ),
        sample(
            "url-password",
            "REDIS_URL=redis://:",
            b.alnum(20),
            "@cache:6379/0",
        ),
        sample(
            "url-password",
            "postgres://app:",
            format!("{}@{}", b.alnum(6), b.alnum(10)),
            "@db/app",
        ),
        // HTTP Authorization headers, as curl -v shows them.
        sample(
            "authorization-header",
            "> GET /v1/me HTTP/1.1\r\n> Authorization: Bearer ",
            b.take(&url64, 40),
            "\r\n> Accept: */*\r\n",
        ),
        sample(
            "authorization-header",
            "authorization: basic ",
            format!("{}==", b.take(&b64, 26)),
            "\n",
        ),
        sample(
            "authorization-header",
            "Proxy-Authorization: Token ",
            b.take(HEX, 40),
            "",
        ),
        // Assignments, in several spellings.
        sample("generic-api-key", "API_KEY=", b.alnum(32), "\n"),
        sample("generic-api-key", "{\"api_key\": \"", b.alnum(32), "\"}"),
        sample("generic-api-key", "  token: ", b.alnum(40), "\n"),
        sample("generic-api-key", "export SECRET_TOKEN='", b.alnum(28), "'"),
        // A value of letters alone is allowed by gitleaks (`^[a-zA-Z_.-]+$`): a word of code.
        sample(
            "generic-api-key",
            "client_secret = \"",
            format!("{}7{}", b.alnum(15), b.alnum(14)),
            "\"",
        ),
        sample("generic-api-key", "Auth_Token     :=   ", b.alnum(32), ";"),
        sample(
            "generic-api-key",
            "SECRET_KEY: \"",
            format!("{}-{}", b.alnum(20), b.take(DIGITS, 8)),
            "\"",
        ),
        sample(
            "password-assignment",
            "DB_PASSWORD=",
            "hunter2hunter".to_owned(),
            "\n",
        ),
        sample(
            "password-assignment",
            "\"password\": \"",
            "correct horse".to_owned(),
            "\"",
        ),
        sample(
            "password-assignment",
            "Password = ",
            "Summer2024!".to_owned(),
            "\n",
        ),
        sample(
            "password-assignment",
            "passwd: '",
            "letmein99".to_owned(),
            "'",
        ),
    ]
}

#[test]
fn every_real_format_sample_is_redacted_by_its_rule() {
    let samples = samples();
    assert!(samples.len() >= 40, "{} samples", samples.len());
    eprintln!("{} samples", samples.len());
    let mut wrong = Vec::new();
    for s in &samples {
        let text = format!("{}{}{}", s.before, s.secret, s.after);
        let expected = format!("{}[redacted:{}]{}", s.before, s.rule, s.after);
        let got = redact(&text).expect("searchable");
        if got != expected {
            wrong.push(format!("{}:\n  in:  {text:?}\n  got: {got:?}", s.rule));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Texts that look like secrets (or name them) and are not.
fn look_alikes() -> Vec<String> {
    let b = &mut Bodies(0xD1B5_4A32_D192_ED03);
    let mut texts: Vec<String> = Vec::new();
    // UUIDs, hashes, base64 of ordinary data.
    for _ in 0..4 {
        texts.push(format!(
            "id: {}-{}-4{}-a{}-{}",
            b.take(HEX, 8),
            b.take(HEX, 4),
            b.take(HEX, 3),
            b.take(HEX, 3),
            b.take(HEX, 12)
        ));
    }
    texts.push(format!(
        "request_id={}-{}-{}-{}-{}",
        b.take(HEX, 8),
        b.take(HEX, 4),
        b.take(HEX, 4),
        b.take(HEX, 4),
        b.take(HEX, 12)
    ));
    for _ in 0..3 {
        texts.push(format!(
            "commit {}\nAuthor: A <a@example.com>",
            b.take(HEX, 40)
        ));
    }
    texts.push(format!("{} refs/heads/main", b.take(HEX, 40)));
    for _ in 0..3 {
        texts.push(format!("{}  target/release/hooks", b.take(HEX, 64)));
    }
    texts.push(format!("sha256:{}", b.take(HEX, 64)));
    texts.push(format!(
        "name = \"serde\"\nversion = \"1.0.229\"\nchecksum = \"{}\"",
        b.take(HEX, 64)
    ));
    texts.push("SGVsbG8sIHdvcmxkISBUaGlzIGlzIGp1c3QgdGV4dC4=".to_owned());
    texts.push(
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
            .to_owned(),
    );
    texts.push("echo 'bWFrZSB0ZXN0ICYmIGNhcmdvIGJ1aWxk' | base64 -d".to_owned());
    // Ordinary words and code that name secrets.
    for text in [
        "password_field",
        "token_count = 3",
        "api_key: \"\"",
        "API_KEY=$API_KEY",
        "KEY=$VAR",
        "SECRET=${SECRET}",
        "password: ${{ secrets.DB_PASSWORD }}",
        "max_tokens: 4096",
        "The access token expires after an hour; refresh it with the refresh token.",
        "Enter your password:",
        "let token = std::env::var(\"GITHUB_TOKEN\")?;",
        "const apiKey = process.env.OPENAI_API_KEY;",
        "password: string;",
        "if password == confirm_password {",
        "fn redact_secret(key: &str) -> String {",
        "let password = read_password()?;",
        "self.secret_key = settings.secret_key",
        "Authorization: Bearer $TOKEN",
        "Authorization: Bearer <token>",
        "> Authorization: Bearer ${API_TOKEN}",
        "authorization: required",
        "mongodb://<user>:<password>@host",
        "curl -H \"Authorization: token ${GH_TOKEN}\" https://api.github.com/user",
        "password = os.environ[\"DB_PASSWORD\"]",
        "  --password-stdin",
        "git@github.com:hookwright/hookwright.git",
        "https://github.com/rust-lang/rust/blob/master/README.md",
        "postgres://localhost:5432/app",
        "postgres://${DB_USER}:${DB_PASSWORD}@db:5432/app",
        "AKIAIOSFODNN7EXAMPLE",
        "keyboard_layout = us",
        "primary_key: id",
        "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUOSa\n-----END CERTIFICATE-----",
        "test result: ok. 42 passed; 0 failed; 0 ignored",
        "version = \"1.95.0\"",
        "// TODO: rotate the API key before the release",
        "#[serde(rename = \"apiKey\")]",
        "pub fn set_password(&mut self, password: &str) {",
        "ETag: \"33a64df551425fcc55e4d42a148795d9f25f89d4\"",
        "2026-12-02T06:13:25Z INFO server started on 127.0.0.1:8080",
    ] {
        texts.push(text.to_owned());
    }
    texts
}

#[test]
fn look_alikes_of_secrets_stay_unchanged() {
    let texts = look_alikes();
    assert!(
        texts.len() >= samples().len(),
        "{} look-alikes",
        texts.len()
    );
    eprintln!("{} look-alikes", texts.len());
    let changed: Vec<String> = texts
        .iter()
        .filter_map(|text| {
            let got = redact(text).expect("searchable");
            (got != *text).then(|| format!("{text:?}\n  -> {got:?}"))
        })
        .collect();
    assert!(changed.is_empty(), "{}", changed.join("\n"));
}

#[test]
fn every_vendored_rule_compiles_and_the_rules_left_out_are_listed_with_why() {
    let rules = rules();
    assert_eq!(rules.uncompilable(), [], "every rule compiles under regex");
    let left_out: Vec<(&str, &str)> = rules
        .left_out()
        .iter()
        .map(|l| (l.id.as_str(), l.why.as_str()))
        .collect();
    for (id, why) in &left_out {
        eprintln!("left out: {id}: {why}");
    }
    let ids: Vec<&str> = left_out.iter().map(|(id, _)| *id).collect();
    assert_eq!(
        ids,
        [
            "freemius-secret-key",
            "hashicorp-tf-password",
            "kubernetes-secret-yaml",
            "nuget-config-password",
            "pkcs12-file",
        ],
        "the rules bound to a file name, which a tool's output does not have"
    );
    assert!(
        left_out
            .iter()
            .all(|(_, why)| why.contains("path") || why.contains("name"))
    );
    // 222 vendored rules, 5 left out, 3 of our own.
    assert_eq!(rules.ids().count(), 222 - 5 + 3);
    assert!(rules.ids().any(|id| id == secrets::URL_PASSWORD));
}

#[test]
fn an_assignment_keeps_its_key_and_quotes_in_any_spacing_or_case() {
    let b = &mut Bodies(7);
    let value = b.alnum(32);
    for (before, after) in [
        ("API_KEY=", ""),
        ("api_key = ", ""),
        ("Api-Key:\t", ""),
        ("\"apiKey\":\"", "\""),
        ("'SECRET_TOKEN' => '", "'"),
        ("access_token: ", " # prod"),
    ] {
        let text = format!("{before}{value}{after}");
        assert_eq!(
            redact(&text).expect("searchable"),
            format!("{before}[redacted:generic-api-key]{after}"),
            "{text}"
        );
    }
}

#[test]
fn a_nul_ends_a_value_as_a_line_end_does() {
    let b = &mut Bodies(11);
    let value = b.alnum(32);
    // As `cat /proc/PID/environ` shows a process's environment.
    let text = format!("PATH=/usr/bin\0API_KEY={value}\0HOME=/root\0");
    assert_eq!(
        redact(&text).expect("searchable"),
        "PATH=/usr/bin\0API_KEY=[redacted:generic-api-key]\0HOME=/root\0",
        "{text:?}"
    );
}

#[test]
fn a_text_larger_than_the_limit_is_withheld_not_passed() {
    let text = "a".repeat(MAX_TEXT + 1);
    assert_eq!(redact_output(&text), WITHHELD_TOO_LARGE);
    assert_eq!(redact_output("token_count = 3"), "token_count = 3");
}

fn result(tool: &str, content: Vec<Content>) -> ToolResultEvent {
    ToolResultEvent {
        tool_name: tool.into(),
        tool_call_id: "t1".into(),
        input: ToolInput::new(),
        content,
        details: None,
        is_error: None,
        is_warning: None,
    }
}

#[test]
fn the_hook_redacts_read_grep_and_bash_output_and_withholds_documents() {
    let key = format!("ghp_{}", Bodies(3).alnum(36));
    for tool in ["read", "grep", "bash"] {
        let got = redact_secrets(&result(tool, vec![Content::text(format!("T={key}"))]))
            .and_then(|r| r.content)
            .unwrap_or_else(|| panic!("{tool} output is redacted"));
        assert_eq!(got, [Content::text("T=[redacted:github-pat]")], "{tool}");
    }
    let document =
        Content::Other(serde_json::json!({"type": "document", "source": {"data": "JVBERi0="}}));
    let got = redact_secrets(&result("read", vec![Content::text("clean"), document]))
        .and_then(|r| r.content)
        .expect("a document is withheld");
    assert_eq!(
        got,
        [Content::text("clean"), Content::text(WITHHELD_DOCUMENT)]
    );
}

#[test]
fn the_hook_leaves_clean_output_other_tools_and_failures_alone() {
    let key = format!("ghp_{}", Bodies(4).alnum(36));
    assert_eq!(
        redact_secrets(&result("bash", vec![Content::text("ok\n")])),
        None
    );
    assert_eq!(
        redact_secrets(&result("edit", vec![Content::text(key.clone())])),
        None
    );
    let mut failed = result("bash", vec![Content::text(key)]);
    failed.is_error = Some(true);
    assert_eq!(redact_secrets(&failed), None);
}

#[test]
fn many_finds_on_one_long_line_cost_linear_time() {
    // Each find's line was looked for from the find: a 4 MiB line of placeholders
    // (`password=xxxx`, allowed) took about a minute.
    let text = "password=xxxx ".repeat(MAX_TEXT / 14);
    let start = std::time::Instant::now();
    assert_eq!(redact_output(&text), text);
    let redacted = redact_output(&"password=hunter22 ".repeat(MAX_TEXT / 18));
    assert!(redacted.starts_with("password=[redacted:password-assignment] password="));
    assert!(!redacted.contains("hunter22"));
    let took = start.elapsed();
    assert!(took.as_secs() < 20, "{took:?}");
}
